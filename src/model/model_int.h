/*
 * model_int.h -- what the files of model/ share: the format's constants and the functions each
 * file offers the others (not used outside model/).
 *
 *   model.c        the container (accessors, free, compatibility with a dataset)
 *   model_check.c  semantic checks, shared by the writer and the reader
 *   model_json.c   the model as a JSON document: write and read (the format: docs/model-format.md)
 *   model_file.c   files: atomic save, gzip, load
 *   model_info.c   the description for `grove info`
 *   export.c       the model as C source
 *   dump.c         every tree as text, JSON or CSV (grove_model_dump)
 */
#ifndef GV_MODEL_INT_H
#define GV_MODEL_INT_H

#include "model.h"

#include <stdio.h>

#define GV_MODEL_FORMAT_NAME "grove-model"
#define GV_MODEL_FORMAT_MAJOR 1
/* The newest minor version read and written; a model without compact features (schema
 * feature_ids, 1.3) is written as 1.2. */
#define GV_MODEL_FORMAT_MINOR 3
/* The text written to files: indented one space, keys in the writer's order, exact reals. */
#define GV_MODEL_DUMP_FILE (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
/* Duplicate keys would let two readers see different models in one file. */
#define GV_MODEL_LOAD_FLAGS JSON_REJECT_DUPLICATES
/* A bin index is stored in 16 bits: at most 65535 value bins plus the missing bin. */
#define GV_MODEL_MAX_BINS 65536

/* ---- model_check.c ---- */
/* Every name (label, classes, features, categories) is UTF-8 (GROVE_ERR_DATA naming it). */
grove_status gv_model_check_strings(const grove_model *m);
/* The schema, the bin mappers and the head fields (n_outputs, algo, params) agree. */
grove_status gv_model_check_head(const grove_model *m);
/* The root component: registered, valid (validate_root: run its validate too) and agreeing with
 * the model (its check); the writer passes mark_used ([n_features], zeroed) to learn which bin
 * mappers numeric splits read, the reader NULL. */
grove_status gv_model_check_root(const grove_model *m, int validate_root,
                                 unsigned char *mark_used);
/* The same, also marking in mark_read ([n_features], zeroed) every feature a split reads,
 * setting *reads_all when a component reads every feature, and marking in mark_cuts (a zeroed
 * bitmap, with cut_offset) the cut point of every numeric split (learner.h); each may be NULL. */
grove_status gv_model_check_root_marks(const grove_model *m, int validate_root,
                                       unsigned char *mark_used, unsigned char *mark_read,
                                       int *reads_all, uint64_t *mark_cuts,
                                       const size_t *cut_offset);
/* What the components may know of the model around them (learner.h). */
gv_model_ctx gv_model_ctx_of(const grove_model *m, int minor, unsigned char *mark_used);

/* ---- model_json.c ---- */
/* Writes the checked model's file text (the document with "crc32", GV_MODEL_DUMP_FILE, and a
 * final newline) through sink, member by member: each member's JSON is built when its turn
 * comes and freed once written, so the whole document is never held.  GROVE_ERR_INTERNAL when
 * the model is invalid (our trainer built it: a bug); GROVE_ERR_IO with *sink_failed set when
 * the sink refused a write (the caller knows why; no message is recorded). */
grove_status gv_model_write_text(const grove_model *m, json_dump_callback_t sink, void *data,
                                 int *sink_failed);
/* The binary file of the model (model_bin.c's encoding of the same document, without
 * "crc32"), written to f member by member in the same way. */
grove_status gv_model_write_bin(const grove_model *m, FILE *f, const char *path);
/* The model of a parsed document (doc: what jansson returned for `len` bytes of text, NULL on a
 * parse error described by jerr; taken over); `source` names the file in messages. */
grove_status gv_model_from_parsed(json_t *doc, const json_error_t *jerr, size_t len,
                                  const char *source, grove_model **out);
/* The model of a binary file's document (model_bin.c: the same document without "crc32", its
 * packed arrays in their binary form, core/json.h; borrowed; "source" names the file in
 * messages), every field checked as in a text file. */
grove_status gv_model_from_bin_doc(json_t *doc, const char *source, grove_model **out);
/* model_bin.c: whether a path names a binary model file (ends in ".gvb"); writing a document
 * to an open stream (in binary mode, core/json.h; each member placeholder, learner.h, is built,
 * written and freed in turn); and the model of a binary file's bytes (all of them, read into
 * memory: b[0..size), borrowed), whose first bytes were seen to be its magic. */
int gv_model_bin_path(const char *path);
grove_status gv_model_bin_write(const json_t *doc, FILE *f, const char *path);
grove_status gv_model_bin_load_bytes(const unsigned char *b, size_t size, const char *path,
                                     grove_model **out);

/* The stored parameters as a JSON object of texts (every parameter but threads, then the
 * base learner's "base.KEY" the user set); NULL when out of memory. */
json_t *gv_model_params_json(const grove_params *p);

#endif /* GV_MODEL_INT_H */
