/*
 * members.c -- what stacking and voting share: a list of named learners (parsed from a
 * parameter, written, read back), the base learners' parameters, and fitting many learners in
 * parallel, each on its own random stream (members.h).
 *
 * Pipeline position: ensemble/.
 */
#include "members.h"

#include "../core/params.h"

#include <stdio.h>
#include <string.h>

void gv_names_free(char **names, size_t n)
{
    if (!names) return;
    for (size_t i = 0; i < n; i++) gv_free(names[i]);
    gv_free(names);
}

/* Splits the comma-separated list `text` (blanks around names ignored) into new names, each a
 * known learner.  `param` names the parameter in messages. */
grove_status gv_learners_parse(const char *text, const char *param, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char **names = gv_calloc(GV_MAX_LEARNERS, sizeof *names);
    if (!names) return gv_err_nomem("a list of learners");
    size_t k = 0;
    const char *s = text;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        while (len && (*s == ' ' || *s == '\t')) s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
        if (!len) {
            gv_names_free(names, k);
            return gv_err(GROVE_ERR_PARAM, "%s: an empty learner name in '%s'", param, text);
        }
        if (k == GV_MAX_LEARNERS) {
            gv_names_free(names, k);
            return gv_err(GROVE_ERR_PARAM, "%s: more than %d learners", param, GV_MAX_LEARNERS);
        }
        names[k] = gv_strndup(s, len);
        if (!names[k]) {
            gv_names_free(names, k);
            return gv_err_nomem("a list of learners");
        }
        if (!gv_learner_find(names[k])) {
            grove_status st = gv_err(GROVE_ERR_PARAM,
                                     "%s: unknown learner '%s' (see `grove help algos`)", param,
                                     names[k]);
            gv_names_free(names, k + 1);
            return st;
        }
        k++;
        if (!e) break;
        s = e + 1;
    }
    *out = names;
    *n = k;
    return GROVE_OK;
}

/* The learner list of parameter `id` ("auto": tree,forest,logistic for classification,
 * tree,forest,mlp for regression). */
grove_status gv_learners_param(const grove_params *p, gv_param_id id, int classification,
                                   char ***out, size_t *n)
{
    const char *text = gv_param_str(p, id);
    if (!strcmp(text, "auto")) text = classification ? "tree,forest,logistic" : "tree,forest,mlp";
    return gv_learners_parse(text, gv_param_name(id), out, n);
}

/* New parameters for the base learners: base.KEY, with the model's seed unless base.seed. */
grove_status gv_base_params_new(const grove_params *p, grove_params **out)
{
    const grove_params *b = gv_params_base(p);
    grove_status st = b ? grove_params_copy(b, out) : grove_params_create(out);
    if (st != GROVE_OK) return st;
    if (!gv_param_is_set(*out, GV_P_SEED)) {
        st = grove_params_set(*out, "seed", gv_param_str(p, GV_P_SEED));
        if (st != GROVE_OK) {
            grove_params_free(*out);
            *out = NULL;
        }
    }
    return st;
}

/* Fits every task in parallel; inner learners get the threads left over.  On failure returns
 * the first failed task's status with "what <index>: message" (components of every task stay
 * in the tasks, for the caller to free). */
grove_status gv_fit_tasks_run(gv_fit_task *tasks, size_t n, int n_threads, uint64_t seed,
                              uint64_t component, const char *const *names, size_t per_name)
{
    int nt = n_threads > 0 ? n_threads : 1;
    int inner = n == 0 || (size_t)nt <= n ? 1 : (int)((size_t)nt / n);
    const long nl = (long)n;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
    for (long t = 0; t < nl; t++) {
        gv_fit_task *k = &tasks[t];
        gv_rng rng;
        gv_rng_seed(&rng, seed, component, k->stream);
        k->in.n_threads = inner;
        k->st = k->learner->fit(&k->in, &rng, &k->comp);
        if (k->st != GROVE_OK) snprintf(k->msg, sizeof k->msg, "%s", grove_last_error());
    }
    for (size_t t = 0; t < n; t++)
        if (tasks[t].st != GROVE_OK)
            return gv_err(tasks[t].st, "learner %zu (%s): %s", t / per_name + 1,
                          names[t / per_name], tasks[t].msg);
    return GROVE_OK;
}

json_t *gv_members_json(const gv_component *m, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, gv_component_to_json(&m[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Reads "learners" (names of known learners) and "members" (as many components) of obj. */
grove_status gv_members_read(const json_t *obj, const gv_model_ctx *ctx, char ***names,
                                 gv_component **members, size_t *n)
{
    *names = NULL;
    *members = NULL;
    *n = 0;
    const json_t *ln = json_object_get(obj, "learners"), *mb = json_object_get(obj, "members");
    if (!json_is_array(ln) || json_array_size(ln) == 0 || json_array_size(ln) > GV_MAX_LEARNERS)
        return gv_err(GROVE_ERR_MODEL, "learners: must be an array of 1 to %d names",
                      GV_MAX_LEARNERS);
    size_t L = json_array_size(ln);
    if (!json_is_array(mb) || json_array_size(mb) != L)
        return gv_err(GROVE_ERR_MODEL, "members: must be an array of %zu components", L);
    char **nm = gv_calloc(L, sizeof *nm);
    gv_component *m = gv_calloc(L, sizeof *m);
    grove_status st = GROVE_OK;
    if (!nm || !m) {
        st = gv_err_nomem("a model's members");
        goto fail;
    }
    for (size_t l = 0; l < L && st == GROVE_OK; l++) {
        const char *s = json_string_value(json_array_get(ln, l));
        if (!s || !gv_learner_find(s)) {
            st = gv_err(GROVE_ERR_MODEL, "learners[%zu]: not a known learner", l);
            break;
        }
        if (!(nm[l] = gv_strdup(s))) {
            st = gv_err_nomem("a model's members");
            break;
        }
        st = gv_component_from_json(json_array_get(mb, l), ctx, &m[l]);
        if (st != GROVE_OK) gv_err_prefix("members[%zu]", l);
    }
    if (st == GROVE_OK) {
        *names = nm;
        *members = m;
        *n = L;
        return GROVE_OK;
    }
fail:
    if (m)
        for (size_t l = 0; l < L; l++) gv_component_free(&m[l]);
    gv_free(m);
    gv_names_free(nm, L);
    return st;
}
