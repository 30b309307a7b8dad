#!/usr/bin/python3
"""grove's ranking objectives lambdarank and rank:pairwise against XGBoost 1.7's rank:ndcg and
rank:pairwise (DMatrix.set_group), and the metrics ndcg and map against a reference here.

Generated data (seeded): queries of 5 to 40 rows, 6 features, relevance grades 0..4 from a
latent score (a nonlinear function of the features plus noise, cut at quantiles of the query);
300 training queries, 200 test queries, written as LIBSVM with qid:n.  Both libraries: 60
rounds, learning rate 0.1, depth 4, lambda 1, min_child_weight 1 (XGBoost: tree_method hist,
255 bins).  Quality: the test set's mean NDCG@10 over queries, computed here by one formula on
both libraries' predictions; grove's within 0.02 of XGBoost's (or above it).  The objectives
differ in detail (grove's lambdarank is LightGBM's, with truncation 30 and normalization;
XGBoost 1.7 samples its pairs), hence the tolerance.
Also: the training log's ndcg (eval_at=10) and map (eval_metric=map@5) equal the reference on grove's
own training predictions (1e-9), and so do `grove eval --json`'s mean and per-query ndcg@10
and map@10 on the test set (1e-12); the per-query reference equals scikit-learn's ndcg_score on
gains 2^y - 1; a query whose rows are not contiguous is refused with its line.
"""
import json
import os
import sys
import tempfile

import numpy as np
import xgboost as xgb
from sklearn.metrics import ndcg_score

import fixtures
from fixtures import check, grove

tmp = tempfile.mkdtemp()
ROUNDS, ETA, DEPTH, NF = 60, 0.1, 4, 6
rng = np.random.default_rng(7)


def make(n_queries):
    X, y, qid = [], [], []
    for q in range(n_queries):
        m = int(rng.integers(5, 41))
        x = rng.normal(size=(m, NF))
        s = x[:, 0] + 0.5 * x[:, 1] ** 2 - 0.7 * x[:, 2] * x[:, 3] + 0.5 * rng.normal(size=m)
        cuts = np.quantile(s, [0.5, 0.75, 0.9, 0.97])
        X.append(x)
        y.append(np.searchsorted(cuts, s).astype(float))
        qid += [q] * m
    return np.vstack(X), np.concatenate(y), np.array(qid)


def write_libsvm(path, X, y, qid):
    with open(path, "w") as f:
        for i in range(len(y)):
            feats = " ".join(f"{j + 1}:{X[i, j]!r}" for j in range(X.shape[1]))
            f.write(f"{int(y[i])} qid:{qid[i]} {feats}\n")


def groups(qid):
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    return list(zip(starts, np.r_[starts[1:], len(qid)]))


def ndcg_at(s, y, k):
    o = np.lexsort((np.arange(len(s)), -s))
    disc = 1 / np.log2(np.arange(len(s)) + 2)
    g = 2.0 ** y - 1
    dcg = float(np.sum(g[o][:k] * disc[:k]))
    idcg = float(np.sum(np.sort(g)[::-1][:k] * disc[:k]))
    return dcg / idcg if idcg > 0 else 1.0


def map_at(s, y, k):
    o = np.lexsort((np.arange(len(s)), -s))
    rel = y[o] > 0
    if not rel.any():
        return 1.0
    hits = np.cumsum(rel)
    r = np.arange(len(s))
    return float(np.sum((hits / (r + 1))[rel & (r < k)]) / rel.sum())


def mean_metric(f, s, y, qid, k):
    return float(np.mean([f(s[a:b], y[a:b], k) for a, b in groups(qid)]))


def grove_predict(model, path):
    out = grove("predict", model, path, "-q").splitlines()
    return np.array([float(v) for v in out[1:]])


def info_value(model, key):
    info = grove("info", model, "--json")
    at = info.find(f'"{key}":')
    check(at >= 0, f"grove info lists {key}")
    if at < 0:
        return float("nan")
    rest = info[at + len(key) + 3:]
    return float(rest.split(",")[0].split("}")[0])


Xtr, ytr, qtr = make(300)
Xte, yte, qte = make(200)
tr, te = os.path.join(tmp, "train.libsvm"), os.path.join(tmp, "test.libsvm")
write_libsvm(tr, Xtr, ytr, qtr)
write_libsvm(te, Xte, yte, qte)

# the reference is scikit-learn's NDCG with gains 2^y - 1 (no ties in random scores)
s = rng.normal(size=30)
yy = rng.integers(0, 4, size=30).astype(float)
check(abs(ndcg_at(s, yy, 10) - ndcg_score([2 ** yy - 1], [s], k=10)) < 1e-12,
      "reference NDCG@10 equals scikit-learn's ndcg_score on gains 2^y - 1")

rows = []
for obj, xobj in (("lambdarank", "rank:ndcg"), ("rank:pairwise", "rank:pairwise")):
    model = os.path.join(tmp, obj.replace(":", "_") + ".grove")
    grove("train", tr, "-o", model, "--algo", "gbdt", "--rounds", str(ROUNDS), "--set",
          f"objective={obj}", "--set", f"learning_rate={ETA}", "--set", f"max_depth={DEPTH}",
          "--set", "train_metric=true", "--threads", "2", "-q")
    gte, gtr = grove_predict(model, te), grove_predict(model, tr)
    dtr = xgb.DMatrix(Xtr, label=ytr)
    dtr.set_group([b - a for a, b in groups(qtr)])
    bst = xgb.train({"objective": xobj, "eta": ETA, "max_depth": DEPTH, "lambda": 1,
                     "min_child_weight": 1, "tree_method": "hist", "max_bin": 255, "seed": 0,
                     "nthread": 2}, dtr, ROUNDS)
    xte = bst.predict(xgb.DMatrix(Xte))
    gs, xs = mean_metric(ndcg_at, gte, yte, qte, 10), mean_metric(ndcg_at, xte, yte, qte, 10)
    rows.append((obj, gs, xs))
    check(gs >= xs - 0.02, f"{obj}: test NDCG@10 {gs:.4f} vs XGBoost {xobj} {xs:.4f}")
    lv = info_value(model, "final_train_ndcg")
    ref = mean_metric(ndcg_at, gtr, ytr, qtr, 10)
    check(abs(lv - ref) <= 1e-9, f"{obj}: the log's train ndcg {lv} vs the reference {ref}")
    if obj == "lambdarank":  # grove eval: the means and every query's values
        ev = json.loads(grove("eval", model, te, "--json", "-q"))
        check(ev["queries"] == len(groups(qte)), "grove eval --json counts the queries")
        check(abs(ev["ndcg@10"] - gs) <= 1e-12, f"grove eval ndcg@10 {ev['ndcg@10']} vs {gs}")
        mref = mean_metric(map_at, gte, yte, qte, 10)
        check(abs(ev["map@10"] - mref) <= 1e-12, f"grove eval map@10 {ev['map@10']} vs {mref}")
        pq = [ndcg_at(gte[a:b], yte[a:b], 10) for a, b in groups(qte)]
        check(max(abs(v["ndcg@10"] - r) for v, r in zip(ev["per_query"], pq)) <= 1e-12,
              "grove eval --json: every query's ndcg@10 equals the reference")

# map@5 in the log
model = os.path.join(tmp, "map.grove")
grove("train", tr, "-o", model, "--algo", "gbdt", "--rounds", "10", "--set",
      "objective=lambdarank", "--set", "eval_metric=map@5", "--set", "train_metric=true", "-q")
lv = info_value(model, "final_train_map")
ref = mean_metric(map_at, grove_predict(model, tr), ytr, qtr, 5)
check(abs(lv - ref) <= 1e-9, f"the log's train map@5 {lv} vs the reference {ref}")

# eval_metric=ndcg@3 is eval_metric=ndcg with eval_at=3
m3a, m3b = os.path.join(tmp, "a3.grove"), os.path.join(tmp, "b3.grove")
grove("train", tr, "-o", m3a, "--algo", "gbdt", "--rounds", "3", "--set", "objective=lambdarank",
      "--set", "eval_metric=ndcg@3", "--set", "train_metric=true", "-q")
grove("train", tr, "-o", m3b, "--algo", "gbdt", "--rounds", "3", "--set", "objective=lambdarank",
      "--set", "eval_at=3", "--set", "train_metric=true", "-q")
check(info_value(m3a, "final_train_ndcg") == info_value(m3b, "final_train_ndcg"),
      "eval_metric=ndcg@3 is eval_at=3")
try:
    grove("train", tr, "-o", m3a, "--algo", "gbdt", "--set", "eval_metric=rmse@3", "-q")
    check(False, "eval_metric=rmse@3 refused")
except RuntimeError as e:
    check("ndcg@K, map@K" in str(e), f"eval_metric=rmse@3 message: {e}")

# thread counts give the same model
m1, m4 = os.path.join(tmp, "t1.grove"), os.path.join(tmp, "t4.grove")
for m, t in ((m1, "1"), (m4, "4")):
    grove("train", tr, "-o", m, "--algo", "gbdt", "--rounds", "5", "--set",
          "objective=lambdarank", "--threads", t, "-q")
check(open(m1, "rb").read() == open(m4, "rb").read(), "lambdarank: 1 and 4 threads, same model")

# contiguity and presence of query groups
bad = os.path.join(tmp, "bad.libsvm")
with open(bad, "w") as f:
    f.write("1 qid:1 1:1\n0 qid:2 1:2\n1 qid:1 1:3\n")
try:
    grove("train", bad, "-o", os.path.join(tmp, "x.grove"), "--algo", "gbdt", "--set",
          "objective=lambdarank", "-q")
    check(False, "non-contiguous query refused")
except RuntimeError as e:
    check("bad.libsvm:3: qid:1 comes back" in str(e), f"non-contiguous query message: {e}")

print(f"{'objective':<16}{'grove NDCG@10':>14}{'XGBoost':>10}")
for obj, gs, xs in rows:
    print(f"{obj:<16}{gs:>14.4f}{xs:>10.4f}")
sys.exit(fixtures.finish("py_xgboost_ranking"))
