/*
 * registry.h -- every algorithm of the build, by name, and every component kind a model file may
 * hold (registry.c).
 *
 * Pipeline position: the top of ensemble/, the lowest place that sees every learner (learn/) and
 * every ensemble; ensembles that name other learners (a base learner, stacking's members and
 * meta-learner, bagging's default tree) look them up here, and the model file reads components
 * of any kind through it.  Adding an algorithm: one line in each table of registry.c, and its
 * name in the "algo" parameter (core/params_def.h; tests/test_registry.c checks they agree).
 */
#ifndef GV_REGISTRY_H
#define GV_REGISTRY_H

#include "../learn/learner.h"

/* The learner named `name` ("tree", "adaboost", ...; every value of the "algo" parameter);
 * NULL if unknown. */
const gv_learner *gv_learner_find(const char *name);
/* The learners in registry order: i in [0, gv_learner_count()). */
size_t gv_learner_count(void);
const gv_learner *gv_learner_at(size_t i);

/* The component kind named `kind` ("tree", "boost", ...); NULL if unknown. */
const gv_component_vt *gv_component_kind(const char *kind);
/* Reads a component object {"kind": ..., fields}: looks up its kind and calls that kind's
 * from_json.  *out is cleared on failure (GROVE_ERR_MODEL naming the problem; callers prefix
 * where it was). */
grove_status gv_component_from_json(const json_t *obj, const gv_model_ctx *ctx,
                                    gv_component *out);

/* The base learner of an ensemble, named by the parameter "base" (GROVE_ERR_PARAM naming it
 * when unknown).  The ensemble fits it on a copy of its gv_fit_input with the base parameters
 * (gv_params_base). */
grove_status gv_base_learner(const grove_params *ensemble_params, const gv_learner **out);

#endif /* GV_REGISTRY_H */
