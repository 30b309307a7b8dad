/*
 * model_check.c -- the semantic checks of a model, run by the writer before it writes and by the
 * reader after it reads: strings are UTF-8, the schema and the bin mappers are consistent, the
 * head fields agree, and the root component is registered, valid and agrees with the model
 * (through the gv_model_ctx handed to the components' check functions, learner.h).
 *
 * Pipeline position: model/.  So a model this library writes always loads again, and a model
 * that loads can be walked with any input without reading out of bounds.
 */
#include "model_int.h"

#include "../core/params.h"

#include <math.h>
#include <string.h>

/* RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.  JSON text is
 * UTF-8; jansson refuses anything else, so strings are checked before writing. */
static int utf8_valid(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned c = *s;
        size_t len;
        unsigned min, cp;
        if (c < 0x80) {
            s++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2, min = 0x80, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, min = 0x800, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, min = 0x10000, cp = c & 0x07;
        } else {
            return 0;
        }
        for (size_t i = 1; i < len; i++) {
            if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the NUL */
            cp = (cp << 6) | (s[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        s += len;
    }
    return 1;
}

static grove_status check_utf8(const char *s, const char *what, size_t index)
{
    if (utf8_valid(s)) return GROVE_OK;
    return gv_err(GROVE_ERR_DATA, "%s %zu is not valid UTF-8 text; model files hold UTF-8", what,
                  index);
}

/* Every string the writer would put in the file is UTF-8 (GROVE_ERR_DATA naming it if not). */
grove_status gv_model_check_strings(const grove_model *m)
{
    const grove_schema *s = m->schema;
    grove_status st;
    if ((st = check_utf8(s->label_name, "the label name", 0)) != GROVE_OK) return st;
    for (size_t c = 0; c < s->classes.n; c++)
        if ((st = check_utf8(s->classes.names[c], "class", c)) != GROVE_OK) return st;
    for (size_t f = 0; f < s->n_features; f++) {
        if ((st = check_utf8(s->feature_names[f], "the name of feature", f)) != GROVE_OK)
            return st;
        for (size_t c = 0; c < s->categories[f].n; c++)
            if (!utf8_valid(s->categories[f].names[c]))
                return gv_err(GROVE_ERR_DATA,
                              "category %zu of feature '%s' is not valid UTF-8 text; model files "
                              "hold UTF-8",
                              c, s->feature_names[f]);
    }
    for (int i = 0; i < GV_P_COUNT; i++)
        if (!utf8_valid(gv_param_str(m->params, (gv_param_id)i)))
            return gv_err(GROVE_ERR_DATA, "parameter %s is not valid UTF-8 text; model files "
                          "hold UTF-8", gv_param_name((gv_param_id)i));
    return GROVE_OK;
}

static grove_status check_schema(const grove_schema *s)
{
    if (s->n_features < 1) return gv_err(GROVE_ERR_MODEL, "schema: the model has no features");
    if (s->task != GROVE_CLASSIFICATION && s->task != GROVE_REGRESSION)
        return gv_err(GROVE_ERR_MODEL, "schema: unknown task %d", (int)s->task);
    if (s->feature_ids) {
        if (s->n_columns > GV_MAX_COLUMNS)
            return gv_err(GROVE_ERR_MODEL, "schema: n_columns %zu above %zu", s->n_columns,
                          GV_MAX_COLUMNS);
        for (size_t f = 0; f < s->n_features; f++)
            if (s->feature_ids[f] >= s->n_columns || (f && s->feature_ids[f] <= s->feature_ids[f - 1]))
                return gv_err(GROVE_ERR_MODEL, "schema: feature_ids[%zu]: expected increasing "
                              "columns below n_columns = %zu", f, s->n_columns);
    }
    if (s->task == GROVE_CLASSIFICATION && s->classes.n < 2)
        return gv_err(GROVE_ERR_MODEL,
                      "schema: classes: a classification model needs at least 2 classes, got %zu",
                      s->classes.n);
    if (s->task == GROVE_REGRESSION && s->classes.n != 0)
        return gv_err(GROVE_ERR_MODEL, "schema: classes: a regression model has no classes, "
                      "got %zu", s->classes.n);
    gv_dict names;
    gv_dict_init(&names);
    grove_status st = GROVE_OK;
    for (size_t f = 0; f < s->n_features && st == GROVE_OK; f++) {
        const char *name = s->feature_names[f];
        long code = gv_dict_add(&names, name, strlen(name));
        if (code < 0)
            st = gv_err_nomem("the feature names");
        else if ((size_t)code != f)
            st = gv_err(GROVE_ERR_MODEL, "schema: features[%zu]: the name '%s' is also feature %ld",
                        f, name, code);
        else if (!s->is_categorical[f] && s->categories[f].n != 0)
            st = gv_err(GROVE_ERR_MODEL, "schema: features[%zu]: numeric feature '%s' has "
                        "categories", f, name);
        else if (s->categories[f].n > GV_MODEL_MAX_BINS - 1)
            st = gv_err(GROVE_ERR_MODEL, "schema: features[%zu]: '%s' has %zu categories, more "
                        "than %d", f, name, s->categories[f].n, GV_MODEL_MAX_BINS - 1);
    }
    gv_dict_free(&names);
    return st;
}

/* Bin mappers agree with the schema, and cut points are finite and strictly increasing. */
static grove_status check_bins(const grove_schema *s, const gv_bin_mapper *mappers)
{
    if (!mappers) return gv_err(GROVE_ERR_MODEL, "bins: missing");
    for (size_t f = 0; f < s->n_features; f++) {
        const gv_bin_mapper *b = &mappers[f];
        const char *name = s->feature_names[f];
        if (b->is_categorical != s->is_categorical[f])
            return gv_err(GROVE_ERR_MODEL, "bins[%zu]: a %s mapper for %s feature '%s'", f,
                          b->is_categorical ? "categorical" : "numeric",
                          s->is_categorical[f] ? "categorical" : "numeric", name);
        if (b->n_bins == 0 && !b->is_categorical && b->n_cuts == 0)
            continue; /* not stored (format 1.2): the tree check refuses a split on it */
        if (b->n_bins < 1 || b->n_bins > GV_MODEL_MAX_BINS)
            return gv_err(GROVE_ERR_MODEL, "bins[%zu]: n_bins must be in [1, %d], got %lu", f,
                          GV_MODEL_MAX_BINS, (unsigned long)b->n_bins);
        if (b->is_categorical) {
            /* bin 0 = missing, bin c + 1 = category c */
            if (b->n_bins != s->categories[f].n + 1 || b->n_cuts != 0)
                return gv_err(GROVE_ERR_MODEL, "bins[%zu]: categorical feature '%s' has %zu "
                              "categories, so %zu bins, got %lu", f, name, s->categories[f].n,
                              s->categories[f].n + 1, (unsigned long)b->n_bins);
            continue;
        }
        /* missing + (n_cuts + 1) value bins; no cut: 1 (all missing) or 2 (constant) bins */
        uint32_t want = b->n_bins >= 2 ? b->n_bins - 2 : 0;
        if (b->n_cuts != want)
            return gv_err(GROVE_ERR_MODEL, "bins[%zu]: %lu bins need %lu cut points, got %lu", f,
                          (unsigned long)b->n_bins, (unsigned long)want,
                          (unsigned long)b->n_cuts);
        for (uint32_t c = 0; c < b->n_cuts; c++) {
            if (!isfinite(b->cuts[c]))
                return gv_err(GROVE_ERR_MODEL, "bins[%zu]: cuts[%lu] is not finite", f,
                              (unsigned long)c);
            if (c > 0 && !(b->cuts[c - 1] < b->cuts[c]))
                return gv_err(GROVE_ERR_MODEL,
                              "bins[%zu]: cuts[%lu] = %.9g is not above cuts[%lu] = %.9g", f,
                              (unsigned long)c, (double)b->cuts[c], (unsigned long)c - 1,
                              (double)b->cuts[c - 1]);
        }
    }
    return GROVE_OK;
}

/* Everything about a model that is not JSON syntax, in two parts: what the components rely
 * on (schema, bins, outputs, parameters), and the root component against all that.  The reader
 * runs the first before it reads the component and the second after (validate_root = 0: the
 * component's from_json validated itself); the writer runs both before writing
 * (validate_root = 1), so it never writes a file that the reader would refuse. */
grove_status gv_model_check_head(const grove_model *m)
{
    grove_status st;
    if (!m->schema) return gv_err(GROVE_ERR_MODEL, "schema: missing");
    if ((st = check_schema(m->schema)) != GROVE_OK) return st;
    if ((st = check_bins(m->schema, m->mappers)) != GROVE_OK) return st;
    size_t want = m->schema->task == GROVE_CLASSIFICATION ? m->schema->classes.n : 1;
    if (m->n_outputs != want)
        return gv_err(GROVE_ERR_MODEL, "n_outputs: must be %zu (%s), got %zu", want,
                      m->schema->task == GROVE_CLASSIFICATION ? "the number of classes"
                                                              : "regression",
                      m->n_outputs);
    if ((uint64_t)m->n_train_rows > (uint64_t)INT64_MAX)
        return gv_err(GROVE_ERR_MODEL, "n_train_rows: %zu is too large", m->n_train_rows);
    if (!m->params) return gv_err(GROVE_ERR_MODEL, "params: missing");
    if (!m->algo || strcmp(m->algo, gv_param_str(m->params, GV_P_ALGO)) != 0)
        return gv_err(GROVE_ERR_MODEL, "algo: '%s' differs from the parameter algo '%s'",
                      m->algo ? m->algo : "(none)", gv_param_str(m->params, GV_P_ALGO));
    return GROVE_OK;
}

/* What the components may know of the model around them (learner.h). */
gv_model_ctx gv_model_ctx_of(const grove_model *m, int minor, unsigned char *mark_used)
{
    gv_model_ctx ctx = {m->schema, m->mappers, m->algo, m->root.impl, minor, mark_used,
                        NULL, NULL, NULL, NULL};
    return ctx;
}

/* The root component's own checks and its agreement with the model; the writer passes
 * mark_used ([n_features], zeroed) to learn which bin mappers numeric splits read. */
grove_status gv_model_check_root(const grove_model *m, int validate_root,
                                     unsigned char *mark_used)
{
    return gv_model_check_root_marks(m, validate_root, mark_used, NULL, NULL, NULL, NULL);
}

grove_status gv_model_check_root_marks(const grove_model *m, int validate_root,
                                       unsigned char *mark_used, unsigned char *mark_read,
                                       int *reads_all, uint64_t *mark_cuts,
                                       const size_t *cut_offset)
{
    const gv_component *root = &m->root;
    if (!root->vt || !root->impl) return gv_err(GROVE_ERR_MODEL, "model: missing");
    if (gv_component_kind(root->vt->kind) != root->vt)
        return gv_err(GROVE_ERR_MODEL, "model: component kind '%s' is not registered",
                      root->vt->kind);
    /* from_json validated the component itself on reading; the writer validates it here */
    grove_status st;
    if (validate_root && root->vt->validate && (st = root->vt->validate(root->impl, m->schema)) != GROVE_OK) {
        gv_err_prefix("model");
        return st;
    }
    gv_model_ctx ctx = gv_model_ctx_of(m, GV_MODEL_FORMAT_MINOR, mark_used);
    ctx.mark_read = mark_read;
    ctx.reads_all = reads_all;
    ctx.mark_cuts = mark_cuts;
    ctx.cut_offset = cut_offset;
    return gv_component_check(root, &ctx, m->n_outputs);
}
