/*
 * constraints.h -- gbdt's monotone and interaction constraints parsed from their parameters
 * (constraints.c): the arrays gv_tree_config.monotone and .igroups.
 *
 * Pipeline position: ensemble/ (internal to it).
 */
#ifndef GV_CONSTRAINTS_H
#define GV_CONSTRAINTS_H

#include "../core/core.h"

#include <stdint.h>

/* monotone_constraints: "1,-1,0" or "(1,-1,0)" (one direction per feature, their number the
 * schema's feature count) or "name:1,3:-1" (the others 0).  *out: a new [n_features] array,
 * or NULL for "" or all zeros.  `param` names the parameter in messages. */
grove_status gv_monotone_parse(const char *param, const char *text, const grove_schema *schema,
                               int8_t **out);
/* interaction_constraints: "[[0,1],[age,2,3]]" (at most 64 groups).  *out: a new
 * [n_features] array, bit g of feature f's entry set when f is in group g; NULL for "" or
 * "[]". */
grove_status gv_interactions_parse(const char *param, const char *text, const grove_schema *schema,
                                   uint64_t **out);

#endif /* GV_CONSTRAINTS_H */
