/*
 * cgen.h -- the state and text helpers of the C code generator (`grove export --lang c`).
 *
 * Pipeline position: core/ (every component kind, in learn/ and ensemble/, writes its own C code
 * through its gv_component_vt.export_c slot into a gv_cgen; model/export.c writes the fixed
 * parts of the file around it).
 *
 * A component becomes `static void cN(const float *x, double *out)` in `body`, numbered in the
 * order the functions are opened (gv_cgen_open_function), members before the ensembles that call
 * them.  In the table form (`table` = 1) trees append their nodes, leaf values and category words
 * to the `nodes`, `values` and `cats` buffers, which the exporter writes as the static tables N,
 * V and C ahead of the body.  Exactness: every constant is written so that it reads back to the
 * same float (%.9g, gv_cgen_flit) or double (%.17g, gv_cgen_dlit).  Writing never fails: running
 * out of memory sets `nomem`, which the exporter turns into GROVE_ERR_NOMEM at the end.
 */
#ifndef GV_CGEN_H
#define GV_CGEN_H

#include "core.h"

typedef struct gv_cgen {
    const grove_schema *schema; /* names the features of the component being written (a stacking
                                   meta-learner reads the meta row); borrowed */
    size_t n_outputs;           /* the model's outputs per row */
    int table;                  /* 1: trees in one node table */
    gv_buf body;                /* tree functions, member tables and component functions */
    gv_buf nodes;               /* table form: the node table's entries */
    gv_buf values;              /* table form: the leaf value table's entries */
    gv_buf cats;                /* table form: category bitsets and child maps */
    size_t n_nodes, n_values, n_cats; /* entries so far in each table */
    size_t n_trees, n_comps;          /* trees and components emitted so far */
    int has_cat;                /* some tree has a categorical split */
    int has_block;              /* a gbdt in table form wrote cBLOCK_block, a blocked batch
                                   predictor */
    size_t block_id;
    const char *refused;        /* the kind of the first component without an exporter (static) */
    int nomem;
} gv_cgen;

/* Frees the four buffers (the rest is the caller's). */
void gv_cgen_free(gv_cgen *g);

/* printf into b; out of memory sets g->nomem. */
void gv_cgen_out(gv_buf *b, gv_cgen *g, const char *fmt, ...) GV_PRINTF(3, 4);

/* Appends buffer `from` (possibly empty: data NULL) to `to`. */
void gv_cgen_append(gv_buf *to, const gv_buf *from, gv_cgen *g);

/* Literal buffers hold GV_CGEN_LIT bytes. */
#define GV_CGEN_LIT 48
/* A double literal that reads back to exactly x (x finite): %.17g with a '.' or exponent. */
void gv_cgen_dlit(double x, char *buf);
/* A float literal that reads back to exactly x (x finite): %.9g, then 'f'. */
void gv_cgen_flit(float x, char *buf);
/* A name for a comment (buf holds 61 bytes): no "*" followed by "/", no control character, at
 * most 60 bytes (a longer name ends in '.'). */
void gv_cgen_name(const char *s, char *buf);
/* A list of n doubles as initializer entries, 4 per line ("0.0" when n is 0). */
void gv_cgen_dlist(gv_buf *b, gv_cgen *g, const double *v, size_t n);

/* Opens "static void cID(const float *x, double *out)" in the body, after the comment
 * `what`, and returns ID; the caller writes the function's body and closing brace.  The next ID
 * is g->n_comps (for a component's tables written before its function). */
size_t gv_cgen_open_function(gv_cgen *g, const char *what);

#endif /* GV_CGEN_H */
