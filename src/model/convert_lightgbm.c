/*
 * convert_lightgbm.c -- LightGBM's text model (Booster.save_model, the CLI's output_model) as
 * source trees for convert.c's emitter: the header's objective, feature names and classes, and
 * per tree split_feature, threshold, decision_type (bit 0 categorical, bit 1 default left, bits
 * 2-3 the missing type: none, zero, NaN), left/right_child (negative: ~leaf), leaf_value and the
 * categorical bitsets (cat_boundaries, cat_threshold).  Errors name the file's line.
 *
 * Pipeline position: model/, private to grove_model_convert (convert_int.h).
 */
#include "convert_int.h"

#include "../core/numparse.h"
#include "../loss/loss.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * LightGBM text model
 * ------------------------------------------------------------------------------------------ */

typedef struct lgb_line {
    const char *key, *val;   /* not NUL-terminated */
    size_t key_len, val_len;
    size_t line;             /* 1-based */
} lgb_line;

typedef struct lgb_block {
    lgb_line *lines;
    size_t n, cap;
} lgb_block;

static const lgb_line *lgb_find(const lgb_block *b, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < b->n; i++)
        if (b->lines[i].key_len == n && !memcmp(b->lines[i].key, key, n)) return &b->lines[i];
    return NULL;
}

/* The space-separated numbers of line `key` (exactly n of them) into out[]. */
static grove_status lgb_numbers(const conv *c, const lgb_block *b, const char *key, size_t n,
                                size_t tree, double *out)
{
    const lgb_line *l = lgb_find(b, key);
    if (!l)
        return gv_err(GROVE_ERR_MODEL, "%s: Tree=%zu: %s: missing", c->source, tree, key);
    const char *p = l->val, *e = l->val + l->val_len;
    size_t i = 0;
    while (p < e) {
        const char *q = p;
        while (q < e && *q != ' ') q++;
        if (q > p) {
            if (i == n)
                return gv_err(GROVE_ERR_MODEL, "%s:%zu: %s: more than %zu entries", c->source,
                              l->line, key, n);
            double v;
            int rc = gv_parse_decimal(p, (size_t)(q - p), &v);
            if (rc == GV_NUM_BAD && ((q - p == 3 && !strncmp(p, "inf", 3)) ||
                                     (q - p == 4 && !strncmp(p, "-inf", 4)))) {
                v = *p == '-' ? -HUGE_VAL : HUGE_VAL;
                rc = GV_NUM_OK;
            }
            if (rc != GV_NUM_OK)
                return gv_err(GROVE_ERR_MODEL, "%s:%zu: %s[%zu]: expected a number, got \"%.*s\"",
                              c->source, l->line, key, i, (int)(q - p > 40 ? 40 : q - p), p);
            out[i++] = v;
        }
        p = q + 1;
    }
    if (i != n)
        return gv_err(GROVE_ERR_MODEL, "%s:%zu: %s: expected %zu entries, got %zu", c->source,
                      l->line, key, n, i);
    return GROVE_OK;
}

/* Whether line `key` is long enough to hold n entries (each a character and a space), checked
 * before arrays of n are allocated; GROVE_ERR_MODEL naming the line otherwise. */
static grove_status lgb_room(const conv *c, const lgb_block *b, const char *key, size_t n,
                             size_t tree)
{
    const lgb_line *l = lgb_find(b, key);
    if (!l) return gv_err(GROVE_ERR_MODEL, "%s: Tree=%zu: %s: missing", c->source, tree, key);
    if (n > 0 && l->val_len + 1 < 2 * n)
        return gv_err(GROVE_ERR_MODEL, "%s:%zu: %s: expected %zu entries, the line is too short",
                      c->source, l->line, key, n);
    return GROVE_OK;
}

static grove_status lgb_int(const conv *c, const lgb_block *b, const char *key, size_t tree,
                            int64_t lo, int64_t hi, int64_t *out)
{
    double v;
    grove_status st = lgb_numbers(c, b, key, 1, tree, &v);
    if (st != GROVE_OK) return st;
    if (!(v >= (double)lo && v <= (double)hi && v == floor(v)))
        return gv_err(GROVE_ERR_MODEL, "%s:%zu: %s: must be an integer in [%lld, %lld], got "
                      "%.17g", c->source, lgb_find(b, key)->line, key, (long long)lo,
                      (long long)hi, v);
    *out = (int64_t)v;
    return GROVE_OK;
}

/* Integers of a line into out[n] (each in [lo, hi]). */
static grove_status lgb_ints(const conv *c, const lgb_block *b, const char *key, size_t n,
                             size_t tree, int64_t lo, int64_t hi, double *tmp, int64_t *out)
{
    grove_status st = lgb_numbers(c, b, key, n, tree, tmp);
    if (st != GROVE_OK) return st;
    for (size_t i = 0; i < n; i++) {
        if (!(tmp[i] >= (double)lo && tmp[i] <= (double)hi && tmp[i] == floor(tmp[i])))
            return gv_err(GROVE_ERR_MODEL, "%s:%zu: %s[%zu]: must be an integer in [%lld, %lld], "
                          "got %.17g", c->source, lgb_find(b, key)->line, key, i, (long long)lo,
                          (long long)hi, tmp[i]);
        out[i] = (int64_t)tmp[i];
    }
    return GROVE_OK;
}

static grove_status lgb_tree(conv *c, const lgb_block *b, size_t tree, double scale)
{
    grove_status st;
    int64_t nl, ncat = 0;
    if ((st = lgb_int(c, b, "num_leaves", tree, 1, 1 << 24, &nl)) != GROVE_OK) return st;
    if (lgb_find(b, "num_cat") && (st = lgb_int(c, b, "num_cat", tree, 0, 1 << 24, &ncat)) != GROVE_OK)
        return st;
    const lgb_line *lin = lgb_find(b, "is_linear");
    if (lin && !(lin->val_len == 1 && lin->val[0] == '0'))
        return gv_err(GROVE_ERR_MODEL, "%s:%zu: is_linear: linear trees have no grove "
                      "counterpart", c->source, lin->line);
    size_t L = (size_t)nl, I = L - 1; /* leaves, internal nodes */
    if ((st = lgb_room(c, b, "leaf_value", L, tree)) != GROVE_OK ||
        (ncat > 0 && (st = lgb_room(c, b, "cat_boundaries", (size_t)ncat + 1, tree)) != GROVE_OK))
        return st;
    src_tree *s = &c->trees[tree];
    double *tmp = gv_malloc_array(2 * L + 2, sizeof *tmp);
    int64_t *iv = gv_malloc_array(2 * L + 2, sizeof *iv);
    double *lv = gv_malloc_array(L, sizeof *lv);
    int64_t *cb = NULL;
    double *ct = NULL;
    size_t n_ct = 0;
    if (!tmp || !iv || !lv) {
        st = gv_err_nomem("a tree");
        goto done;
    }
    if ((st = lgb_numbers(c, b, "leaf_value", L, tree, lv)) != GROVE_OK) goto done;
    if (ncat > 0) {
        if (!(cb = gv_malloc_array((size_t)ncat + 1, sizeof *cb))) {
            st = gv_err_nomem("a tree");
            goto done;
        }
        double *t2 = gv_malloc_array((size_t)ncat + 1, sizeof *t2);
        if (!t2) {
            st = gv_err_nomem("a tree");
            goto done;
        }
        st = lgb_ints(c, b, "cat_boundaries", (size_t)ncat + 1, tree, 0, 1 << 24, t2, cb);
        gv_free(t2);
        if (st != GROVE_OK) goto done;
        for (int64_t j = 0; j < ncat; j++)
            if (cb[j + 1] < cb[j] || cb[0] != 0) {
                st = gv_err(GROVE_ERR_MODEL, "%s:%zu: cat_boundaries: must start at 0 and never "
                            "decrease", c->source, lgb_find(b, "cat_boundaries")->line);
                goto done;
            }
        n_ct = (size_t)cb[ncat];
        if ((st = lgb_room(c, b, "cat_threshold", n_ct, tree)) != GROVE_OK) goto done;
        if (!(ct = gv_malloc_array(n_ct ? n_ct : 1, sizeof *ct))) {
            st = gv_err_nomem("a tree");
            goto done;
        }
        if ((st = lgb_numbers(c, b, "cat_threshold", n_ct, tree, ct)) != GROVE_OK) goto done;
        for (size_t i = 0; i < n_ct; i++)
            if (!(ct[i] >= 0 && ct[i] <= 4294967295.0 && ct[i] == floor(ct[i]))) {
                st = gv_err(GROVE_ERR_MODEL, "%s:%zu: cat_threshold[%zu]: expected a 32-bit "
                            "word, got %.17g", c->source, lgb_find(b, "cat_threshold")->line, i,
                            ct[i]);
                goto done;
            }
    }
    /* node numbering: internal node i is source node i, leaf j is source node I + j */
    size_t n_cat_codes = 0;
    for (size_t i = 0; i < n_ct; i++)
        for (int bit = 0; bit < 32; bit++) n_cat_codes += ((uint32_t)ct[i] >> bit) & 1u;
    if ((st = gv_conv_tree_alloc(s, I + L, 1, n_cat_codes)) != GROVE_OK) goto done;
    for (size_t j = 0; j < L; j++) {
        s->nodes[I + j].kind = SN_LEAF;
        s->values[I + j] = lv[j] * scale;
    }
    if (lgb_find(b, "leaf_weight") && lgb_numbers(c, b, "leaf_weight", L, tree, tmp) == GROVE_OK)
        for (size_t j = 0; j < L; j++) s->nodes[I + j].weight = tmp[j];
    if (lgb_find(b, "leaf_count") && lgb_numbers(c, b, "leaf_count", L, tree, tmp) == GROVE_OK)
        for (size_t j = 0; j < L; j++) s->nodes[I + j].count = tmp[j] >= 0 ? tmp[j] : 0;
    gv_err_clear();
    if (I == 0) goto done;
    if ((st = lgb_ints(c, b, "split_feature", I, tree, 0, (int64_t)c->n_features - 1, tmp, iv)) != GROVE_OK)
        goto done;
    for (size_t i = 0; i < I; i++) s->nodes[i].feature = (int32_t)iv[i];
    if ((st = lgb_ints(c, b, "decision_type", I, tree, 0, 15, tmp, iv)) != GROVE_OK) goto done;
    for (size_t i = 0; i < I; i++) {
        src_node *sn = &s->nodes[i];
        int dt = (int)iv[i];
        sn->kind = (dt & 1) ? SN_CAT : SN_NUM;
        sn->default_left = (dt >> 1) & 1;
        int mt = (dt >> 2) & 3;
        if (mt == 3) {
            st = gv_err(GROVE_ERR_MODEL, "%s:%zu: decision_type[%zu]: missing type 3 is not "
                        "LightGBM's", c->source, lgb_find(b, "decision_type")->line, i);
            goto done;
        }
        sn->missing = mt == 0 ? MISS_NONE : mt == 1 ? MISS_ZERO : MISS_NAN;
        sn->cmp = CMP_LE;
    }
    if ((st = lgb_numbers(c, b, "threshold", I, tree, tmp)) != GROVE_OK) goto done;
    size_t used = 0;
    for (size_t i = 0; i < I; i++) {
        src_node *sn = &s->nodes[i];
        if (sn->kind == SN_NUM) {
            if (isnan(tmp[i])) {
                st = gv_err(GROVE_ERR_MODEL, "%s:%zu: threshold[%zu]: not a number", c->source,
                            lgb_find(b, "threshold")->line, i);
                goto done;
            }
            sn->thr = tmp[i];
            continue;
        }
        /* categorical: the threshold is the index of the node's bitset in cat_boundaries; NaN
         * and negative values go right (LightGBM 3 and 4), so default_left is 0 */
        if (!(tmp[i] >= 0 && tmp[i] < (double)ncat && tmp[i] == floor(tmp[i]))) {
            st = gv_err(GROVE_ERR_MODEL, "%s:%zu: threshold[%zu]: a categorical split's bitset "
                        "index must be in [0, %lld), got %.17g", c->source,
                        lgb_find(b, "threshold")->line, i, (long long)ncat, tmp[i]);
            goto done;
        }
        size_t j = (size_t)tmp[i];
        sn->default_left = 0;
        sn->cat_off = used;
        for (int64_t w = cb[j]; w < cb[j + 1]; w++)
            for (int bit = 0; bit < 32; bit++)
                if (((uint32_t)ct[w] >> bit) & 1u) {
                    uint64_t code = (uint64_t)(w - cb[j]) * 32 + (uint64_t)bit;
                    if (code >= 65535) {
                        st = gv_err(GROVE_ERR_MODEL, "%s:%zu: cat_threshold: category %llu is "
                                    "beyond grove's 65535", c->source,
                                    lgb_find(b, "cat_threshold")->line, (unsigned long long)code);
                        goto done;
                    }
                    s->cats[used++] = (uint32_t)code;
                }
        sn->cat_n = used - sn->cat_off;
        c->is_cat[sn->feature] = 1;
    }
    /* children: >= 0 an internal node, < 0 leaf ~child */
    const char *side[2] = {"left_child", "right_child"};
    for (int sd = 0; sd < 2; sd++) {
        if ((st = lgb_ints(c, b, side[sd], I, tree, -(int64_t)L, (int64_t)I - 1, tmp, iv)) != GROVE_OK)
            goto done;
        for (size_t i = 0; i < I; i++) {
            int64_t ch = iv[i] >= 0 ? iv[i] : (int64_t)I + ~iv[i];
            if (sd == 0) s->nodes[i].left = ch;
            else s->nodes[i].right = ch;
        }
    }
    if (lgb_find(b, "split_gain") && lgb_numbers(c, b, "split_gain", I, tree, tmp) == GROVE_OK)
        for (size_t i = 0; i < I; i++) s->nodes[i].gain = tmp[i];
    if (lgb_find(b, "internal_weight") && lgb_numbers(c, b, "internal_weight", I, tree, tmp) == GROVE_OK)
        for (size_t i = 0; i < I; i++) s->nodes[i].weight = tmp[i];
    if (lgb_find(b, "internal_count") && lgb_numbers(c, b, "internal_count", I, tree, tmp) == GROVE_OK)
        for (size_t i = 0; i < I; i++) s->nodes[i].count = tmp[i] >= 0 ? tmp[i] : 0;
    gv_err_clear();
    /* the covers of TreeSHAP (shap.c reads the node weights): LightGBM's own contributions
     * (Tree::TreeSHAP) weigh a split's sides by their training row counts, not by their
     * hessian sums, so with the counts in the file the weights are the counts */
    const int counts = lgb_find(b, "leaf_count") && (I == 0 || lgb_find(b, "internal_count"));
    for (size_t k = 0; k < I + L; k++) {
        src_node *sn = &s->nodes[k];
        if (!isfinite(sn->gain)) sn->gain = 0;
        if (!isfinite(sn->weight)) sn->weight = 0;
        if (!isfinite(sn->count)) sn->count = 0;
        if (counts) sn->weight = sn->count;
    }
done:
    gv_free(tmp);
    gv_free(iv);
    gv_free(lv);
    gv_free(cb);
    gv_free(ct);
    return st;
}

static grove_status lgb_append(lgb_block *b, const lgb_line *l)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 32;
        lgb_line *nl = gv_realloc_array(b->lines, cap, sizeof *nl);
        if (!nl) return gv_err_nomem("a LightGBM model");
        b->lines = nl;
        b->cap = cap;
    }
    b->lines[b->n++] = *l;
    return GROVE_OK;
}

grove_status gv_conv_from_lightgbm(conv *c, const char *text, size_t len)
{
    /* The file: a header block of key=value lines, then blocks "Tree=i" ... up to "end of
     * trees"; what follows (feature importances, parameters) is not read. */
    lgb_block head = {0}, *blocks = NULL;
    size_t n_blocks = 0, cap_blocks = 0;
    grove_status st = GROVE_OK;
    const char *p = text, *e = text + len;
    size_t line = 0;
    lgb_block *cur = &head;
    int ended = 0;
    while (p < e && st == GROVE_OK && !ended) {
        const char *q = memchr(p, '\n', (size_t)(e - p));
        if (!q) q = e;
        line++;
        const char *le = q;
        if (le > p && le[-1] == '\r') le--;
        if (memchr(p, '\0', (size_t)(le - p))) {
            st = gv_err(GROVE_ERR_MODEL, "%s:%zu: a NUL byte; not a LightGBM text model",
                        c->source, line);
            break;
        }
        if (le - p == 12 && !memcmp(p, "end of trees", 12)) {
            ended = 1;
        } else if (le > p) {
            const char *eq = memchr(p, '=', (size_t)(le - p));
            lgb_line l = {p, NULL, eq ? (size_t)(eq - p) : (size_t)(le - p), 0, line};
            if (eq) {
                l.val = eq + 1;
                l.val_len = (size_t)(le - eq - 1);
            }
            if (l.key_len == 4 && !memcmp(p, "Tree", 4) && eq) {
                if (n_blocks == cap_blocks) {
                    size_t cap = cap_blocks ? 2 * cap_blocks : 16;
                    lgb_block *nb = gv_realloc_array(blocks, cap, sizeof *nb);
                    if (!nb) {
                        st = gv_err_nomem("a LightGBM model");
                        break;
                    }
                    blocks = nb;
                    cap_blocks = cap;
                }
                cur = &blocks[n_blocks++];
                memset(cur, 0, sizeof *cur);
                char want[32];
                snprintf(want, sizeof want, "%zu", n_blocks - 1);
                if (l.val_len != strlen(want) || memcmp(l.val, want, l.val_len))
                    st = gv_err(GROVE_ERR_MODEL, "%s:%zu: expected Tree=%zu", c->source, line,
                                n_blocks - 1);
            } else if (eq) {
                st = lgb_append(cur, &l);
            } else if (cur == &head && line == 1 && !(l.key_len == 4 && !memcmp(p, "tree", 4))) {
                st = gv_err(GROVE_ERR_MODEL, "%s:1: expected \"tree\"; not a LightGBM text model",
                            c->source);
            } else if (cur == &head) {
                st = lgb_append(cur, &l); /* "tree", "average_output" */
            }
        }
        p = q + 1;
    }
    if (st == GROVE_OK && line == 0)
        st = gv_err(GROVE_ERR_MODEL, "%s: empty file, not a LightGBM model", c->source);
    if (st == GROVE_OK && n_blocks == 0)
        st = gv_err(GROVE_ERR_MODEL, "%s: no trees (no \"Tree=0\" line)", c->source);
    if (st != GROVE_OK) goto done;
    int64_t ncls, ntpi, mfi;
    if ((st = lgb_int(c, &head, "num_class", 0, 1, 65536, &ncls)) != GROVE_OK ||
        (st = lgb_int(c, &head, "num_tree_per_iteration", 0, 1, 65536, &ntpi)) != GROVE_OK ||
        (st = lgb_int(c, &head, "max_feature_idx", 0, 0, CV_MAX_FEATURES - 1, &mfi)) != GROVE_OK) {
        gv_err_prefix("header");
        goto done;
    }
    const lgb_line *ol = lgb_find(&head, "objective");
    if (!ol) {
        st = gv_err(GROVE_ERR_MODEL, "%s: header: objective: missing", c->source);
        goto done;
    }
    /* "binary sigmoid:1", "multiclass num_class:3", "regression", "huber", ... */
    size_t on = 0;
    while (on < ol->val_len && ol->val[on] != ' ') on++;
    double sigmoid = 1.0;
    const char *sg = NULL;
    for (size_t i = on; i + 8 <= ol->val_len; i++)
        if (!memcmp(ol->val + i, "sigmoid:", 8)) sg = ol->val + i + 8;
    if (sg) {
        size_t n = 0;
        while (sg + n < ol->val + ol->val_len && sg[n] != ' ') n++;
        if (gv_parse_decimal(sg, n, &sigmoid) != GV_NUM_OK || !(sigmoid > 0 && isfinite(sigmoid))) {
            st = gv_err(GROVE_ERR_MODEL, "%s:%zu: objective: sigmoid must be a positive number",
                        c->source, ol->line);
            goto done;
        }
    }
#define OBJ_IS(s) (on == strlen(s) && !memcmp(ol->val, s, on))
    int K = 0;
    double scale = 1.0;
    if (OBJ_IS("binary") || OBJ_IS("cross_entropy") || OBJ_IS("xentropy")) {
        c->objective = GV_OBJ_LOGISTIC;
        K = 2;
        scale = OBJ_IS("binary") ? sigmoid : 1.0; /* p = sigma(sigmoid F): leaves scaled */
    } else if (OBJ_IS("multiclass") || OBJ_IS("softmax")) {
        c->objective = GV_OBJ_SOFTMAX;
        K = (int)ncls;
    } else if (OBJ_IS("regression") || OBJ_IS("regression_l2") || OBJ_IS("l2") ||
               OBJ_IS("mean_squared_error") || OBJ_IS("mse") || OBJ_IS("rmse")) {
        c->objective = GV_OBJ_SQUARED;
    } else if (OBJ_IS("regression_l1") || OBJ_IS("l1") || OBJ_IS("mean_absolute_error") ||
               OBJ_IS("mae")) {
        c->objective = GV_OBJ_ABSOLUTE;
    } else if (OBJ_IS("huber")) {
        c->objective = GV_OBJ_HUBER;
    } else {
        st = gv_err(GROVE_ERR_MODEL, "%s:%zu: objective: '%.*s' has no grove counterpart "
                    "(binary, multiclass, regression, regression_l1, huber)", c->source, ol->line,
                    (int)(on > 60 ? 60 : on), ol->val);
        goto done;
    }
#undef OBJ_IS
    if ((K == 2 && ncls != 1) || (K == 0 && ncls != 1) ||
        (c->objective == GV_OBJ_SOFTMAX && (K < 2 || ntpi != K)) ||
        (c->objective != GV_OBJ_SOFTMAX && ntpi != 1)) {
        st = gv_err(GROVE_ERR_MODEL, "%s: header: num_class %lld and num_tree_per_iteration %lld "
                    "do not fit objective '%.*s'", c->source, (long long)ncls, (long long)ntpi,
                    (int)(on > 60 ? 60 : on), ol->val);
        goto done;
    }
    size_t n_features = (size_t)mfi + 1;
    const lgb_line *fnl = lgb_find(&head, "feature_names");
    char **names = NULL;
    size_t n_names = 0;
    if (fnl) {
        if (!(names = gv_calloc(n_features, sizeof *names))) {
            st = gv_err_nomem("the features");
            goto done;
        }
        const char *a = fnl->val, *ae = fnl->val + fnl->val_len;
        while (a < ae && st == GROVE_OK) {
            const char *z = a;
            while (z < ae && *z != ' ') z++;
            if (z > a) {
                if (n_names == n_features) {
                    st = gv_err(GROVE_ERR_MODEL, "%s:%zu: feature_names: more than "
                                "max_feature_idx + 1 = %zu names", c->source, fnl->line, n_features);
                    break;
                }
                names[n_names] = gv_malloc((size_t)(z - a) + 1);
                if (!names[n_names]) {
                    st = gv_err_nomem("the features");
                    break;
                }
                memcpy(names[n_names], a, (size_t)(z - a));
                names[n_names++][z - a] = '\0';
            }
            a = z + 1;
        }
        if (st == GROVE_OK && n_names != n_features)
            st = gv_err(GROVE_ERR_MODEL, "%s:%zu: feature_names: expected %zu names, got %zu",
                        c->source, fnl->line, n_features, n_names);
    }
    if (st == GROVE_OK) st = gv_conv_features(c, n_features, n_names ? (const char *const *)names : NULL);
    for (size_t i = 0; names && i < n_features; i++) gv_free(names[i]);
    gv_free(names);
    if (st != GROVE_OK || (st = gv_conv_classes(c, K)) != GROVE_OK) goto done;
    if (n_blocks % (size_t)ntpi) {
        st = gv_err(GROVE_ERR_MODEL, "%s: %zu trees are not whole iterations of %lld", c->source,
                    n_blocks, (long long)ntpi);
        goto done;
    }
    /* random forest mode: the output is the mean of the iterations, not their sum */
    if (lgb_find(&head, "average_output")) scale /= (double)(n_blocks / (size_t)ntpi);
    c->kind = CV_GBDT;
    c->n_out = 1;
    c->learning_rate = 1.0;
    c->n_groups = (size_t)ntpi;
    if (!(c->base = gv_calloc(c->n_groups, sizeof *c->base))) {
        st = gv_err_nomem("the model");
        goto done;
    }
    if ((st = gv_conv_trees(c, n_blocks)) != GROVE_OK) goto done;
    for (size_t t = 0; t < n_blocks && st == GROVE_OK; t++) {
        st = lgb_tree(c, &blocks[t], t, scale);
        c->trees[t].group = t % c->n_groups;
    }
done:
    gv_free(head.lines);
    for (size_t b = 0; b < n_blocks; b++) gv_free(blocks[b].lines);
    gv_free(blocks);
    return st;
}

