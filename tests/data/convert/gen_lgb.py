# Writes the LightGBM text-model fixtures lgb_*.txt of this folder: random trees in LightGBM v3 text
# format (seeded, so the files are reproducible); tests/py_lightgbm_convert.py checks them.
import numpy as np
rng = np.random.default_rng(11)

def tree(idx, n_feat, cat_feats, n_leaves, out, shrink):
    I = n_leaves - 1
    # build a random binary tree: internal nodes 0..I-1 in creation order, leaves ~j
    left = [None]*I; right = [None]*I
    slots = [(0, 'root')]
    nxt_int = 1; nxt_leaf = 0
    # grow: each internal node gets two children, choose randomly internal until count reached
    import collections
    queue = collections.deque([0] if I else [])
    remaining = I - 1
    while queue:
        n = queue.popleft()
        for side in (0, 1):
            if remaining > 0 and rng.random() < 0.7:
                c = nxt_int; nxt_int += 1; remaining -= 1; queue.append(c)
            else:
                c = None
            if side == 0: left[n] = c
            else: right[n] = c
    # remaining internal nodes left over: attach where a None is
    while remaining > 0:
        for n in range(nxt_int):
            for arr in (left, right):
                if arr[n] is None and remaining > 0:
                    arr[n] = nxt_int; queue.append(nxt_int); nxt_int += 1; remaining -= 1
    for n in range(I):
        if left[n] is None: left[n] = ~nxt_leaf; nxt_leaf += 1
        if right[n] is None: right[n] = ~nxt_leaf; nxt_leaf += 1
    if I == 0: nxt_leaf = 1
    assert nxt_leaf == n_leaves, (nxt_leaf, n_leaves)
    feats = []; thr = []; dt = []; cb = [0]; ct = []
    for n in range(I):
        f = int(rng.integers(0, n_feat)); feats.append(f)
        if f in cat_feats:
            words = int(rng.integers(1, 3))
            bits = [int(rng.integers(0, 2**32)) & int(rng.integers(0, 2**32)) for _ in range(words)]
            if words == 1: bits[0] &= 0xFF
            ct += bits; thr.append(str(len(cb) - 1)); cb.append(len(ct))
            dt.append(1 | (int(rng.integers(0, 2)) << 1) | (int(rng.choice([0, 2])) << 2))
        else:
            mt = int(rng.choice([0, 1, 2]))
            dl = int(rng.integers(0, 2))
            r = rng.random()
            t = (1.0000000180025095e-35 if r < 0.15 else -1.0000000180025095e-35 if r < 0.25 else
                 0.0 if r < 0.3 else float(np.round(rng.normal(), 6)) if r < 0.6 else float(rng.normal()))
            thr.append(repr(t)); dt.append((dl << 1) | (mt << 2))
    lv = rng.normal(0, 0.3, n_leaves)
    lc = rng.integers(1, 50, n_leaves)
    out.append(f"Tree={idx}")
    out.append(f"num_leaves={n_leaves}")
    out.append(f"num_cat={len(cb)-1}")
    if I:
        out.append("split_feature=" + " ".join(map(str, feats)))
        out.append("split_gain=" + " ".join(f"{g:.6g}" for g in rng.random(I) * 10))
        out.append("threshold=" + " ".join(thr))
        out.append("decision_type=" + " ".join(map(str, dt)))
        out.append("left_child=" + " ".join(map(str, left)))
        out.append("right_child=" + " ".join(map(str, right)))
    out.append("leaf_value=" + " ".join(repr(float(v)) for v in lv))
    out.append("leaf_weight=" + " ".join(str(float(c)) for c in lc))
    out.append("leaf_count=" + " ".join(map(str, lc)))
    if I:
        out.append("internal_value=" + " ".join("0" for _ in range(I)))
        out.append("internal_weight=" + " ".join("0" for _ in range(I)))
        out.append("internal_count=" + " ".join("1" for _ in range(I)))
    if len(cb) > 1:
        out.append("cat_boundaries=" + " ".join(map(str, cb)))
        out.append("cat_threshold=" + " ".join(map(str, ct)))
    out.append("is_linear=0")
    out.append(f"shrinkage={shrink}")
    out.append("")
    out.append("")

def model(path, objective, num_class, ntpi, n_iter, n_feat, cat_feats, extra_head=()):
    out = ["tree", "version=v3", f"num_class={num_class}", f"num_tree_per_iteration={ntpi}",
           "label_index=0", f"max_feature_idx={n_feat-1}", f"objective={objective}", *extra_head,
           "feature_names=" + " ".join(f"Column_{i}" for i in range(n_feat)),
           "feature_infos=" + " ".join("0:1:2:3:4:5" if i in cat_feats else "[-3:3]" for i in range(n_feat)),
           "tree_sizes=" + " ".join("100" for _ in range(n_iter*ntpi)), ""]
    for t in range(n_iter * ntpi):
        tree(t, n_feat, cat_feats, int(rng.integers(1, 12)) if t % 5 else int(rng.integers(2, 12)), out, 0.1)
    out += ["end of trees", "", "feature_importances:", "Column_0=3", "", "parameters:", "[boosting: gbdt]", "end of parameters", ""]
    open(path, "w").write("\n".join(out))

import os
D = os.path.dirname(os.path.abspath(__file__)) + "/"
model(D + "lgb_binary.txt", "binary sigmoid:1", 1, 1, 20, 5, {3})
model(D + "lgb_binary_sigmoid.txt", "binary sigmoid:0.7", 1, 1, 8, 4, set())
model(D + "lgb_multiclass.txt", "multiclass num_class:3", 3, 3, 8, 5, {4})
model(D + "lgb_regression.txt", "regression", 1, 1, 15, 4, {1})
model(D + "lgb_rf.txt", "regression", 1, 1, 6, 4, set(), extra_head=("average_output",))
