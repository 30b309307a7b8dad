/*
 * model.h -- the model container: schema, bin mappers, training parameters and a root component.
 *
 * Pipeline position: model/ (after ensemble/, before api/).
 * A grove_model is immutable once built: prediction only reads it, so many threads may use it.
 * Saving and loading (model_json.c: the document, model_file.c: files; model_int.h lists the
 * files of model/) walk the component tree; the file format is documented in
 * docs/model-format.md.
 */
#ifndef GV_MODEL_H
#define GV_MODEL_H

#include "../learn/learner.h"
#include "../core/json.h"
#include "../ensemble/registry.h"

struct grove_model {
    grove_schema *schema;       /* owned */
    gv_bin_mapper *mappers;     /* [schema->n_features], owned */
    char *algo;                 /* owned, e.g. "tree" */
    grove_params *params;       /* the training parameters, owned */
    size_t n_outputs;           /* n_classes for classification, 1 for regression */
    gv_component root;          /* owned */
    size_t n_train_rows;        /* rows it was trained on */
};

/* Frees everything the model owns (NULL accepted). */
void gv_model_free(grove_model *m);

/* GROVE_OK when `d` has the model's features (count, kinds, category counts); else
 * GROVE_ERR_DATA naming the first mismatch (api/predict.c). */
grove_status gv_check_compatible(const grove_model *m, const grove_dataset *d);

/* A schema as the model file's "schema" object (new reference; NULL: no memory), and back
 * (GROVE_ERR_FORMAT naming what is wrong).  Also how data-parallel ranks agree on one. */
json_t *gv_schema_to_json(const grove_schema *s);
grove_status gv_schema_from_json(const json_t *obj, grove_schema **out);

/* Writes the model as JSON text to a new buffer (exact round trip of every number). */
grove_status gv_model_to_text(const grove_model *m, gv_buf *out);
/* The checksum of a model document (without "crc32") as 8 lowercase hex digits: the CRC-32 of
 * its canonical text, json_dumps(JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)),
 * computed without building that text.  GROVE_ERR_NOMEM. */
grove_status gv_model_doc_checksum(const json_t *doc, char hex[9]);
/* zlib's crc32(crc, data, size) for any size, by ISA-L's carry-less multiplication where the CPU
 * has it (the model file checksums: a forest's text is hundreds of megabytes). */
unsigned long gv_crc32(unsigned long crc, const void *data, size_t size);
/* Parses and validates model text; `source` names the file in messages. */
grove_status gv_model_from_text(const char *text, size_t len, const char *source,
                                grove_model **out);

/* The model as one standalone C99 source file (export.c; the generated file's header comment
 * documents its entry points), appended to the empty buffer `text` (cleared on failure).
 * `prefix` (a C identifier, checked by the caller) names the entry points; `form` chooses how
 * trees are written: one function per tree, one static node table, or by size (auto).
 * GROVE_ERR_ARG naming the component kind that cannot be exported (mlp: no export_c slot).  With
 * `header`, the file's header instead: the same comment, the sizes and the four prototypes. */
enum { GV_EXPORT_AUTO = 0, GV_EXPORT_CODE = 1, GV_EXPORT_TABLE = 2 };
grove_status gv_model_export_c(const grove_model *m, const char *prefix, int form, int header,
                               gv_buf *text);

/* Contributions (shap.c): the model's score as a sum over trees, prepared for TreeSHAP.
 * gv_shap_build: GROVE_ERR_ARG naming the kinds that have contributions when the model is not
 * one of them; the model is borrowed and must outlive the result (free with gv_shap_free).
 * gv_shap_groups: the score groups G.  gv_shap_rows: every row of d (the model's features)
 * into out: G (F + 1) contributions a row (bias last), or with `interactions` G (F + 1)^2
 * interaction values; GROVE_ERR_NOMEM.  gv_shap_margin: the scores s_g into out[n_rows G]. */
typedef struct gv_shap gv_shap;
grove_status gv_shap_build(const grove_model *m, gv_shap **out);
void gv_shap_free(gv_shap *s);
size_t gv_shap_groups(const gv_shap *s);
grove_status gv_shap_rows(const gv_shap *s, const grove_dataset *d, int interactions,
                          int n_threads, double *out);
void gv_shap_margin(const gv_shap *s, const grove_dataset *d, int n_threads, double *out);

#endif /* GV_MODEL_H */
