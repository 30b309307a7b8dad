#!/usr/bin/python3
"""LightGBM text models converted to grove (`grove convert --from lightgbm`) predict as LightGBM.

LightGBM has no Debian package, so the reference is an evaluator of the text format written
here from LightGBM's Tree::NumericalDecision / CategoricalDecision (v4): NaN read as 0 unless
the missing type is NaN; missing type Zero sends |x| <= 1e-35f (and NaN) to the default side,
NaN to it under type NaN; x <= threshold (a double) left; a categorical split sends NaN and
negative values right, else category int(x) left when its bit is set.  The fixtures in
tests/data/convert/lgb_*.txt are random trees in LightGBM's v3 text format (every missing type
and default side, thresholds at +-1e-35 and 0, categorical bitsets of one and two words,
single-leaf trees): binary (sigmoid 1 and 0.7), multiclass, regression, and random-forest mode
(average_output).  The inputs are floats, with the thresholds themselves, zeros, values
within 1e-35 of zero, NaN, and category codes beyond the bitsets.  Probabilities must agree
within 1e-9 and regression values within 1e-12 relative.
Then models trained by the real LightGBM (tests/data/convert/lightgbm, made with its CLI by
make_fixtures.py there): grove's predictions, raw scores and contributions (--contrib) of the
converted models against LightGBM's own (task=predict, predict_raw_score, predict_contrib),
within 1e-6.
"""
import math
import os
import sys
import tempfile

import numpy as np

import fixtures
from fixtures import SRC, check, grove

tmp = tempfile.mkdtemp()
Z = float(np.float32(1e-35))


def parse(path):
    head, trees, cur = {}, [], None
    for line in open(path):
        line = line.rstrip("\n")
        if line == "end of trees":
            break
        if "=" not in line:
            if line and cur is None:
                head[line] = ""
            continue
        k, v = line.split("=", 1)
        if k == "Tree":
            cur = {}
            trees.append(cur)
        elif cur is None:
            head[k] = v
        else:
            cur[k] = v
    return head, trees


def nums(t, k, conv=float):
    return [conv(x) for x in t[k].split()] if k in t and t[k] else []


def tree_value(t, x):
    leaves = nums(t, "leaf_value")
    if int(t["num_leaves"]) == 1:
        return leaves[0]
    feat, thr = nums(t, "split_feature", int), nums(t, "threshold")
    dt, lc, rc = nums(t, "decision_type", int), nums(t, "left_child", int), nums(t, "right_child", int)
    cb, ct = nums(t, "cat_boundaries", int), nums(t, "cat_threshold", int)
    node = 0
    while node >= 0:
        v = float(x[feat[node]])
        d = dt[node]
        if d & 1:  # categorical
            if math.isnan(v) or int(v) < 0:
                go_left = False
            else:
                c, j = int(v), int(thr[node])
                words = ct[cb[j]:cb[j + 1]]
                go_left = c // 32 < len(words) and (words[c // 32] >> (c % 32)) & 1 == 1
        else:
            mt = (d >> 2) & 3
            if math.isnan(v) and mt != 2:
                v = 0.0
            if (mt == 1 and -Z <= v <= Z) or (mt == 2 and math.isnan(v)):
                go_left = bool(d & 2)
            else:
                go_left = v <= thr[node]
        node = lc[node] if go_left else rc[node]
    return leaves[~node]


def predict(path, X):
    head, trees = parse(path)
    G = int(head["num_tree_per_iteration"])
    F = np.zeros((len(X), G))
    for i, x in enumerate(X):
        for k, t in enumerate(trees):
            F[i, k % G] += tree_value(t, x)
    if "average_output" in head:
        F /= len(trees) // G
    obj = head["objective"].split()
    if obj[0] == "binary":
        s = float(obj[1].split(":")[1])
        return 1 / (1 + np.exp(-s * F[:, 0])), "proba"
    if obj[0] == "multiclass":
        e = np.exp(F - F.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True), "proba"
    return F[:, 0], "value"


def inputs(path, n, rng):
    head, trees = parse(path)
    d = int(head["max_feature_idx"]) + 1
    cat = set()
    special = [0.0, -0.0, Z, -Z, 1e-36, -1e-36, 2e-35, -2e-35, np.nan]
    for t in trees:
        for f, dt, th in zip(nums(t, "split_feature", int), nums(t, "decision_type", int),
                             nums(t, "threshold")):
            if dt & 1:
                cat.add(f)
            else:
                special.append(th)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    for i in range(n):
        for f in range(d):
            if f in cat:
                X[i, f] = np.nan if rng.random() < 0.05 else int(rng.integers(0, 70))
            elif rng.random() < 0.4:
                X[i, f] = float(np.float32(special[rng.integers(0, len(special))]))
    return X, cat


rng = np.random.default_rng(5)
D = os.path.join(SRC, "tests", "data", "convert")
for name in ["lgb_binary", "lgb_binary_sigmoid", "lgb_multiclass", "lgb_regression", "lgb_rf"]:
    src = os.path.join(D, name + ".txt")
    model = os.path.join(tmp, name + ".grove")
    grove("convert", "--from", "lightgbm", src, "-o", model)
    X, cat = inputs(src, 3000, rng)
    ref, kind = predict(src, X)
    head, _ = parse(src)
    names = head["feature_names"].split()
    data = os.path.join(tmp, name + ".csv")
    with open(data, "w") as f:
        f.write(",".join(names) + "\n")
        for row in X:
            f.write(",".join("" if np.isnan(v) else (str(int(v)) if j in cat else repr(v))
                             for j, v in enumerate(row)) + "\n")
    out = os.path.join(tmp, name + ".out")
    grove("predict", model, data, "-o", out, *(["--proba"] if kind == "proba" else []), "-q")
    with open(out) as f:
        cols = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f]
    if kind == "proba":
        K = ref.shape[1] if ref.ndim == 2 else 2
        got = np.array([[float(r[cols.index(f"p_{k}")]) for k in range(K)] for r in rows])
        want = ref if ref.ndim == 2 else np.stack([1 - ref, ref], axis=1)
        err = np.abs(got - want).max()
        check(err <= 1e-9, f"{name}: max |p - reference| {err:.3g} > 1e-9")
    else:
        got = np.array([float(r[0]) for r in rows])
        err = np.max(np.abs(got - ref) / np.maximum(1, np.abs(ref)))
        check(err <= 1e-12, f"{name}: max relative |y - reference| {err:.3g} > 1e-12")
    print(f"{name:20s} max difference {err:.3g}")

# ---- models trained by the real LightGBM (its CLI, v4; tests/data/convert/lightgbm, made by
# make_fixtures.py there, docs/convert.md): LightGBM's own predictions of the test rows are the
# truth -- probabilities or values (task=predict), raw scores (predict_raw_score) and
# contributions (predict_contrib: per class, one column per feature and the expected value) --
# and grove's converted model must give them within 1e-6 (measured: printed below)
R = os.path.join(D, "lightgbm")


def table(path):
    return np.array([[float(v) for v in line.split()] for line in open(path)])


for name in ["binary", "multiclass", "regression", "regression_zero"]:
    src = os.path.join(R, name + ".txt")
    model = os.path.join(tmp, "real_" + name + ".grove")
    grove("convert", "--from", "lightgbm", src, "-o", model)
    head, _ = parse(src)
    names = head["feature_names"].split()
    K = int(head["num_tree_per_iteration"])
    data = os.path.join(tmp, "real_" + name + ".csv")
    with open(os.path.join(R, name + "_test.csv")) as f, open(data, "w") as g:
        cols = f.readline().strip().split(",")
        check(cols[1:] == names, f"{name}: the test file's columns are the model's features")
        g.write(",".join(cols[1:]) + "\n")
        for line in f:  # without the label; missing cells empty
            g.write(",".join("" if v == "nan" else v for v in line.strip().split(",")[1:]) + "\n")
    out = os.path.join(tmp, "real_" + name + ".out")
    grove("predict", model, data, "-o", out, "--contrib", "-q",
          *(["--proba"] if head["objective"].split()[0] != "regression" else []))
    with open(out) as f:
        ocols = f.readline().strip().split(",")
        rows = np.array([[float(v) if v else np.nan for v in line.strip().split(",")]
                         for line in f])
    pred, raw, contrib = (table(os.path.join(R, name + ext)) for ext in (".pred", ".raw", ".contrib"))
    if head["objective"].startswith("binary"):
        got = rows[:, [ocols.index("p_1")]]
    elif K > 1:
        got = rows[:, [ocols.index(f"p_{k}") for k in range(K)]]
    else:
        got = rows[:, [ocols.index("label")]]
    err_pred = np.abs(got - pred).max()
    check(err_pred <= 1e-6, f"{name}: max |prediction - LightGBM's| {err_pred:.3g} > 1e-6")
    # grove's contribution columns, group by group, in LightGBM's order (features, then bias)
    phi = np.zeros((len(rows), K * (len(names) + 1)))
    for k in range(K):
        pre = f"phi_{k}_" if K > 1 else "phi_"
        for j, fname in enumerate(names + ["bias"]):
            if pre + fname in ocols:  # a feature no split reads has no column: 0
                phi[:, k * (len(names) + 1) + j] = rows[:, ocols.index(pre + fname)]
    err_contrib = np.abs(phi - contrib).max()
    check(err_contrib <= 1e-6, f"{name}: max |contribution - LightGBM's| {err_contrib:.3g} > 1e-6")
    sums = phi.reshape(len(rows), K, len(names) + 1).sum(axis=2)
    err_raw = np.abs(sums - raw).max()
    check(err_raw <= 1e-6, f"{name}: max |raw score - LightGBM's| {err_raw:.3g} > 1e-6")
    print(f"LightGBM CLI {name:16s} max difference: prediction {err_pred:.3g}, raw score "
          f"{err_raw:.3g}, contributions {err_contrib:.3g}")

# the rest of grove on a converted model with categorical splits
model = os.path.join(tmp, "lgb_binary.grove")
grove("export", model, "--lang", "c", "-o", os.path.join(tmp, "m.c"))
grove("report", model, "-o", os.path.join(tmp, "r.html"))
check("Column_3" in grove("importance", model), "importance names LightGBM's features")
check("categorical" in grove("info", model), "info shows the categorical feature")

sys.exit(fixtures.finish("py_lightgbm_convert"))
