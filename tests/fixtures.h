/*
 * fixtures.h -- what the C tests share beyond the check macros (check.h): a deterministic
 * uniform generator, parameters from "KEY=VALUE" lists, data sets from the source tree, and
 * training through the public API with every step checked.
 *
 * Header-only (static functions), included after check.h by the tests that use it.  Every
 * returned object is new and the caller frees it (grove_params_free, grove_dataset_free,
 * grove_model_free); a failing step is a failed check and returns NULL.
 */
#ifndef GROVE_TEST_FIXTURES_H
#define GROVE_TEST_FIXTURES_H

#include "check.h"

#include <stdint.h>

/* splitmix64 (Steele, Lea & Flood 2014) -> [0, 1) with 53 random bits; *state is the stream. */
static inline double fx_unif(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* Sets every "KEY=VALUE" of the NULL-terminated kv (NULL: none) in p, in order. */
static inline void fx_params_apply(grove_params *p, const char *const *kv)
{
    for (; kv && *kv; kv++) CHECK_OK(grove_params_set_pair(p, *kv));
}

/* New parameters: the defaults, then kv. */
static inline grove_params *fx_params(const char *const *kv)
{
    grove_params *p = NULL;
    CHECK_OK(grove_params_create(&p));
    if (p) fx_params_apply(p, kv);
    return p;
}

/* The data set at `rel` (relative to the source root), read with params p and schema s (either
 * may be NULL). */
static inline grove_dataset *fx_load(const char *rel, const grove_params *p, const grove_schema *s)
{
    char path[1024];
    grove_dataset *d = NULL;
    CHECK_OK(grove_dataset_load(test_src_path(rel, path, sizeof path), p, s, &d));
    return d;
}

/* A model trained on d (validation data v, may be NULL) with the parameters kv. */
static inline grove_model *fx_train(const grove_dataset *d, const grove_dataset *v,
                                    const char *const *kv)
{
    grove_params *p = fx_params(kv);
    grove_model *m = NULL;
    CHECK_OK(grove_train(d, v, p, &m));
    grove_params_free(p);
    return m;
}

#endif
