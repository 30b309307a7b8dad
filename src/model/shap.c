/*
 * shap.c -- per-feature contributions of a tree ensemble's score: SHAP values and SHAP
 * interaction values, path-dependent (TreeSHAP).
 *
 * Pipeline position: model/ (reads a grove_model's component tree through the ensembles'
 * views, ensemble.h; api/contrib.c checks arguments and calls in).
 *
 * The score.  Every model explained here scores a row as a sum over trees: with G score groups,
 *     s_g(x) = b_g + sum_t v_t(leaf_t(x))_g,
 * and its prediction is a fixed function of s (the link).  Per kind:
 *   gbdt         G = trees per round (softmax: K; else 1), b = the initial scores, v_t the
 *                tree's leaf value in its group: s is the margin (logistic: P(1) = sigma(s),
 *                exponential: sigma(2 s), softmax: softmax(s), regression: s itself).
 *   tree, id3, stump  G = K (the class probabilities) or 1, b = 0, v the leaf's values.
 *   bagging, forest, extra-trees of trees  G = K or 1, b = 0; soft vote and regression: v_t =
 *                the leaf's values / T; hard vote: 1/T at the leaf's class (the vote fractions).
 *   adaboost, adaboost.m1, samme, samme.r, adaboost.m2 of trees  G = K, b = 0, v_t the
 *                member's share of the class scores at its leaf (gv_boost_member_score); the
 *                probabilities are a softmax of s (boost.c).
 * Other models (adaboost.r2's weighted median, filter boosting's vote of three, stacking,
 * voting, linear models, networks) are not a sum over trees and are refused.
 *
 * SHAP values (Lundberg, Erion & Lee 2018, "Consistent individualized feature attribution for
 * tree ensembles", Algorithm 2).  For one tree f and row x, with cover r_k of node k (the
 * training weight that reached it: sum of sample weights, or of hessians for gbdt, as the
 * trees store it; its row count where the node's weight is 0), the expectation of f given
 * the features S is known is
 *     f_x(S) = the leaf values averaged over the paths x can take when every split on a
 *              feature outside S sends it to each child c with probability r_c / r_k,
 * and phi_i = sum_{S subset N\{i}} |S|! (M - |S| - 1)! / M! [f_x(S u {i}) - f_x(S)] (M = the
 * number of features).  Algorithm 2 gets every phi_i in O(L D^2) per tree (L leaves, D depth)
 * by carrying, along the path to each leaf, the unique features met with their "zero
 * fraction" z (the product of r_c / r_k over the path's splits on that feature) and "one
 * fraction" o (1 when x follows every such split, else 0), and the permutation weights w of
 * the path's subsets of each size:
 *     EXTEND(z, o):  w_{i+1} += o w_i (i + 1)/(d + 1),  w_i = z w_i (d - i)/(d + 1)  (i = d-1..0)
 *     UNWIND:        the inverse of EXTEND for one feature (a feature met again is unwound and
 *                    extended once with the product of its fractions);
 *     at a leaf with value v: phi_j += v (o_j - z_j) sum_i w_i of the path with j unwound.
 * The bias column is phi_0 = E[f] = f_x(empty set) = the cover-weighted mean of the leaves, so
 * that b_g + sum_t (E[f_t] + sum_i phi_i) = s_g(x) exactly (local accuracy).  A split with
 * several children (id3's multiway categorical splits) sends x to one "hot" child (o = o_in)
 * and the others cold (o = 0), each with z = z_in r_c / r_k; missing values and unseen
 * categories are hot on the side the walk takes them (tree.h).  A subtree whose path weights
 * are all zero (a child without cover, off x's path) adds nothing and is skipped.
 *
 * SHAP interaction values (Lundberg et al. 2020, "From local explanations to global
 * understanding with explainable AI for trees", eq. 3):
 *     Phi_ij = sum_{S subset N\{i,j}} |S|! (M - |S| - 2)! / (2 (M - 1)!)
 *              [f_x(S u {i,j}) - f_x(S u {i}) - f_x(S u {j}) + f_x(S)]   (i != j),
 *     Phi_ii = phi_i - sum_{j != i} Phi_ij,
 * computed as XGBoost does: Phi_ij = (phi_j | i present - phi_j | i absent) / 2, where
 * "i present" runs Algorithm 2 with feature i never put on the path and its splits followed
 * as x goes, "i absent" with its splits weighted by the children's covers.  A tree that does
 * not split on i adds nothing to row i, so only the features of each tree are conditioned on.
 * The bias row and column are 0 except Phi_bias,bias = phi_bias, so each row of the matrix
 * sums to phi.
 *
 * Threads and determinism: rows are split over OpenMP threads, each row written by one thread;
 * a row sums its trees in model order, so results do not depend on the thread count.  All
 * arithmetic is in double (XGBoost's is in float).
 */
#include "model.h"

#include "../data/dataset.h"
#include "../ensemble/ensemble.h"
#include "../core/mathx.h"

#include <math.h>
#include <string.h>

/* One tree of the score. */
typedef struct sh_tree {
    const gv_tree *t;
    const double *val; /* [n_nodes * n_val]: what a row at leaf l adds (leaves only are read) */
    double *owned;     /* val when computed here, else NULL */
    size_t n_val;      /* 1: val[l] goes to score group `group`; G: val[l G + g] to group g */
    size_t group;
    uint32_t *kid_off; /* [n_nodes + 1]: node k's children are kids[kid_off[k] .. kid_off[k+1]) */
    uint32_t *kids;
    double *zf;        /* [n_nodes]: r_k / r_parent(k) (root: 1) */
    double *mean;      /* [n_val]: E[v] = f_x(empty set) */
    int32_t *feats;    /* the distinct features split on, ascending */
    size_t n_feats;
    int depth;
} sh_tree;

struct gv_shap {
    size_t F, G;
    double *bias;      /* [G] */
    sh_tree *trees;
    size_t n_trees;
    int depth;         /* the deepest leaf over the trees */
    size_t max_feats;  /* the most features one tree splits on */
    int32_t *used;     /* the features any tree splits on, ascending */
    size_t n_used;
};

void gv_shap_free(gv_shap *s)
{
    if (!s) return;
    for (size_t k = 0; k < s->n_trees; k++) {
        sh_tree *st = &s->trees[k];
        gv_free(st->owned);
        gv_free(st->kid_off);
        gv_free(st->kids);
        gv_free(st->zf);
        gv_free(st->mean);
        gv_free(st->feats);
    }
    gv_free(s->trees);
    gv_free(s->bias);
    gv_free(s->used);
    gv_free(s);
}

size_t gv_shap_groups(const gv_shap *s) { return s->G; }

/* The children, cover fractions, mean and features of tree st->t (val set). */
static grove_status prepare_tree(sh_tree *st, size_t F, uint32_t *mark, unsigned char *fmark)
{
    const gv_tree *t = st->t;
    const size_t n = t->n_nodes, V = st->n_val;
    st->kid_off = gv_malloc_array(n + 1, sizeof *st->kid_off);
    st->zf = gv_malloc_array(n, sizeof *st->zf);
    st->mean = gv_calloc(V, sizeof *st->mean);
    double *m = gv_malloc_array(n, V * sizeof *m);
    size_t n_kids = 0;
    for (size_t k = 0; k < n; k++) {
        const gv_tree_node *nd = &t->nodes[k];
        if (nd->type == GV_NODE_LEAF) continue;
        n_kids += nd->type == GV_NODE_CAT_MULTI ? (size_t)nd->cat_len + 1 : 2;
    }
    st->kids = gv_malloc_array(n_kids ? n_kids : 1, sizeof *st->kids);
    if (!st->kid_off || !st->zf || !st->mean || !m || !st->kids) {
        gv_free(m);
        return gv_err_nomem("contributions: tree tables");
    }
    /* children: a multiway split's distinct children (the child map may repeat one), default last */
    size_t w = 0;
    for (size_t k = 0; k < n; k++) {
        const gv_tree_node *nd = &t->nodes[k];
        st->kid_off[k] = (uint32_t)w;
        if (nd->type == GV_NODE_LEAF) continue;
        if (nd->type == GV_NODE_CAT_MULTI) {
            for (uint32_t c = 0; c < nd->cat_len; c++) {
                uint32_t ch = t->cat_data[nd->cat_begin + c];
                if (ch == UINT32_MAX || ch == (uint32_t)nd->right || mark[ch] == (uint32_t)k + 1)
                    continue;
                mark[ch] = (uint32_t)k + 1;
                st->kids[w++] = ch;
            }
        } else {
            st->kids[w++] = (uint32_t)nd->left;
        }
        st->kids[w++] = (uint32_t)nd->right;
        fmark[nd->feature] = 1;
    }
    st->kid_off[n] = (uint32_t)w;
    /* zero fractions: r_c / r_k by weight, by row count where the node's weight is 0, evenly
     * where both are 0 (a node no training row reached) */
    st->zf[0] = 1;
    for (size_t k = 0; k < n; k++) {
        const gv_tree_node *nd = &t->nodes[k];
        const uint32_t a = st->kid_off[k], b = st->kid_off[k + 1];
        for (uint32_t j = a; j < b; j++) {
            const gv_tree_node *c = &t->nodes[st->kids[j]];
            double z = nd->weight > 0 ? c->weight / nd->weight
                     : nd->count > 0  ? c->count / nd->count
                                      : 1.0 / (double)(b - a);
            st->zf[st->kids[j]] = z;
        }
    }
    /* means bottom-up (children come after their parent) */
    int depth = 0;
    for (size_t k = n; k-- > 0;) {
        const gv_tree_node *nd = &t->nodes[k];
        double *mk = m + k * V;
        if (nd->type == GV_NODE_LEAF) {
            memcpy(mk, st->val + k * V, V * sizeof *mk);
            if (nd->depth > depth) depth = nd->depth;
            continue;
        }
        for (size_t v = 0; v < V; v++) mk[v] = 0;
        for (uint32_t j = st->kid_off[k]; j < st->kid_off[k + 1]; j++) {
            const uint32_t c = st->kids[j];
            for (size_t v = 0; v < V; v++) mk[v] += st->zf[c] * m[c * V + v];
        }
    }
    memcpy(st->mean, m, V * sizeof *m);
    gv_free(m);
    st->depth = depth;
    size_t nf = 0;
    for (size_t f = 0; f < F; f++) nf += fmark[f];
    st->feats = gv_malloc_array(nf ? nf : 1, sizeof *st->feats);
    if (!st->feats) return gv_err_nomem("contributions: tree features");
    for (size_t f = 0; f < F; f++)
        if (fmark[f]) {
            st->feats[st->n_feats++] = (int32_t)f;
            fmark[f] = 0;
        }
    return GROVE_OK;
}

/* The trees of the model's score with what each adds (owned: taken over, freed on failure). */
static grove_status add_tree(gv_shap *s, size_t *cap, const gv_tree *t, const double *val,
                             double *owned, size_t n_val, size_t group)
{
    if (s->n_trees == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        sh_tree *nt = gv_realloc_array(s->trees, c, sizeof *nt);
        if (!nt) {
            gv_free(owned);
            return gv_err_nomem("contributions: trees");
        }
        memset(nt + *cap, 0, (c - *cap) * sizeof *nt);
        s->trees = nt;
        *cap = c;
    }
    sh_tree *st = &s->trees[s->n_trees++];
    st->t = t;
    st->val = owned ? owned : val;
    st->owned = owned;
    st->n_val = n_val;
    st->group = group;
    return GROVE_OK;
}

static const gv_tree *tree_of(const gv_component *c)
{
    return c->vt == &gv_tree_component ? c->impl : NULL;
}

/* A table of n_nodes x K leaf shares (NULL: no memory). */
static double *leaf_table(const gv_tree *t, size_t K)
{
    return gv_calloc(t->n_nodes, K * sizeof(double));
}

/* Fills s's trees and bias from the model's root component. */
static grove_status collect(gv_shap *s, const grove_model *m, size_t *cap)
{
    const gv_component *root = &m->root;
    gv_gbdt_view gb;
    gv_bagging_view bg;
    gv_boost_view bo;
    const char *kinds = "contributions need a model whose score is a sum over trees (gbdt, "
                        "tree, id3, stump, bagging, forest or extra-trees of trees, adaboost, "
                        "adaboost.m1, samme, samme.r or adaboost.m2 of trees)";
    grove_status st = GROVE_OK;
    if (gv_gbdt_view_of(root, &gb)) {
        s->G = gb.n_groups;
        if (!(s->bias = gv_calloc(s->G, sizeof *s->bias))) return gv_err_nomem("contributions");
        memcpy(s->bias, gb.base, s->G * sizeof *s->bias);
        for (size_t k = 0; k < gb.n_rounds * gb.n_groups && st == GROVE_OK; k++)
            st = add_tree(s, cap, gb.trees[k], gb.trees[k]->values, NULL, 1, k % gb.n_groups);
        return st;
    }
    if (tree_of(root)) {
        const gv_tree *t = tree_of(root);
        s->G = (size_t)t->n_outputs;
        if (!(s->bias = gv_calloc(s->G, sizeof *s->bias))) return gv_err_nomem("contributions");
        return add_tree(s, cap, t, t->values, NULL, s->G, 0);
    }
    if (gv_bagging_view_of(root, &bg)) {
        const size_t K = bg.n_classes ? (size_t)bg.n_classes : 1, T = bg.n_members;
        const int hard = strcmp(bg.vote, "hard") == 0;
        s->G = K;
        if (!(s->bias = gv_calloc(s->G, sizeof *s->bias))) return gv_err_nomem("contributions");
        for (size_t m_ = 0; m_ < T; m_++)
            if (!tree_of(&bg.members[m_]))
                return gv_err(GROVE_ERR_ARG, "%s: member %zu of this %s is a %s", kinds, m_,
                              bg.mode, bg.members[m_].vt->kind);
        for (size_t m_ = 0; m_ < T && st == GROVE_OK; m_++) {
            const gv_tree *t = tree_of(&bg.members[m_]);
            double *v = leaf_table(t, K);
            if (!v) return gv_err_nomem("contributions: leaf table");
            /* the vote fractions or the mean: each member's output over T */
            for (size_t l = 0; l < t->n_nodes; l++) {
                if (t->nodes[l].type != GV_NODE_LEAF) continue;
                const double *h = t->values + l * K;
                if (hard)
                    v[l * K + gv_argmax(h, K)] = 1.0 / (double)T;
                else
                    for (size_t c = 0; c < K; c++) v[l * K + c] = h[c] / (double)T;
            }
            st = add_tree(s, cap, t, NULL, v, K, 0);
        }
        return st;
    }
    if (gv_boost_view_of(root, &bo)) {
        if (bo.n_classes == 0)
            return gv_err(GROVE_ERR_ARG, "%s; adaboost.r2 predicts a weighted median", kinds);
        const size_t K = (size_t)bo.n_classes;
        s->G = K;
        if (!(s->bias = gv_calloc(s->G, sizeof *s->bias))) return gv_err_nomem("contributions");
        for (size_t m_ = 0; m_ < bo.n_members; m_++)
            if (!tree_of(&bo.members[m_]))
                return gv_err(GROVE_ERR_ARG, "%s: member %zu of this %s is a %s", kinds, m_,
                              bo.variant, bo.members[m_].vt->kind);
        for (size_t m_ = 0; m_ < bo.n_members && st == GROVE_OK; m_++) {
            const gv_tree *t = tree_of(&bo.members[m_]);
            const double *src = bo.plaus && bo.plaus[m_] ? bo.plaus[m_] : t->values;
            double *v = leaf_table(t, K);
            if (!v) return gv_err_nomem("contributions: leaf table");
            for (size_t l = 0; l < t->n_nodes; l++)
                if (t->nodes[l].type == GV_NODE_LEAF)
                    gv_boost_member_score(root, m_, src + l * K, v + l * K);
            st = add_tree(s, cap, t, NULL, v, K, 0);
        }
        return st;
    }
    return gv_err(GROVE_ERR_ARG, "%s; this is a %s model", kinds, m->algo);
}

grove_status gv_shap_build(const grove_model *m, gv_shap **out)
{
    *out = NULL;
    gv_shap *s = gv_calloc(1, sizeof *s);
    if (!s) return gv_err_nomem("contributions");
    s->F = m->schema->n_features;
    size_t cap = 0;
    grove_status st = collect(s, m, &cap);
    uint32_t *mark = NULL;
    unsigned char *fmark = NULL, *umark = NULL;
    if (st == GROVE_OK) {
        size_t max_nodes = 1;
        for (size_t k = 0; k < s->n_trees; k++)
            if (s->trees[k].t->n_nodes > max_nodes) max_nodes = s->trees[k].t->n_nodes;
        mark = gv_calloc(max_nodes, sizeof *mark);
        fmark = gv_calloc(s->F ? s->F : 1, 1);
        umark = gv_calloc(s->F ? s->F : 1, 1);
        if (!mark || !fmark || !umark) st = gv_err_nomem("contributions");
    }
    for (size_t k = 0; k < s->n_trees && st == GROVE_OK; k++) {
        sh_tree *t = &s->trees[k];
        memset(mark, 0, t->t->n_nodes * sizeof *mark);
        st = prepare_tree(t, s->F, mark, fmark);
        if (st != GROVE_OK) break;
        if (t->depth > s->depth) s->depth = t->depth;
        if (t->n_feats > s->max_feats) s->max_feats = t->n_feats;
        for (size_t j = 0; j < t->n_feats; j++) umark[t->feats[j]] = 1;
    }
    if (st == GROVE_OK) {
        size_t nu = 0;
        for (size_t f = 0; f < s->F; f++) nu += umark[f];
        if (!(s->used = gv_malloc_array(nu ? nu : 1, sizeof *s->used)))
            st = gv_err_nomem("contributions");
        for (size_t f = 0; st == GROVE_OK && f < s->F; f++)
            if (umark[f]) s->used[s->n_used++] = (int32_t)f;
    }
    gv_free(mark);
    gv_free(fmark);
    gv_free(umark);
    if (st != GROVE_OK) {
        gv_shap_free(s);
        return st;
    }
    *out = s;
    return GROVE_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Algorithm 2
 * ------------------------------------------------------------------------------------------ */

typedef struct sh_path {
    int32_t f;     /* feature (-1: the root's placeholder) */
    double z, o;   /* zero and one fractions */
    double w;      /* permutation weight of the subsets of size i (element i) */
} sh_path;

/* What one walk of one tree for one row reads and writes. */
typedef struct sh_walk {
    const sh_tree *st;
    const float *x;   /* [F] the row (only the features the trees split on are read) */
    double *phi;      /* [G (F + 1)] */
    size_t F1;
    int cond;         /* 0: plain; 1: feature cond_f present; -1: absent */
    int32_t cond_f;
    const double *inv; /* [path length + 2]: inv[k] = 1 / k */
} sh_walk;

/* inv[k] = 1 / k for the path lengths of a walk (the recurrences below multiply by these
 * instead of dividing: a division's latency is on each loop's dependency chain). */
static void path_extend(sh_path *p, int d, double z, double o, int32_t f, const double *inv)
{
    p[d].f = f;
    p[d].z = z;
    p[d].o = o;
    p[d].w = d == 0 ? 1.0 : 0.0;
    const double r = inv[d + 1];
    for (int i = d - 1; i >= 0; i--) {
        p[i + 1].w += o * p[i].w * (double)(i + 1) * r;
        p[i].w = z * p[i].w * (double)(d - i) * r;
    }
}

static void path_unwind(sh_path *p, int d, int k, const double *inv)
{
    const double o = p[k].o, z = p[k].z, r = inv[d + 1];
    double next = p[d].w;
    if (o != 0) {
        const double io = (double)(d + 1) / o;
        for (int i = d - 1; i >= 0; i--) {
            const double tmp = p[i].w;
            p[i].w = next * io * inv[i + 1];
            next = tmp - p[i].w * z * (double)(d - i) * r;
        }
    } else {
        const double iz = (double)(d + 1) / z;
        for (int i = d - 1; i >= 0; i--) p[i].w = p[i].w * iz * inv[d - i];
    }
    for (int i = k; i < d; i++) {
        p[i].f = p[i + 1].f;
        p[i].z = p[i + 1].z;
        p[i].o = p[i + 1].o;
    }
}

/* The total permutation weight of the path with element k unwound. */
static double path_unwound_sum(const sh_path *p, int d, int k, const double *inv)
{
    const double o = p[k].o, z = p[k].z;
    double next = p[d].w, total = 0;
    if (o != 0) {
        const double io = (double)(d + 1) / o, zr = z * inv[d + 1];
        for (int i = d - 1; i >= 0; i--) {
            const double tmp = next * io * inv[i + 1];
            total += tmp;
            next = p[i].w - tmp * zr * (double)(d - i);
        }
    } else if (z != 0) {
        const double iz = (double)(d + 1) / z;
        for (int i = d - 1; i >= 0; i--) total += p[i].w * iz * inv[d - i];
    }
    return total;
}

/* Node `node`, reached with the parent's path parent[0..d] (d: its length - 1 before this
 * node's extension) and the parent split's fractions pz, po on feature pf; cf: the share of
 * the conditioned feature's weight (interactions). */
static void walk(const sh_walk *c, size_t node, int d, sh_path *parent, double pz, double po,
                 int32_t pf, double cf)
{
    if (cf == 0) return;
    const sh_tree *st = c->st;
    const gv_tree *t = st->t;
    sh_path *p = parent + d + 1;
    memcpy(p, parent, (size_t)(d + 1) * sizeof *p);
    if (c->cond == 0 || c->cond_f != pf) path_extend(p, d, pz, po, pf, c->inv);
    const gv_tree_node *n = &t->nodes[node];
    if (n->type == GV_NODE_LEAF) {
        const size_t V = st->n_val;
        const double *v = st->val + node * V;
        double *phi = c->phi + (V == 1 ? st->group * c->F1 : 0);
        for (int i = 1; i <= d; i++) {
            const double s = path_unwound_sum(p, d, i, c->inv) * (p[i].o - p[i].z) * cf;
            double *ph = phi + p[i].f;
            for (size_t g = 0; g < V; g++) ph[g * c->F1] += s * v[g];
        }
        return;
    }
    const int32_t f = n->feature;
    const size_t hot = gv_tree_child(t, node, c->x[f]);
    /* a feature met again: unwound, and extended below with both splits' fractions */
    double iz = 1, io = 1;
    int k = 0;
    while (k <= d && p[k].f != f) k++;
    if (k <= d) {
        iz = p[k].z;
        io = p[k].o;
        path_unwind(p, d, k, c->inv);
        d--;
    }
    double hot_cf = cf, cold_cf = cf;
    int cond_here = c->cond != 0 && f == c->cond_f;
    if (cond_here) d--; /* the conditioned feature never joins the path */
    for (uint32_t j = st->kid_off[node]; j < st->kid_off[node + 1]; j++) {
        const uint32_t kid = st->kids[j];
        const int is_hot = kid == hot;
        const double z = st->zf[kid] * iz, o = is_hot ? io : 0;
        double kcf = is_hot ? hot_cf : cold_cf;
        if (cond_here) kcf = c->cond > 0 ? (is_hot ? cf : 0) : cf * st->zf[kid];
        if (!cond_here && z == 0 && o == 0) continue; /* every path weight below is 0 */
        walk(c, kid, d + 1, p, z, o, f, kcf);
    }
}

/* Path elements a walk of trees of depth <= D over F features needs: the path of a node at
 * depth L has at most min(L, F) + 1 elements, copied once per level. */
static size_t path_len(int D, size_t F)
{
    size_t n = 0;
    for (int L = 0; L <= D + 1; L++) n += ((size_t)L < F ? (size_t)L : F) + 2;
    return n;
}

/* phi[G (F + 1)] of one row (x gathered). */
static void row_contrib(const gv_shap *s, const float *x, sh_path *path, const double *inv,
                        double *phi)
{
    const size_t F1 = s->F + 1;
    memset(phi, 0, s->G * F1 * sizeof *phi);
    for (size_t g = 0; g < s->G; g++) phi[g * F1 + s->F] = s->bias[g];
    sh_walk c = {.x = x, .phi = phi, .F1 = F1, .inv = inv};
    for (size_t k = 0; k < s->n_trees; k++) {
        const sh_tree *st = &s->trees[k];
        double *b = phi + (st->n_val == 1 ? st->group * F1 : 0) + s->F;
        for (size_t g = 0; g < st->n_val; g++) b[g * F1] += st->mean[g];
        c.st = st;
        walk(&c, 0, 0, path, 1, 1, -1, 1);
    }
}

/* The interaction matrices out[G (F + 1) (F + 1)] of one row; phi[G (F + 1)] its contributions,
 * on and off scratch of G (F + 1) doubles each. */
static void row_interactions(const gv_shap *s, const float *x, sh_path *path,
                             const double *inv, const double *phi, double *on, double *off,
                             double *out)
{
    const size_t F = s->F, F1 = F + 1, G = s->G;
    memset(out, 0, G * F1 * F1 * sizeof *out);
    sh_walk c = {.x = x, .F1 = F1, .inv = inv};
    for (size_t k = 0; k < s->n_trees; k++) {
        const sh_tree *st = &s->trees[k];
        const size_t g0 = st->n_val == 1 ? st->group : 0, ng = st->n_val;
        c.st = st;
        for (size_t a = 0; a < st->n_feats; a++) {
            const int32_t i = st->feats[a];
            for (size_t g = g0; g < g0 + ng; g++)
                for (size_t b = 0; b < st->n_feats; b++) {
                    on[g * F1 + (size_t)st->feats[b]] = 0;
                    off[g * F1 + (size_t)st->feats[b]] = 0;
                }
            c.cond_f = i;
            c.cond = 1;
            c.phi = on;
            walk(&c, 0, 0, path, 1, 1, -1, 1);
            c.cond = -1;
            c.phi = off;
            walk(&c, 0, 0, path, 1, 1, -1, 1);
            for (size_t g = g0; g < g0 + ng; g++) {
                double *row = out + (g * F1 + (size_t)i) * F1;
                for (size_t b = 0; b < st->n_feats; b++) {
                    const size_t j = (size_t)st->feats[b];
                    if ((int32_t)j != i) row[j] += (on[g * F1 + j] - off[g * F1 + j]) / 2;
                }
            }
        }
    }
    for (size_t g = 0; g < G; g++)
        for (size_t i = 0; i < F1; i++) {
            double *row = out + (g * F1 + i) * F1, sum = 0;
            for (size_t j = 0; j < F1; j++)
                if (j != i) sum += row[j];
            row[i] = phi[g * F1 + i] - sum;
        }
}

grove_status gv_shap_rows(const gv_shap *s, const grove_dataset *d, int interactions,
                          int n_threads, double *out)
{
    const size_t F1 = s->F + 1, G = s->G;
    const size_t per = interactions ? G * F1 * F1 : G * F1;
    const size_t plen = path_len(s->depth, s->F);
    const long n = (long)d->n_rows;
    const int nt = gv_threads(n_threads);
    int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (n > 64 && nt > 1)
#endif
    {
        float *x = gv_malloc_array(s->F ? s->F : 1, sizeof *x);
        sh_path *path = gv_malloc_array(plen, sizeof *path);
        const size_t n_inv = (size_t)s->depth + 3;
        double *inv = gv_malloc_array(n_inv, sizeof *inv);
        if (inv)
            for (size_t k = 1; k < n_inv; k++) inv[k] = 1.0 / (double)k;
        double *tmp = interactions ? gv_malloc_array(3 * G, F1 * sizeof *tmp) : NULL;
        int ok = x && path && inv && (!interactions || tmp);
        if (!ok) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            failed = 1;
        }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
        for (long i = 0; i < n; i++) {
            if (!ok) continue;
            for (size_t u = 0; u < s->n_used; u++)
                x[s->used[u]] = gv_value(d, (size_t)s->used[u], (size_t)i);
            double *o = out + (size_t)i * per;
            if (!interactions) {
                row_contrib(s, x, path, inv, o);
                continue;
            }
            row_contrib(s, x, path, inv, tmp);
            row_interactions(s, x, path, inv, tmp, tmp + G * F1, tmp + 2 * G * F1, o);
        }
        gv_free(inv);
        gv_free(tmp);
        gv_free(path);
        gv_free(x);
    }
    if (failed) return gv_err_nomem("contributions: per-thread buffers");
    return GROVE_OK;
}

void gv_shap_margin(const gv_shap *s, const grove_dataset *d, int n_threads, double *out)
{
    const size_t G = s->G;
    const long n = (long)d->n_rows;
    const int nt = gv_threads(n_threads);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (n > 2048 && nt > 1)
#endif
    for (long i = 0; i < n; i++) {
        double *o = out + (size_t)i * G;
        for (size_t g = 0; g < G; g++) o[g] = s->bias[g];
        for (size_t k = 0; k < s->n_trees; k++) {
            const sh_tree *st = &s->trees[k];
            const size_t l = gv_tree_leaf(st->t, d, (size_t)i);
            if (st->n_val == 1)
                o[st->group] += st->val[l];
            else
                for (size_t g = 0; g < G; g++) o[g] += st->val[l * G + g];
        }
    }
}
