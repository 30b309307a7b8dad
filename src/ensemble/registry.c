/*
 * registry.c -- every algorithm of the build and every component kind, one line each.
 *
 * Pipeline position: the top of ensemble/ (registry.h says why here).  The learners' names are
 * the values of the "algo" parameter (core/params_def.h); tests/test_registry.c checks that both
 * lists name the same algorithms and that every kind a learner produces is readable.
 */
#include "registry.h"
#include "ensemble.h"

#include "../core/params.h"
#include "../learn/linear.h"

#include <string.h>

static const gv_learner learners[] = {
    {"tree", gv_fit_tree},                      /* learn/learners.c */
    {"id3", gv_fit_id3},                        /* learn/learners.c */
    {"stump", gv_fit_stump},                    /* learn/learners.c */
    {"adaboost", gv_fit_adaboost},              /* boost.c */
    {"adaboost.m1", gv_fit_adaboost_m1},        /* boost.c */
    {"samme", gv_fit_samme},                    /* boost.c */
    {"samme.r", gv_fit_samme_r},                /* boost.c */
    {"adaboost.m2", gv_fit_adaboost_m2},        /* boost.c */
    {"adaboost.r2", gv_fit_adaboost_r2},        /* boost.c */
    {"filter-boost", gv_fit_filter_boost},      /* filter.c */
    {"confidence-boost", gv_fit_confidence_boost}, /* confidence.c */
    {"perceptron", gv_perceptron_fit},          /* learn/perceptron.c */
    {"logistic", gv_logistic_fit},              /* learn/logistic.c */
    {"bagging", gv_fit_bagging},                /* bagging.c */
    {"forest", gv_fit_forest},                  /* bagging.c */
    {"extra-trees", gv_fit_extra_trees},        /* bagging.c */
    {"gbdt", gv_fit_gbdt},                      /* gbdt.c */
    {"mlp", gv_mlp_fit},                        /* learn/mlp.c */
    {"stacking", gv_fit_stacking},              /* stacking.c */
    {"voting", gv_fit_voting},                  /* stacking.c */
};

static const gv_component_vt *const component_kinds[] = {
    &gv_tree_component,       /* learn/tree_component.c: tree, id3, stump */
    &gv_perceptron_component, /* learn/perceptron.c */
    &gv_logistic_component,   /* learn/logistic.c */
    &gv_boost_component,      /* boost.c: the AdaBoost family */
    &gv_majority3_component,  /* filter.c */
    &gv_confidence_component, /* confidence.c */
    &gv_bagging_component,    /* bagging.c: bagging, forest, extra-trees */
    &gv_gbdt_component,       /* gbdt.c */
    &gv_mlp_component,        /* learn/mlp.c */
    &gv_stacking_component,   /* stacking.c */
    &gv_voting_component,     /* stacking.c */
};

const gv_learner *gv_learner_find(const char *name)
{
    for (size_t i = 0; i < sizeof learners / sizeof learners[0]; i++)
        if (!strcmp(learners[i].name, name)) return &learners[i];
    return NULL;
}

size_t gv_learner_count(void) { return sizeof learners / sizeof learners[0]; }

const gv_learner *gv_learner_at(size_t i)
{
    return i < gv_learner_count() ? &learners[i] : NULL;
}

const gv_component_vt *gv_component_kind(const char *kind)
{
    for (size_t i = 0; i < sizeof component_kinds / sizeof component_kinds[0]; i++)
        if (!strcmp(component_kinds[i]->kind, kind)) return component_kinds[i];
    return NULL;
}

grove_status gv_component_from_json(const json_t *obj, const gv_model_ctx *ctx,
                                    gv_component *out)
{
    out->vt = NULL;
    out->impl = NULL;
    const char *kind;
    if (!json_is_object(obj)) return gv_err(GROVE_ERR_MODEL, "expected an object with a kind");
    grove_status st = gv_json_get_string(obj, "kind", &kind);
    if (st != GROVE_OK) return st;
    const gv_component_vt *vt = gv_component_kind(kind);
    if (!vt) return gv_err(GROVE_ERR_MODEL, "kind: unknown component kind '%s'", kind);
    st = vt->from_json(obj, ctx, &out->impl);
    if (st == GROVE_OK) out->vt = vt;
    return st;
}

grove_status gv_base_learner(const grove_params *p, const gv_learner **out)
{
    const char *name = gv_param_str(p, GV_P_BASE);
    *out = gv_learner_find(name);
    if (!*out)
        return gv_err(GROVE_ERR_PARAM, "base: unknown learner '%s' (see `grove help algos`)", name);
    return GROVE_OK;
}
