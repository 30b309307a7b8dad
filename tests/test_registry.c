/*
 * test_registry.c -- the registry (ensemble/registry.c) and the parameter table
 * (core/params_def.h) name the same algorithms, in both directions.  (That the kind of every
 * learner's component is registered is checked by the model writer on every save:
 * tests/cli_model_hashes.sh saves a model of every algorithm.)  Which kinds can be exported to C
 * (their export_c slot).
 */
#include "check.h"

#include "core/params.h"
#include "ensemble/registry.h"

#include <string.h>

/* The allowed values of the "algo" parameter, straight from the table. */
#define ALGO_ALLOWED_(id, name, kind, def, lo, hi, allowed, help, applies) \
    if (!strcmp(name, "algo")) return allowed;
static const char *algo_allowed(void)
{
    GV_PARAM_TABLE(ALGO_ALLOWED_)
    return NULL;
}
#undef ALGO_ALLOWED_

/* 1 when `name` is one of the '|'-separated words of `list`. */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static void test_same_algorithms(void)
{
    const char *allowed = algo_allowed();
    CHECK(allowed != NULL);
    if (!allowed) return;
    /* every registered learner is a value of "algo" */
    size_t n = gv_learner_count();
    CHECK(n >= 20);
    for (size_t i = 0; i < n; i++) {
        const gv_learner *l = gv_learner_at(i);
        CHECK(l && l->fit);
        if (!in_list(allowed, l->name)) CHECK_STR(l->name, "a value of the algo parameter");
        CHECK(gv_learner_find(l->name) == l);
    }
    CHECK(gv_learner_at(n) == NULL);
    /* every value of "algo" is registered */
    size_t words = 0;
    for (const char *p = allowed; *p;) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char name[64] = {0};
        CHECK(len < sizeof name);
        memcpy(name, p, len < sizeof name ? len : sizeof name - 1);
        if (!gv_learner_find(name)) CHECK_STR(name, "a registered learner");
        words++;
        if (!e) break;
        p = e + 1;
    }
    CHECK_EQ_INT(words, n);
    CHECK(gv_learner_find("no-such-learner") == NULL);
    CHECK(gv_component_kind("no-such-kind") == NULL);
}

/* Every kind but mlp writes its C code through its export_c slot (`grove export`); mlp has none
 * yet, which is what the exporter's refusal (tests/test_export.c) rests on. */
static void test_export_slots(void)
{
    static const char *const exported[] = {"tree",       "perceptron", "logistic", "boost",
                                           "majority3",  "confidence", "bagging",  "gbdt",
                                           "stacking",   "voting"};
    for (size_t i = 0; i < sizeof exported / sizeof exported[0]; i++) {
        const gv_component_vt *vt = gv_component_kind(exported[i]);
        CHECK(vt != NULL);
        if (vt && !vt->export_c) CHECK_STR(exported[i], "a kind with an export_c slot");
    }
    const gv_component_vt *mlp = gv_component_kind("mlp");
    CHECK(mlp != NULL);
    CHECK(mlp && mlp->export_c == NULL);
}

int main(void)
{
    test_same_algorithms();
    test_export_slots();
    TEST_MAIN_END();
}
