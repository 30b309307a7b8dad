/*
 * members.h -- a list of named member learners, shared by stacking.c and voting.c (members.c).
 *
 * Pipeline position: ensemble/ (internal to it).
 */
#ifndef GV_MEMBERS_H
#define GV_MEMBERS_H

#include "ensemble.h"

#include "../core/params.h"

#define GV_MAX_LEARNERS 256
/* Rows of at most this many values are assembled on the stack when predicting. */
#define GV_STACK_BUF 512

/* Frees names[0..n) and the array (NULL accepted). */
void gv_names_free(char **names, size_t n);
/* Splits the comma-separated list `text` (blanks around names ignored) into new names, each a
 * known learner (at most GV_MAX_LEARNERS).  `param` names the parameter in messages. */
grove_status gv_learners_parse(const char *text, const char *param, char ***out, size_t *n);
/* The learner list of parameter `id` ("auto": tree,forest,logistic for classification,
 * tree,forest,mlp for regression). */
grove_status gv_learners_param(const grove_params *p, gv_param_id id, int classification,
                               char ***out, size_t *n);
/* New parameters for the base learners: base.KEY, with the model's seed unless base.seed. */
grove_status gv_base_params_new(const grove_params *p, grove_params **out);

/* One fit of a learner on its own stream (seed, component, stream). */
typedef struct gv_fit_task {
    const gv_learner *learner;
    gv_fit_input in;
    uint64_t stream;
    gv_component comp;
    grove_status st;
    char msg[512];
} gv_fit_task;
/* Fits every task in parallel; inner learners get the threads left over.  On failure returns
 * the first failed task's status with "learner <i> (<name>): message", task t belonging to
 * names[t / per_name] (components of every task stay in the tasks, for the caller to free). */
grove_status gv_fit_tasks_run(gv_fit_task *tasks, size_t n, int n_threads, uint64_t seed,
                              uint64_t component, const char *const *names, size_t per_name);

/* The members as a JSON array of components; NULL when out of memory. */
json_t *gv_members_json(const gv_component *m, size_t n);
/* Reads "learners" (names of known learners) and "members" (as many components) of obj. */
grove_status gv_members_read(const json_t *obj, const gv_model_ctx *ctx, char ***names,
                             gv_component **members, size_t *n);

#endif /* GV_MEMBERS_H */
