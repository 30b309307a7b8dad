/*
 * model.h -- the model container: schema, bin mappers, training parameters and a root component.
 *
 * Pipeline position: model/ (after ensemble/, before api/).
 * A grove_model is immutable once built: prediction only reads it, so many threads may use it.
 * Saving and loading (model_io.c) walk the component tree; the file format is documented in
 * docs/model-format.md.
 */
#ifndef GV_MODEL_H
#define GV_MODEL_H

#include "../learn/learner.h"

struct grove_model {
    grove_schema *schema;       /* owned */
    gv_bin_mapper *mappers;     /* [schema->n_features], owned */
    char *algo;                 /* owned, e.g. "tree" */
    grove_params *params;       /* the training parameters, owned */
    size_t n_outputs;           /* n_classes for classification, 1 for regression */
    gv_component root;          /* owned */
    size_t n_train_rows;        /* rows it was trained on */
    /* NULL, except in the writer's copy (model_io.c): [n_features], where the tree check marks
     * each feature a numeric split reads, so that only those bin mappers are written */
    unsigned char *mark_used;
};

/* Frees everything the model owns (NULL accepted). */
void gv_model_free(grove_model *m);

/* GROVE_OK when `d` has the model's features (count, kinds, category counts); else
 * GROVE_ERR_DATA naming the first mismatch (api/predict.c). */
grove_status gv_check_compatible(const grove_model *m, const grove_dataset *d);

/* Writes the model as JSON text to a new buffer (exact round trip of every number). */
grove_status gv_model_to_text(const grove_model *m, gv_buf *out);
/* Parses and validates model text; `source` names the file in messages. */
grove_status gv_model_from_text(const char *text, size_t len, const char *source,
                                grove_model **out);

/* The model as one standalone C99 source file (export.c; the generated file's header comment
 * documents its entry points), appended to the empty buffer `text` (cleared on failure).
 * `prefix` (a C identifier, checked by the caller) names the entry points; `form` chooses how
 * trees are written: one function per tree, one static node table, or by size (auto).
 * GROVE_ERR_ARG naming the component kind that cannot be exported (mlp, stacking). */
enum { GV_EXPORT_AUTO = 0, GV_EXPORT_CODE = 1, GV_EXPORT_TABLE = 2 };
grove_status gv_model_export_c(const grove_model *m, const char *prefix, int form, gv_buf *text);

/* JSON helpers shared by the components' to_json/from_json (model_io.c).  The getters record a
 * GROVE_ERR_MODEL message naming `field` when it is absent or has the wrong type/range. */
grove_status gv_json_get_int(const json_t *obj, const char *field, int64_t lo, int64_t hi,
                             int64_t *out);
grove_status gv_json_get_double(const json_t *obj, const char *field, double *out);
grove_status gv_json_get_string(const json_t *obj, const char *field, const char **out);
/* A new JSON array of the n doubles (written with 17 digits: exact); NULL when out of memory. */
json_t *gv_json_real_array(const double *v, size_t n);
/* The numbers of array `a` into x[0..n) (a was checked first, e.g. by gv_json_get_array). */
void gv_json_array_values(const json_t *a, double *x, size_t n);
/* The array field `field` of exactly n finite numbers into out[n]. */
grove_status gv_json_get_reals(const json_t *obj, const char *field, size_t n, double *out);
/* An array field of exactly n numbers (n = (size_t)-1: any length, returned in *n_out). */
grove_status gv_json_get_array(const json_t *obj, const char *field, size_t n, const json_t **out);

/* The minor format version of the file being read on this thread, for components whose fields
 * changed form between minor versions (tree fields are packed arrays from 1.1 on).  Set by the
 * model reader while it reads the root component (a newer minor reads as the newest known one);
 * the newest version otherwise, e.g. when a component's from_json is called on its own to_json. */
int gv_model_reading_minor(void);

/* ---- packed arrays (format 1.1; docs/model-format.md, "Packed arrays") ----
 * A packed array is one JSON string holding numbers separated by single spaces ("2 -1 0",
 * "0.5 1e-300 150"): integers in decimal, reals as %.17g (so they read back exactly), each
 * entry a JSON number; a word field (a tree's "type") holds names instead.  Written with the
 * gv_packed_add_* functions into a gv_buf, then turned into a JSON string. */

/* Appends one entry to the text of a packed array (a space first unless b is empty); 0 ok, -1
 * out of memory.  A real must be finite (a packed array cannot hold NaN or infinities: -1). */
int gv_packed_add_int(gv_buf *b, int64_t v);
int gv_packed_add_real(gv_buf *b, double v);
/* A word: letters, digits and '_' only (callers pass their own names). */
int gv_packed_add_word(gv_buf *b, const char *word);
/* A new JSON string holding b's text (b is not changed); NULL when out of memory. */
json_t *gv_packed_json(const gv_buf *b);
/* The n doubles (finite) as a new packed-array string; NULL when out of memory. */
json_t *gv_json_packed_reals(const double *v, size_t n);

/* A packed array being read, entry by entry; also reads the 1.0 form of the same field (a JSON
 * array), so a component has one reader for both.  Borrows the JSON value it reads. */
typedef struct gv_packed {
    const char *field;   /* the field's name, for messages: "left[3]: ..." */
    const json_t *array; /* the 1.0 form, or NULL */
    const char *p, *end; /* the packed form: the text not read yet */
    size_t n, next;      /* the number of entries, and the index of the next one */
} gv_packed;

/* Opens field `field` of `obj`: a packed string when `packed` (else a JSON array) of exactly n
 * entries (n = (size_t)-1: any number; r->n says how many).  The separators are checked here
 * (single spaces, nothing before the first entry or after the last: "field[k]: empty entry"),
 * so the entries can be counted before any is read.  GROVE_ERR_MODEL naming the field. */
grove_status gv_packed_open(const json_t *obj, const char *field, size_t n, int packed,
                            gv_packed *r);
/* The next entry (r->next < r->n: callers read at most r->n entries) as an integer in [lo, hi],
 * a double, a float (a number that is exactly a 32-bit float, not rounded to one), or the index
 * of one of words[0..n_words).  Errors name the entry (`feature[3]: expected an integer, got
 * "1.5"`); after one, r is not read further. */
grove_status gv_packed_int(gv_packed *r, int64_t lo, int64_t hi, int64_t *out);
grove_status gv_packed_real(gv_packed *r, double *out);
grove_status gv_packed_float(gv_packed *r, float *out);
grove_status gv_packed_word(gv_packed *r, const char *const *words, int n_words, int *out);
/* Field `field` of exactly n reals, packed (or a JSON array when !packed), into out[0..n). */
grove_status gv_json_get_packed_reals(const json_t *obj, const char *field, size_t n, int packed,
                                      double *out);

#endif /* GV_MODEL_H */
