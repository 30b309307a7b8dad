/*
 * ranking.c -- grove_model_rank_metric: NDCG@k and MAP@k of a model's scores on data with
 * query groups, per query and their mean (what `grove eval` reports for ranking data).
 *
 * Pipeline position: eval/ (after model/); the per-query formulas are loss/rank.c's, the ones
 * gbdt logs (metrics ndcg, map), so the two agree.
 */
#include "../data/dataset.h"
#include "../loss/loss.h"

#include <string.h>

grove_status grove_model_rank_metric(const grove_model *model, const grove_dataset *data,
                                     const char *metric, size_t k, int n_threads,
                                     double *per_query, double *mean)
{
    if (!model || !data || !metric || !mean)
        return gv_err(GROVE_ERR_ARG, "grove_model_rank_metric: NULL argument");
    const int met = !strcmp(metric, "ndcg") ? GV_MET_NDCG : !strcmp(metric, "map") ? GV_MET_MAP : -1;
    if (met < 0)
        return gv_err(GROVE_ERR_ARG, "grove_model_rank_metric: metric must be ndcg or map, got "
                      "'%s'", metric);
    if (k == 0) return gv_err(GROVE_ERR_ARG, "grove_model_rank_metric: k must be >= 1");
    if (!data->n_queries)
        return gv_err(GROVE_ERR_DATA, "%s: no query groups (LIBSVM qid:n, or parameter group)",
                      data->source ? data->source : "the data");
    if (!data->labels)
        return gv_err(GROVE_ERR_DATA, "%s: no labels", data->source ? data->source : "the data");
    const size_t n = data->n_rows, G = grove_model_n_outputs(model);
    if (G != 1)
        return gv_err(GROVE_ERR_ARG, "grove_model_rank_metric: the model has %zu outputs a row; "
                      "ranking needs one score", G);
    double *s = gv_malloc_array(n ? n : 1, sizeof *s);
    if (!s) return gv_err_nomem("the scores");
    grove_status st = grove_model_predict(model, data, n_threads, s, n);
    if (st == GROVE_OK) {
        double sum = 0;
        for (size_t q = 0; q < data->n_queries; q++) {
            const size_t lo = data->query_ptr[q], m = data->query_ptr[q + 1] - lo;
            const double v = gv_rank_query_metric(met, s + lo, data->labels + lo, m, k);
            if (v != v) {
                st = gv_err_nomem("a ranking metric");
                break;
            }
            if (per_query) per_query[q] = v;
            sum += v;
        }
        *mean = sum / (double)data->n_queries;
    }
    gv_free(s);
    return st;
}
