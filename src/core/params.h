/*
 * params.h -- internal access to a grove_params: typed getters by parameter id.
 *
 * The ids GV_P_<NAME> come from the table in params_def.h.  Values are always valid (the
 * setter validated them); enum values are their index in the table's allowed list.
 */
#ifndef GV_PARAMS_H
#define GV_PARAMS_H

#include "core.h"
#include "params_def.h"

typedef enum gv_param_id {
#define GV_PARAM_ID_(id, name, kind, def, lo, hi, allowed, help, applies) GV_P_##id,
    GV_PARAM_TABLE(GV_PARAM_ID_)
#undef GV_PARAM_ID_
        GV_P_COUNT
} gv_param_id;

/* Enum indices, in the order of the table's allowed lists. */
enum { GV_ALGO_TREE = 0, GV_ALGO_ID3 = 1, GV_ALGO_STUMP = 2 };
enum { GV_TASK_AUTO = 0, GV_TASK_CLASSIFICATION = 1, GV_TASK_REGRESSION = 2 };
enum { GV_CRIT_AUTO = 0, GV_CRIT_GINI = 1, GV_CRIT_ENTROPY = 2, GV_CRIT_VARIANCE = 3, GV_CRIT_PSEUDO = 4 };
enum { GV_GROWTH_DEPTHWISE = 0, GV_GROWTH_BESTFIRST = 1 };
enum { GV_CATSPLIT_AUTO = 0, GV_CATSPLIT_PARTITION = 1, GV_CATSPLIT_MULTIWAY = 2 };
enum { GV_ABSENT_ZERO = 0, GV_ABSENT_MISSING = 1 };
enum { GV_FORMAT_AUTO = 0, GV_FORMAT_CSV = 1, GV_FORMAT_LIBSVM = 2 };

/* Getters; `p` may be NULL (then the default is returned). */
int64_t gv_param_int(const grove_params *p, gv_param_id id);   /* INT, ENUM (index), BOOL */
/* Parameter task for the loaders: its value, except that auto is regression when parameter
 * objective is a ranking one (lambdarank, rank:pairwise: relevance grades are targets, however
 * few their values). */
int gv_param_task(const grove_params *p);
/* The K of metrics ndcg and map: K of eval_metric=ndcg@K (map@K), else parameter eval_at. */
size_t gv_param_eval_at(const grove_params *p);
double gv_param_double(const grove_params *p, gv_param_id id); /* FLOAT (or INT as double) */
const char *gv_param_str(const grove_params *p, gv_param_id id); /* any kind, as text; borrowed */
int gv_param_is_set(const grove_params *p, gv_param_id id);      /* set explicitly by the user */
const char *gv_param_name(gv_param_id id);

/* Resolves max_features for n_features: the number of candidate features per node (>= 1). */
size_t gv_param_max_features(const grove_params *p, size_t n_features);

/* The parameters of an ensemble's base learner ("base.KEY"), or NULL (all defaults). */
const grove_params *gv_params_base(const grove_params *p);
/* Calls fn(ctx, "base.KEY", value) for every base parameter the user set, recursively
 * ("base.base.KEY"), with `prefix` prepended; stops at and returns fn's first non-zero. */
int gv_params_foreach_base(const grove_params *p, const char *prefix,
                           int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* The progress hook; returns non-zero when the caller asked to cancel. */
int gv_progress(const grove_params *p, const char *stage, size_t done, size_t total);
/* The round callback (grove_params_set_round_callback), if any: non-zero = cancel. */
int gv_progress_round(const grove_params *p, size_t round, size_t total, const char *metric,
                      double train, double valid);
/* The note callback (grove_params_set_note_callback), if any. */
void gv_note(const grove_params *p, const char *topic, const char *text);

#endif /* GV_PARAMS_H */
