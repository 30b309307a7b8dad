#!/usr/bin/python3
"""grove's gbdt objectives poisson, tweedie, gamma, quantile, lambdarank and rank:pairwise
against XGBoost 1.7 on the same data: test quality and training time, one thread each.

usage: bench/objectives/run.py [N_TRAIN [REPEAT]]   (defaults 80000 2; GROVE_LIB picks
       libgrove.so, default build/libgrove.so)

Data (numpy default_rng, seeded): N_TRAIN training and N_TRAIN / 4 test rows, 10 features;
  poisson   y ~ Poisson(mu), log mu = a smooth function of 4 features
  tweedie   compound Poisson-gamma with that mu (a third of the labels 0), rho = 1.5
  gamma     y ~ Gamma(shape 2, mean mu)
  quantile  y = f(x) + heavy-tailed noise (Student t, 3 df); alpha = 0.5, XGBoost 1.7 has no
            quantile objective: its reg:absoluteerror (the median, leaves refit to the
            residuals' median as grove's) is the peer
  lambdarank, rank:pairwise  queries of 20 rows (N_TRAIN / 20 of them), grades 0-4 from a noisy
            function; XGBoost's rank:ndcg and rank:pairwise
Both libraries: 100 rounds of depth-6 trees, learning rate 0.1, lambda 1, 256 bins, one thread,
the initial score the training label mean (median for quantile / absolute error); grove through
its Python package (the same library as the CLI), XGBoost through its own (xgb.train on a
DMatrix built before the clock starts; grove's Dataset likewise).  Quality is computed here by
one formula on both libraries' test predictions: the mean Poisson deviance, Tweedie negative
log-likelihood (rho 1.5), gamma deviance, pinball loss (all lower is better), NDCG@10 (higher
is better).  Time: the best of REPEAT training runs, the two libraries alternating, in wall
and CPU seconds (user + system of this process: one thread, so the work itself, which moves
less than wall time on a shared machine).  Prints a Markdown table with the ratios grove /
XGBoost (< 1: grove faster).
"""
import math
import os
import sys
import time

import numpy as np
import xgboost as xgb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from grove.core import Dataset, Model, Params  # noqa: E402

ROUNDS, ETA, DEPTH = 100, 0.1, 6


def gen(kind, n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    f = 0.5 * X[:, 0] - 0.4 * X[:, 1] + 0.3 * np.sin(2 * X[:, 2]) + 0.25 * X[:, 3] * X[:, 0]
    if kind == "poisson":
        return X, rng.poisson(np.exp(f)).astype(float), None
    if kind == "tweedie":
        mu = np.exp(f)
        n_claims = rng.poisson(mu / 1.5)
        return X, np.array([rng.gamma(2.0, 0.75, k).sum() for k in n_claims]), None
    if kind == "gamma":
        return X, rng.gamma(2.0, np.exp(f) / 2.0), None
    if kind == "quantile":
        return X, 3 * f + rng.standard_t(3, size=n), None
    s = f + 0.8 * X[:, 4] + 0.6 * rng.normal(size=n)
    y = np.digitize(s, [-0.5, 0.5, 1.2, 2.0]).astype(float)
    return X, y, np.repeat(np.arange(n // 20), 20)


def ndcg10(scores, y, qid):
    out = []
    for q in np.unique(qid):
        s, r = scores[qid == q], y[qid == q]
        disc = 1 / np.log2(np.arange(2, min(10, len(r)) + 2))
        dcg = np.sum((2 ** r[np.argsort(-s, kind="stable")][:10] - 1) * disc)
        idcg = np.sum((2 ** np.sort(r)[::-1][:10] - 1) * disc)
        out.append(dcg / idcg if idcg > 0 else 1.0)
    return float(np.mean(out))


def quality(kind, y, p, qid):
    if kind == "poisson":
        return float(np.mean(2 * (np.where(y > 0, y * np.log(np.maximum(y, 1e-300) / p), 0) - (y - p))))
    if kind == "tweedie":
        r = 1.5
        return float(np.mean(-y * p ** (1 - r) / (1 - r) + p ** (2 - r) / (2 - r)))
    if kind == "gamma":
        return float(np.mean(2 * (y / p - np.log(y / p) - 1)))
    if kind == "quantile":
        d = y - p
        return float(np.mean(np.maximum(0.5 * d, -0.5 * d)))
    return ndcg10(p, y, qid)


CASES = [  # kind, grove objective, XGBoost objective, quality name
    ("poisson", "poisson", "count:poisson", "Poisson deviance"),
    ("tweedie", "tweedie", "reg:tweedie", "Tweedie nloglik, rho 1.5"),
    ("gamma", "gamma", "reg:gamma", "gamma deviance"),
    ("quantile", "quantile", "reg:absoluteerror", "pinball loss, alpha 0.5"),
    ("lambdarank", "lambdarank", "rank:ndcg", "NDCG@10 (higher better)"),
    ("pairwise", "rank:pairwise", "rank:pairwise", "NDCG@10 (higher better)"),
]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 80000
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    print("load before: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    rows = []
    for kind, gobj, xobj, qname in CASES:
        X, y, qid = gen(kind, n, 1)
        Xt, yt, qidt = gen(kind, n // 4, 2)
        if kind == "gamma":
            y, yt = np.maximum(y, 1e-6), np.maximum(yt, 1e-6)
        ranking = qid is not None
        base = float(np.median(y)) if kind == "quantile" else float(np.mean(y))
        gp = {"algo": "gbdt", "objective": gobj, "rounds": ROUNDS, "learning_rate": ETA,
              "max_depth": DEPTH, "lambda": 1, "max_bins": 256, "threads": 1,
              "task": "regression"}
        xp = {"objective": xobj, "eta": ETA, "max_depth": DEPTH, "lambda": 1, "max_bin": 256,
              "tree_method": "hist", "nthread": 1}
        if not ranking:
            gp["base_score"] = base
            xp["base_score"] = base
        if kind == "tweedie":
            gp["tweedie_variance_power"] = xp["tweedie_variance_power"] = 1.5
        if kind == "quantile":
            gp["quantile_alpha"] = 0.5
        gd = Dataset(X, y, None, Params({"task": "regression"}), qid=qid)
        gdt = Dataset(Xt, like=gd)
        xd = xgb.DMatrix(X, label=y, nthread=1)
        if ranking:
            xd.set_group(np.bincount(qid.astype(int)))
        xdt = xgb.DMatrix(Xt, nthread=1)
        tg, tx, cg, cx = [], [], [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            bx = xgb.train(xp, xd, ROUNDS)
            tx.append(time.perf_counter() - t0)
            cx.append(time.process_time() - c0)
            t0, c0 = time.perf_counter(), time.process_time()
            mg = Model.train(gd, Params(gp))
            tg.append(time.perf_counter() - t0)
            cg.append(time.process_time() - c0)
        qg = quality(kind, yt, mg.predict(gdt, 1).ravel(), qidt)
        qx = quality(kind, yt, bx.predict(xdt), qidt)
        rows.append((gobj, xobj, qname, qg, qx, min(tg), min(tx), min(cg), min(cx)))
        print("%s: grove %.4f %.2f s (CPU %.2f s), XGBoost %.4f %.2f s (CPU %.2f s)"
              % (gobj, qg, min(tg), min(cg), qx, min(tx), min(cx)), flush=True)
    print("load after: %.2f %.2f %.2f" % os.getloadavg())
    print()
    print("| objective | XGBoost 1.7 peer | test quality | grove | XGBoost | grove train s "
          "(CPU) | XGBoost train s (CPU) | time ratio grove / XGBoost: wall, CPU |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for gobj, xobj, qname, qg, qx, tg, tx, cg, cx in rows:
        print("| %s | %s | %s | %.4f | %.4f | %.2f (%.2f) | %.2f (%.2f) | %.2f, %.2f |"
              % (gobj, xobj, qname, qg, qx, tg, cg, tx, cx, tg / tx, cg / cx))


if __name__ == "__main__":
    main()
