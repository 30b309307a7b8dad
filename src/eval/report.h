/*
 * report.h -- the HTML report of a model (report.c) and its charts (plot.h).
 *
 * Pipeline position: eval/.
 */
#ifndef GV_REPORT_H
#define GV_REPORT_H

#include "../model/model.h"

/* Appends the report of model m to `out` (an empty buffer; see report.c for the sections):
 * `data` (labelled, the model's schema; may be NULL) adds the evaluation, the error curves on
 * it, the margin distribution and permutation importances; `valid` (may be NULL) adds curves
 * on it; `biasvar_json` (may be NULL) is the text of `grove biasvar --json`, drawn as a stacked
 * bar (GROVE_ERR_PARSE when it is not such a result).  Both datasets are borrowed and must be
 * compatible with the model (the caller checks). */
grove_status gv_report_html(const grove_model *m, const grove_dataset *data,
                            const grove_dataset *valid, const char *biasvar_json, int n_threads,
                            gv_buf *out);

#endif /* GV_REPORT_H */
