/*
 * ensemble.h -- ensembles written against the base-learner interface (learn/learner.h).
 *
 * Pipeline position: ensemble/ (after learn/, before model/).  Each ensemble is itself a
 * learner (so ensembles nest: bagging of AdaBoost works) and produces a component.  The base
 * learner is named by parameter "base" and configured by "base.KEY" parameters
 * (gv_params_base); ensembles draw their random streams from (seed, component id, round).
 */
#ifndef GV_ENSEMBLE_H
#define GV_ENSEMBLE_H

#include "../learn/learner.h"

/* Component ids for random streams (gv_rng_seed's `component` argument). */
enum { GV_STREAM_LEARNER = 1, GV_STREAM_BOOST = 2, GV_STREAM_FILTER = 3, GV_STREAM_CONFIDENCE = 4 };

/* The AdaBoost family (boost.c): algo adaboost, adaboost.m1, samme, samme.r, adaboost.m2,
 * adaboost.r2 -- one component kind "boost". */
grove_status gv_fit_adaboost(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_adaboost_m1(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_samme(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_samme_r(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_adaboost_m2(const gv_fit_input *in, gv_rng *rng, gv_component *out);
grove_status gv_fit_adaboost_r2(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_boost_component;

/* Schapire's boosting by filtering, recursive majority of three (filter.c). */
grove_status gv_fit_filter_boost(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_majority3_component;

/* Boosting the confidence (confidence.c). */
grove_status gv_fit_confidence_boost(const gv_fit_input *in, gv_rng *rng, gv_component *out);
extern const gv_component_vt gv_confidence_component;

/* Normalized margins of a voting ensemble ("boost" of adaboost, m1, samme, m2):
 * (s_y - max_{k != y} s_k) / sum |alpha| for every row of labelled d, into out[n_rows].
 * GROVE_ERR_ARG when the component has no margins (samme.r, r2, non-boosting models). */
grove_status gv_boost_margins(const gv_component *c, const grove_dataset *d, int n_threads,
                              double *out);
/* The per-round training log as CSV text (header + one row per round) into `b`. */
grove_status gv_boost_log_csv(const gv_component *c, gv_buf *b);

/* Fits the base learner named by in->params' "base" with the base parameters: a copy of `in`
 * with params replaced; the learner is looked up once by the caller with gv_base_learner. */
grove_status gv_base_learner(const grove_params *ensemble_params, const gv_learner **out);

/* Predicts component c on every row of d into out[n_rows * k] (OpenMP over rows). */
void gv_component_predict_all(const gv_component *c, const grove_dataset *d, size_t k,
                              int n_threads, double *out);

#endif /* GV_ENSEMBLE_H */
