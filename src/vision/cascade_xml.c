/*
 * cascade_xml.c -- OpenCV's Haar cascade files, read with libxml2 and written in OpenCV's
 * current format, so OpenCV's CascadeClassifier runs grove-trained cascades.
 *
 * Pipeline position: vision/ (interoperability of cascade.c's data).
 * Two layouts are read (both under <opencv_storage>, the cascade being its first element):
 *  - current ("opencv-cascade-classifier", traincascade): stageType BOOST, featureType HAAR,
 *    width, height, featureParams/maxCatCount = 0; stages/_/{stageThreshold, weakClassifiers/_/
 *    {internalNodes: "left right feature threshold" per node, leafValues}}; features/_/{rects/_:
 *    "x y w h weight", tilted}.  Node children > 0 are nodes, <= 0 are leaves (-child).
 *  - old ("opencv-haar-classifier", haartraining): size "W H"; stages/_/{trees/_/_ (nodes):
 *    {feature/{rects, tilted}, threshold, left_val | left_node, right_val | right_node},
 *    stage_threshold}.  Converted to the current layout (leaves numbered in node order).
 * Numbers are parsed without the C locale's help (gv_parse_double), so a host program's
 * setlocale() cannot change them.  LBP and HOG cascades are refused by name.
 */
#include "vision.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static xmlNode *first_elem(xmlNode *n)
{
    for (; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE) return n;
    return NULL;
}
static xmlNode *next_elem(xmlNode *n) { return n ? first_elem(n->next) : NULL; }

static xmlNode *child(xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? first_elem(n->children) : NULL; c; c = next_elem(c))
        if (!strcmp((const char *)c->name, name)) return c;
    return NULL;
}

static size_t count_children(xmlNode *n)
{
    size_t k = 0;
    for (xmlNode *c = n ? first_elem(n->children) : NULL; c; c = next_elem(c)) k++;
    return k;
}

/* Parses up to `max` whitespace-separated numbers of the node's text; returns how many, or -1
 * when a token is not a number. */
static int numbers(xmlNode *n, double *out, int max)
{
    if (!n) return 0;
    xmlChar *text = xmlNodeGetContent(n);
    if (!text) return 0;
    const char *s = (const char *)text;
    int k = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
        if (!*s) break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r') e++;
        double v;
        if (k >= max || gv_parse_double(s, (size_t)(e - s), &v) || !isfinite(v)) {
            xmlFree(text);
            return -1;
        }
        out[k++] = v;
        s = e;
    }
    xmlFree(text);
    return k;
}

static int number(xmlNode *n, double *out) { return numbers(n, out, 1) == 1 ? 0 : -1; }

static int text_is(xmlNode *n, const char *want)
{
    if (!n) return 0;
    xmlChar *text = xmlNodeGetContent(n);
    if (!text) return 0;
    const char *s = (const char *)text;
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
    size_t len = strlen(want);
    int ok = !strncmp(s, want, len);
    if (ok) {
        s += len;
        while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
        ok = !*s;
    }
    xmlFree(text);
    return ok;
}

/* Reads a feature node ({rects/_: "x y w h weight", tilted}). */
static int read_feature(xmlNode *fn, gv_haar_feature *f)
{
    xmlNode *rects = child(fn, "rects");
    memset(f, 0, sizeof *f);
    if (!rects) return -1;
    int k = 0;
    for (xmlNode *r = first_elem(rects->children); r; r = next_elem(r)) {
        double v[5];
        if (k >= GV_HAAR_MAX_RECTS || numbers(r, v, 5) != 5) return -1;
        for (int j = 0; j < 4; j++)
            if (v[j] != floor(v[j]) || v[j] < 0 || v[j] > 256) return -1;
        f->r[k].x = (int)v[0];
        f->r[k].y = (int)v[1];
        f->r[k].w = (int)v[2];
        f->r[k].h = (int)v[3];
        f->r[k].weight = (float)v[4];
        k++;
    }
    if (k < 1) return -1;
    f->n_rects = k;
    xmlNode *t = child(fn, "tilted");
    double tv = 0;
    if (t && number(t, &tv)) return -1;
    f->tilted = tv != 0;
    return 0;
}

/* Growable arrays of the cascade being built. */
typedef struct builder {
    struct grove_cascade *c;
    int cap_trees, cap_nodes, cap_leaves, cap_features;
} builder;

static int grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return 0;
    int nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *q = gv_realloc_array(*p, (size_t)nc, size);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static grove_status read_current(const char *path, xmlNode *root, struct grove_cascade *c)
{
    builder b = {c, 0, 0, 0, 0};
    double v;
    if (!text_is(child(root, "stageType"), "BOOST"))
        return gv_err(GROVE_ERR_MODEL, "%s: stageType must be BOOST", path);
    if (!text_is(child(root, "featureType"), "HAAR"))
        return gv_err(GROVE_ERR_MODEL, "%s: featureType is not HAAR (LBP and HOG cascades are not "
                      "supported)", path);
    if (number(child(root, "width"), &v) || v < 4 || v > 256 || v != floor(v))
        return gv_err(GROVE_ERR_MODEL, "%s: missing or bad <width>", path);
    c->width = (int)v;
    if (number(child(root, "height"), &v) || v < 4 || v > 256 || v != floor(v))
        return gv_err(GROVE_ERR_MODEL, "%s: missing or bad <height>", path);
    c->height = (int)v;
    xmlNode *fp = child(root, "featureParams");
    if (!fp) return gv_err(GROVE_ERR_MODEL, "%s: missing <featureParams>", path);
    if (child(fp, "maxCatCount") && (number(child(fp, "maxCatCount"), &v) || v != 0))
        return gv_err(GROVE_ERR_MODEL, "%s: categorical (LBP) splits are not supported", path);
    xmlNode *stages = child(root, "stages"), *feats = child(root, "features");
    if (!stages || !feats) return gv_err(GROVE_ERR_MODEL, "%s: missing <stages> or <features>", path);
    c->n_stages = (int)count_children(stages);
    c->stages = gv_calloc((size_t)c->n_stages + 1, sizeof *c->stages);
    if (!c->stages) return gv_err_nomem("cascade");
    int s = 0;
    for (xmlNode *sn = first_elem(stages->children); sn; sn = next_elem(sn), s++) {
        gv_cascade_stage *st = &c->stages[s];
        if (number(child(sn, "stageThreshold"), &v))
            return gv_err(GROVE_ERR_MODEL, "%s: stage %d: missing <stageThreshold>", path, s);
        st->threshold = (float)v;
        st->first_tree = c->n_trees;
        xmlNode *weak = child(sn, "weakClassifiers");
        if (!weak) return gv_err(GROVE_ERR_MODEL, "%s: stage %d: missing <weakClassifiers>", path, s);
        for (xmlNode *wn = first_elem(weak->children); wn; wn = next_elem(wn)) {
            double nv[4 * 64], lv[65];
            int nn = numbers(child(wn, "internalNodes"), nv, 4 * 64);
            int nl = numbers(child(wn, "leafValues"), lv, 65);
            if (nn < 4 || nn % 4 || nl != nn / 4 + 1)
                return gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %d: <internalNodes> must hold 4 "
                              "numbers per node (at most 64 nodes) and <leafValues> one more value "
                              "than nodes", path, s, st->n_trees);
            int n_nodes = nn / 4;
            if (grow((void **)&c->trees, &b.cap_trees, c->n_trees + 1, sizeof *c->trees) ||
                grow((void **)&c->nodes, &b.cap_nodes, c->n_nodes + n_nodes, sizeof *c->nodes) ||
                grow((void **)&c->leaves, &b.cap_leaves, c->n_leaves + nl, sizeof *c->leaves))
                return gv_err_nomem("cascade");
            gv_cascade_tree *tr = &c->trees[c->n_trees++];
            tr->n_nodes = n_nodes;
            tr->first_node = c->n_nodes;
            tr->first_leaf = c->n_leaves;
            for (int k = 0; k < n_nodes; k++) {
                gv_cascade_node *nd = &c->nodes[c->n_nodes++];
                for (int j = 0; j < 3; j++)
                    if (nv[4 * k + j] != floor(nv[4 * k + j]) || fabs(nv[4 * k + j]) > 1e7)
                        return gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %d node %d: expected "
                                      "integers for left, right and feature", path, s,
                                      st->n_trees, k);
                nd->left = (int)nv[4 * k];
                nd->right = (int)nv[4 * k + 1];
                nd->feature = (int)nv[4 * k + 2];
                nd->threshold = (float)nv[4 * k + 3];
            }
            for (int k = 0; k < nl; k++) c->leaves[c->n_leaves++] = (float)lv[k];
            st->n_trees++;
        }
    }
    c->n_features = (int)count_children(feats);
    c->features = gv_calloc((size_t)c->n_features + 1, sizeof *c->features);
    if (!c->features) return gv_err_nomem("cascade");
    int f = 0;
    for (xmlNode *fn = first_elem(feats->children); fn; fn = next_elem(fn), f++)
        if (read_feature(fn, &c->features[f]))
            return gv_err(GROVE_ERR_MODEL, "%s: feature %d: expected <rects> of 1 to 3 \"x y w h "
                          "weight\" and an optional <tilted>", path, f);
    return GROVE_OK;
}

/* The old layout: every node carries its own feature. */
static grove_status read_old(const char *path, xmlNode *root, struct grove_cascade *c)
{
    builder b = {c, 0, 0, 0, 0};
    double sz[2];
    if (numbers(child(root, "size"), sz, 2) != 2 || sz[0] < 4 || sz[1] < 4 || sz[0] > 256 ||
        sz[1] > 256)
        return gv_err(GROVE_ERR_MODEL, "%s: missing or bad <size>", path);
    c->width = (int)sz[0];
    c->height = (int)sz[1];
    xmlNode *stages = child(root, "stages");
    if (!stages) return gv_err(GROVE_ERR_MODEL, "%s: missing <stages>", path);
    c->n_stages = (int)count_children(stages);
    c->stages = gv_calloc((size_t)c->n_stages + 1, sizeof *c->stages);
    if (!c->stages) return gv_err_nomem("cascade");
    int s = 0;
    for (xmlNode *sn = first_elem(stages->children); sn; sn = next_elem(sn), s++) {
        gv_cascade_stage *st = &c->stages[s];
        double v;
        if (number(child(sn, "stage_threshold"), &v))
            return gv_err(GROVE_ERR_MODEL, "%s: stage %d: missing <stage_threshold>", path, s);
        st->threshold = (float)v;
        st->first_tree = c->n_trees;
        xmlNode *trees = child(sn, "trees");
        if (!trees) return gv_err(GROVE_ERR_MODEL, "%s: stage %d: missing <trees>", path, s);
        for (xmlNode *tn = first_elem(trees->children); tn; tn = next_elem(tn)) {
            int n_nodes = (int)count_children(tn);
            if (n_nodes < 1 || n_nodes > 64)
                return gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %d: 1 to 64 nodes expected",
                              path, s, st->n_trees);
            if (grow((void **)&c->trees, &b.cap_trees, c->n_trees + 1, sizeof *c->trees) ||
                grow((void **)&c->nodes, &b.cap_nodes, c->n_nodes + n_nodes, sizeof *c->nodes) ||
                grow((void **)&c->leaves, &b.cap_leaves, c->n_leaves + n_nodes + 1,
                     sizeof *c->leaves) ||
                grow((void **)&c->features, &b.cap_features, c->n_features + n_nodes,
                     sizeof *c->features))
                return gv_err_nomem("cascade");
            gv_cascade_tree *tr = &c->trees[c->n_trees++];
            tr->n_nodes = n_nodes;
            tr->first_node = c->n_nodes;
            tr->first_leaf = c->n_leaves;
            int k = 0, n_leaf = 0;
            for (xmlNode *nn = first_elem(tn->children); nn; nn = next_elem(nn), k++) {
                gv_cascade_node *nd = &c->nodes[c->n_nodes++];
                if (read_feature(child(nn, "feature"), &c->features[c->n_features]) ||
                    number(child(nn, "threshold"), &v))
                    return gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %d node %d: expected "
                                  "<feature> and <threshold>", path, s, st->n_trees, k);
                nd->feature = c->n_features++;
                nd->threshold = (float)v;
                const char *val_name[2] = {"left_val", "right_val"};
                const char *node_name[2] = {"left_node", "right_node"};
                for (int side = 0; side < 2; side++) {
                    int *dst = side ? &nd->right : &nd->left;
                    xmlNode *lv = child(nn, val_name[side]), *ln = child(nn, node_name[side]);
                    if (lv && !number(lv, &v) && n_leaf <= n_nodes) {
                        c->leaves[tr->first_leaf + n_leaf] = (float)v;
                        *dst = -n_leaf++;
                    } else if (ln && !number(ln, &v) && v == floor(v) && v > k && v < n_nodes) {
                        *dst = (int)v;
                    } else {
                        return gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %d node %d: expected "
                                      "<%s> or a later <%s>", path, s, st->n_trees, k,
                                      val_name[side], node_name[side]);
                    }
                }
            }
            if (n_leaf != n_nodes + 1)
                return gv_err(GROVE_ERR_MODEL, "%s: stage %d tree %d: %d leaves for %d nodes",
                              path, s, st->n_trees, n_leaf, n_nodes);
            c->n_leaves += n_leaf;
            st->n_trees++;
        }
    }
    return GROVE_OK;
}

/* libxml2's errors while one file is read: the first one, and whether memory ran out.  A
 * structured handler and a silent generic one are installed while the file is parsed and walked
 * (libxml2 keeps them per thread) so that libxml2 prints nothing: XML_PARSE_NOERROR does not
 * cover errors raised before the options apply (an allocation failing in the parser's context)
 * nor those of the node accessors after the parse (xmlNodeGetContent out of memory). */
typedef struct xml_errors {
    int nomem, line;
    char first[160];
} xml_errors;

static void ignore_generic(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

static void on_xml_error(void *ctx, xmlErrorPtr e)
{
    xml_errors *x = ctx;
    if (!e) return;
    if (e->code == XML_ERR_NO_MEMORY) x->nomem = 1;
    if (!x->first[0] && e->message) {
        snprintf(x->first, sizeof x->first, "%s", e->message);
        size_t n = strlen(x->first);
        while (n && (x->first[n - 1] == '\n' || x->first[n - 1] == ' ')) x->first[--n] = '\0';
        x->line = e->line;
    }
}

/* The cascade in `path`, parsed and walked while `xe` collects libxml2's errors. */
static grove_status read_xml(const char *path, xml_errors *xe, struct grove_cascade **out)
{
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                              XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS);
    if (!doc || xe->nomem) {
        xmlFreeDoc(doc);
        if (xe->nomem) return gv_err(GROVE_ERR_NOMEM, "%s: out of memory while parsing", path);
        FILE *fp = fopen(path, "rb");
        if (!fp) return gv_err(GROVE_ERR_IO, "%s: cannot open", path);
        fclose(fp);
        return gv_err(GROVE_ERR_MODEL, "%s:%d: not well-formed XML: %s", path, xe->line,
                      xe->first[0] ? xe->first : "parse error");
    }
    grove_status st;
    struct grove_cascade *c = gv_calloc(1, sizeof *c);
    xmlNode *top = xmlDocGetRootElement(doc);
    xmlNode *root = top ? first_elem(top->children) : NULL;
    if (!c) {
        st = gv_err_nomem("cascade");
    } else if (!top || strcmp((const char *)top->name, "opencv_storage") || !root) {
        st = gv_err(GROVE_ERR_MODEL, "%s: not an OpenCV cascade (no <opencv_storage> with a "
                    "cascade inside)", path);
    } else if (child(root, "stageType")) {
        st = read_current(path, root, c);
    } else if (child(root, "size") && child(root, "stages")) {
        st = read_old(path, root, c);
    } else {
        st = gv_err(GROVE_ERR_MODEL, "%s: <%s> is neither an opencv-cascade-classifier nor an "
                    "opencv-haar-classifier", path, (const char *)root->name);
    }
    xmlFreeDoc(doc);
    if (st && xe->nomem) st = gv_err(GROVE_ERR_NOMEM, "%s: out of memory while reading", path);
    if (!st) {
        c->source = gv_strdup("opencv-xml");
        if (!c->source) st = gv_err_nomem("cascade");
    }
    if (!st) {
        gv_cascade_finish(c);
        st = gv_cascade_validate(c, path);
    }
    if (st) {
        gv_cascade_free(c);
        return st;
    }
    *out = c;
    return GROVE_OK;
}

grove_status gv_cascade_read_xml(const char *path, struct grove_cascade **out)
{
    *out = NULL;
    xml_errors xe = {0, 0, ""};
    xmlStructuredErrorFunc old_fn = xmlStructuredError;
    void *old_ctx = xmlStructuredErrorContext;
    xmlGenericErrorFunc old_generic = xmlGenericError;
    void *old_generic_ctx = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(&xe, on_xml_error);
    xmlSetGenericErrorFunc(NULL, ignore_generic);
    grove_status st = read_xml(path, &xe, out);
    xmlSetGenericErrorFunc(old_generic_ctx, old_generic);
    xmlSetStructuredErrorFunc(old_ctx, old_fn);
    return st;
}

/* A float as OpenCV writes reals: shortest round-trip text, with a '.' or exponent. */
static int put_real(gv_buf *b, float x)
{
    char t[40];
    gv_format_double((double)x, t);
    if (!strpbrk(t, ".eEni")) strcat(t, ".");
    return gv_buf_printf(b, "%s", t);
}

grove_status gv_cascade_write_xml(const struct grove_cascade *c, const char *path)
{
    grove_status st = gv_cascade_validate(c, path);
    if (st) return st;
    gv_buf b = {0};
    int bad = 0;
    int max_weak = 0;
    for (int s = 0; s < c->n_stages; s++)
        if (c->stages[s].n_trees > max_weak) max_weak = c->stages[s].n_trees;
    bad |= gv_buf_printf(&b,
                  "<?xml version=\"1.0\"?>\n<!-- Written by grove %s: a boosted Haar cascade "
                  "(Viola & Jones 2004). -->\n<opencv_storage>\n"
                  "<cascade type_id=\"opencv-cascade-classifier\">\n"
                  "  <stageType>BOOST</stageType>\n  <featureType>HAAR</featureType>\n"
                  "  <height>%d</height>\n  <width>%d</width>\n"
                  "  <stageParams>\n    <maxWeakCount>%d</maxWeakCount></stageParams>\n"
                  "  <featureParams>\n    <maxCatCount>0</maxCatCount>\n"
                  "    <featSize>1</featSize>\n    <mode>%s</mode></featureParams>\n"
                  "  <stageNum>%d</stageNum>\n  <stages>\n",
                  GROVE_VERSION_STRING, c->height, c->width, max_weak,
                  c->has_tilted ? "ALL" : "BASIC", c->n_stages);
    for (int s = 0; s < c->n_stages; s++) {
        const gv_cascade_stage *stg = &c->stages[s];
        bad |= gv_buf_printf(&b, "    <_>\n      <maxWeakCount>%d</maxWeakCount>\n      <stageThreshold>",
                      stg->n_trees);
        bad |= put_real(&b, stg->threshold);
        bad |= gv_buf_printf(&b, "</stageThreshold>\n      <weakClassifiers>\n");
        for (int t = 0; t < stg->n_trees; t++) {
            const gv_cascade_tree *tr = &c->trees[stg->first_tree + t];
            bad |= gv_buf_printf(&b, "        <_>\n          <internalNodes>\n            ");
            for (int k = 0; k < tr->n_nodes; k++) {
                const gv_cascade_node *nd = &c->nodes[tr->first_node + k];
                bad |= gv_buf_printf(&b, "%s%d %d %d ", k ? " " : "", nd->left, nd->right, nd->feature);
                bad |= put_real(&b, nd->threshold);
            }
            bad |= gv_buf_printf(&b, "</internalNodes>\n          <leafValues>\n            ");
            for (int k = 0; k <= tr->n_nodes; k++) {
                if (k) bad |= gv_buf_printf(&b, " ");
                bad |= put_real(&b, c->leaves[tr->first_leaf + k]);
            }
            bad |= gv_buf_printf(&b, "</leafValues></_>\n");
        }
        bad |= gv_buf_printf(&b, "      </weakClassifiers></_>\n");
    }
    bad |= gv_buf_printf(&b, "  </stages>\n  <features>\n");
    for (int f = 0; f < c->n_features; f++) {
        const gv_haar_feature *hf = &c->features[f];
        bad |= gv_buf_printf(&b, "    <_>\n      <rects>\n");
        for (int k = 0; k < hf->n_rects; k++) {
            bad |= gv_buf_printf(&b, "        <_>\n          %d %d %d %d ", hf->r[k].x, hf->r[k].y,
                          hf->r[k].w, hf->r[k].h);
            bad |= put_real(&b, hf->r[k].weight);
            bad |= gv_buf_printf(&b, "</_>\n");
        }
        bad |= gv_buf_printf(&b, "      </rects>\n      <tilted>%d</tilted></_>\n", hf->tilted);
    }
    bad |= gv_buf_printf(&b, "  </features>\n</cascade>\n</opencv_storage>\n");
    if (bad) {
        gv_buf_free(&b);
        return gv_err_nomem("cascade XML");
    }
    /* grove_output: a device or FIFO written through, a regular file replaced atomically */
    grove_output *out = NULL;
    st = grove_output_open(path, NULL, &out);
    if (st == GROVE_OK) {
        if (fwrite(b.data, 1, b.len, grove_output_stream(out)) == b.len) {
            st = grove_output_commit(out);
        } else {
            grove_output_abort(out);
            st = gv_err(GROVE_ERR_IO, "%s: cannot write", path);
        }
    }
    gv_buf_free(&b);
    return st;
}
