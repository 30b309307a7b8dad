#!/usr/bin/python3
"""grove's gbdt against XGBoost (tree_method=hist, max_bin=255), same parameters.

1. The first tree on a simple case (integer features with few distinct values, so both
   libraries bin every distinct value alone): same structure (split features and partitions),
   leaf values and gains (XGBoost's gain is twice grove's Newton gain) to float precision.
   Then 10 rounds: gain and cover importances equal XGBoost's get_score to float precision.
2. Public datasets (examples/data/*_train.csv / _test.csv): 50 rounds, learning rate 0.3,
   depth 4, lambda 1, base_score 0.5 (regression: the training mean, for both): test accuracy
   within max(2 points, 2 test rows) of XGBoost's, RMSE within 10 %.  Prints the table.
3. High-cardinality categorical columns (30-400 levels, a random effect per level, few rows
   per level deep in a tree): test AUC of depth-6 trees with categorical partitions (LightGBM's
   regularization, grove's defaults) within 0.01 of XGBoost's (enable_categorical,
   partitions); here 0.888 against 0.896.  Unregularized partitions, G / (H + lambda) over
   every category, give 0.866.
Uses Debian's /usr/bin/python3 with python3-xgboost.
"""
import csv
import json
import math
import os
import sys
import tempfile

import numpy as np
import xgboost as xgb

import fixtures
from fixtures import DATA, check, grove, load


tmp = tempfile.mkdtemp()

# ---- 1. the first tree, node by node --------------------------------------------------------
rng = np.random.RandomState(3)
n = 600
X = rng.randint(0, 8, size=(n, 4)).astype(float)
y = ((X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 1.5, n)) > 5).astype(int)
path = os.path.join(tmp, "simple.csv")
with open(path, "w") as f:
    f.write("label,a,b,c,d\n")
    for i in range(n):
        f.write(f"{y[i]}," + ",".join(str(int(v)) for v in X[i]) + "\n")
model = os.path.join(tmp, "simple.model")
grove("train", path, "-o", model, "--algo", "gbdt", "--rounds", "1", "--set", "max_depth=3",
      "--set", "learning_rate=1", "--set", "lambda=1", "--set", "base_score=0.5",
      "--set", "min_child_weight=1", "-q")
with open(model) as f:
    doc = json.load(f)


def find_trees(o):
    if isinstance(o, dict):
        if o.get("kind") == "gbdt":
            return o["trees"]
        for v in o.values():
            t = find_trees(v)
            if t is not None:
                return t
    return None


PACKED = {"type", "feature", "depth", "default_left", "threshold", "bin_split", "left", "right",
          "cat_begin", "cat_len", "gain", "weight", "count", "values", "cat_data"}


def unpack(tree):
    """A tree object with its packed arrays (format 1.1: one string of space-separated JSON
    numbers per field, node types as words) turned into lists."""
    return {k: ([t if k == "type" else json.loads(t) for t in v.split(" ")] if v else [])
            if k in PACKED else v for k, v in tree.items()}


gt = unpack(find_trees(doc)[0])
bst = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_bin": 255,
                 "max_depth": 3, "eta": 1, "lambda": 1, "base_score": 0.5,
                 "min_child_weight": 1, "nthread": 2},
                xgb.DMatrix(X, label=y), num_boost_round=1)
xt = json.loads(bst.get_dump(dump_format="json", with_stats=True)[0])


def compare(g, x, path="root"):
    """g: grove node index; x: XGBoost node dict."""
    if "leaf" in x:
        check(gt["type"][g] == "leaf", f"{path}: grove has a split, XGBoost a leaf")
        if gt["type"][g] == "leaf":
            check(abs(gt["values"][g] - x["leaf"]) <= 1e-5 * max(1, abs(x["leaf"])),
                  f"{path}: leaf {gt['values'][g]} vs XGBoost {x['leaf']}")
        return 1
    check(gt["type"][g] == "num", f"{path}: grove has a leaf, XGBoost splits on {x['split']}")
    if gt["type"][g] != "num":
        return 0
    f = int(x["split"][1:])
    check(gt["feature"][g] == f, f"{path}: feature {gt['feature'][g]} vs XGBoost {f}")
    # XGBoost: x < c goes left; grove: x <= t.  Integer values: same partition iff
    # floor(t) == ceil(c) - 1.
    c, t = x["split_condition"], gt["threshold"][g]
    check(math.floor(t) == math.ceil(c) - 1, f"{path}: threshold {t} vs XGBoost x < {c}")
    check(abs(2 * gt["gain"][g] - x["gain"]) <= 1e-4 * max(1, x["gain"]),
          f"{path}: gain 2 x {gt['gain'][g]} vs XGBoost {x['gain']}")
    kids = {k["nodeid"]: k for k in x["children"]}
    return 1 + compare(gt["left"][g], kids[x["yes"]], path + "/L") + \
        compare(gt["right"][g], kids[x["no"]], path + "/R")


n_nodes = compare(0, xt)
check(n_nodes == gt["n_nodes"] if isinstance(gt.get("n_nodes"), int) else True,
      f"node count {n_nodes} vs grove {gt.get('n_nodes')}")
print(f"first tree: {n_nodes} nodes compared with XGBoost")

# ---- 1b. gain and cover importances: XGBoost's get_score on the same 10 rounds ------------
model = os.path.join(tmp, "simple10.model")
grove("train", path, "-o", model, "--algo", "gbdt", "--rounds", "10", "--set", "max_depth=3",
      "--set", "learning_rate=0.3", "--set", "lambda=1", "--set", "base_score=0.5",
      "--set", "min_child_weight=1", "-q")
rows = list(csv.DictReader(grove("importance", model, "--csv").splitlines()))
bst = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_bin": 255,
                 "max_depth": 3, "eta": 0.3, "lambda": 1, "base_score": 0.5,
                 "min_child_weight": 1, "nthread": 2},
                xgb.DMatrix(X, label=y, feature_names=list("abcd")), num_boost_round=10)
for kind in ("gain", "cover"):
    want = bst.get_score(importance_type=kind)
    for r in rows:
        g, x = float(r[kind]), want.get(r["feature"], 0.0)
        check(abs(g - x) <= 1e-5 * max(1.0, abs(x)), f"{kind} importance of {r['feature']}: "
              f"grove {g} vs XGBoost {x}")
print("gain and cover importances of 10 rounds: as XGBoost's get_score")

# ---- 2. accuracy / RMSE on public datasets --------------------------------------------------
ROUNDS, ETA, DEPTH = 50, 0.3, 4
print(f"{'dataset':<24}{'objective':<10}{'grove':>9}{'xgboost':>9}")
for name in ("breast_cancer", "twonorm", "ionosphere", "sonar", "pima_indians_diabetes2",
             "iris", "wine", "glass", "digits", "boston_housing", "diabetes"):
    tr, te = os.path.join(DATA, name + "_train.csv"), os.path.join(DATA, name + "_test.csv")
    Xtr, ytr_s = load(tr)
    Xte, yte_s = load(te)
    regression = name in ("boston_housing", "diabetes")
    model = os.path.join(tmp, name + ".model")
    args = ["train", tr, "-o", model, "--algo", "gbdt", "--rounds", str(ROUNDS), "--set",
            f"learning_rate={ETA}", "--set", f"max_depth={DEPTH}", "--set", "lambda=1",
            "--threads", "2", "-q"]
    params = {"tree_method": "hist", "max_bin": 255, "max_depth": DEPTH, "eta": ETA,
              "lambda": 1, "nthread": 2}
    if regression:
        ytr = np.array([float(v) for v in ytr_s])
        yte = np.array([float(v) for v in yte_s])
        base = float(np.mean(ytr))
        args += ["--set", f"base_score={base!r}"]
        params.update(objective="reg:squarederror", base_score=base)
        bst = xgb.train(params, xgb.DMatrix(Xtr, label=ytr), ROUNDS)
        xs = float(np.sqrt(np.mean((bst.predict(xgb.DMatrix(Xte)) - yte) ** 2)))
        grove(*args)
        gs = float(grove("eval", model, te, "--json").split('"rmse":')[1].split(",")[0].split("}")[0])
        print(f"{name:<24}{'rmse':<10}{gs:>9.4f}{xs:>9.4f}")
        check(gs <= 1.10 * xs, f"{name}: rmse {gs} vs XGBoost {xs}")
        continue
    classes = sorted(set(ytr_s), key=lambda v: (0, float(v)) if v.replace(".", "").isdigit() else (1, v))
    code = {c: i for i, c in enumerate(classes)}
    ytr = np.array([code[v] for v in ytr_s])
    K = len(classes)
    args += ["--set", "base_score=0.5"]
    if K == 2:
        params.update(objective="binary:logistic", base_score=0.5)
    else:
        params.update(objective="multi:softprob", num_class=K, base_score=0.5)
    bst = xgb.train(params, xgb.DMatrix(Xtr, label=ytr), ROUNDS)
    p = bst.predict(xgb.DMatrix(Xte))
    pred = (p > 0.5).astype(int) if K == 2 else np.argmax(p, axis=1)
    xs = float(np.mean([classes[k] == yte_s[i] for i, k in enumerate(pred)]))
    grove(*args)
    gs = float(grove("eval", model, te, "--json").split('"accuracy":')[1].split(",")[0])
    print(f"{name:<24}{'accuracy':<10}{gs:>9.4f}{xs:>9.4f}")
    tol = max(0.02, 2.0 / len(yte_s)) + 1e-9
    check(gs >= xs - tol, f"{name}: accuracy {gs} vs XGBoost {xs} (tolerance {tol:.4f})")

# ---- 3. high-cardinality categorical columns -----------------------------------------------
rng = np.random.RandomState(7)
levels = [30, 80, 150, 250, 400]
effects = [rng.normal(0, 0.7, L) for L in levels]


def cat_data(n):
    C = np.column_stack([rng.randint(0, L, n) for L in levels])
    Z = rng.normal(0, 1, (n, 3))
    s = sum(e[C[:, j]] for j, e in enumerate(effects)) + Z[:, 0] - 0.5 * Z[:, 1] * Z[:, 2]
    return C, Z, (rng.uniform(size=n) < 1 / (1 + np.exp(-2 * s))).astype(int)


paths = []
for part, n in (("train", 20000), ("test", 5000)):
    C, Z, yy = cat_data(n)
    paths.append((os.path.join(tmp, f"cat_{part}.csv"), C, Z, yy))
    with open(paths[-1][0], "w") as f:
        f.write("label," + ",".join(f"c{j}" for j in range(len(levels))) + ",z0,z1,z2\n")
        for i in range(n):
            f.write(f"{yy[i]}," + ",".join(f"L{v}" for v in C[i]) + "," +
                    ",".join(f"{v:.6g}" for v in Z[i]) + "\n")
(tr, Ctr, Ztr, ytr), (te, Cte, Zte, yte) = paths
model = os.path.join(tmp, "cat.model")
grove("train", tr, "-o", model, "--algo", "gbdt", "--rounds", "60", "--set", "learning_rate=0.1",
      "--set", "max_depth=6", "--threads", "2", "-q")
gauc = float(grove("eval", model, te, "--json").split('"auc":')[1].split(",")[0].split("}")[0])


def frame(C, Z):
    import pandas as pd
    d = pd.DataFrame({f"c{j}": pd.Categorical(C[:, j], categories=range(L)) for j, L in enumerate(levels)})
    for j in range(3):
        d[f"z{j}"] = Z[:, j]
    return d


bst = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_bin": 255, "eta": 0.1,
                 "max_depth": 6, "lambda": 1, "max_cat_to_onehot": 1, "nthread": 2},
                xgb.DMatrix(frame(Ctr, Ztr), label=ytr, enable_categorical=True), 60)
from sklearn.metrics import roc_auc_score
xauc = roc_auc_score(yte, bst.predict(xgb.DMatrix(frame(Cte, Zte), enable_categorical=True)))
print(f"categorical, 30-400 levels: test AUC grove {gauc:.4f}, XGBoost {xauc:.4f}")
check(gauc >= xauc - 0.01, f"categorical partitions: AUC {gauc} vs XGBoost {xauc}")

sys.exit(fixtures.finish("py_xgboost_gbdt"))
