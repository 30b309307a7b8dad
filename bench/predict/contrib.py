#!/usr/bin/python3
"""Contributions (TreeSHAP) of a gbdt against XGBoost's Booster.predict(pred_contribs=True).

usage: bench/predict/contrib.py [N_TRAIN [N_ROWS [THREADS [ROUNDS [REPEAT]]]]]
       (defaults 100000 100000 2 100 3; GROVE_LIB picks libgrove.so, else build/libgrove.so)

Data: bench/common/gen_binary.py (28 features), N_TRAIN training rows (seed 1) and N_ROWS rows
to explain (seed 2).  grove: gbdt, ROUNDS rounds of depth-6 trees, eta 0.1, through the Python
package (Model.predict_contrib, in memory); XGBoost: hist, the same settings, nthread THREADS,
Booster.predict(DMatrix(X), pred_contribs=True) on a fresh DMatrix each time.  Prints, best of
REPEAT, wall seconds and CPU seconds (user + system of this process, all threads) for each, the
two ratios, the load average before and after, and the largest |sum of contributions - margin|
for both (local accuracy).  Interactions: the same on the first N_ROWS / 100 rows.
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import xgboost as xgb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import grove  # noqa: E402
from grove.core import Dataset  # noqa: E402


def data(n, seed, tmp):
    path = os.path.join(tmp, "d%d_%d.csv" % (n, seed))
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/common/gen_binary.py"), path,
                        str(n), str(seed)], check=True)
    a = np.loadtxt(path, delimiter=",", skiprows=1)
    return a[:, 1:].copy(), a[:, 0].astype(int)


def best(fn, repeat):
    w, c, out = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        w.append(time.perf_counter() - t0)
        c.append(time.process_time() - c0)
    return min(w), min(c), out


def main():
    a = [int(v) for v in sys.argv[1:]]
    n_train, n_rows, threads, rounds, repeat = (a + [100000, 100000, 2, 100, 3][len(a):])[:5]
    tmp = os.environ.get("BENCH_TMP", tempfile.gettempdir())
    Xtr, ytr = data(n_train, 1, tmp)
    X, _ = data(n_rows, 2, tmp)
    print("load before: %.2f %.2f %.2f" % os.getloadavg())

    b = xgb.train({"max_depth": 6, "eta": 0.1, "tree_method": "hist", "nthread": threads,
                   "objective": "binary:logistic", "max_bin": 255},
                  xgb.DMatrix(Xtr, label=ytr, nthread=threads), rounds)
    g = grove.GradientBoostingClassifier(n_estimators=rounds, learning_rate=0.1, max_depth=6,
                                         n_jobs=threads).fit(Xtr, ytr)
    m = g._model
    d = Dataset(X.astype(np.float32), like=m)

    wx, cx, px = best(lambda: b.predict(xgb.DMatrix(X, nthread=threads), pred_contribs=True),
                      repeat)
    wg, cg, pg = best(lambda: m.predict_contrib(d, False, threads), repeat)
    mx = b.predict(xgb.DMatrix(X, nthread=threads), output_margin=True)
    mg = m.predict_margin(d, threads)[:, 0]
    print("contributions, %d rows x %d trees of depth 6, %d threads:" % (n_rows, rounds, threads))
    print("  XGBoost %.3f s wall, %.3f s CPU; grove %.3f s wall, %.3f s CPU; "
          "grove / XGBoost: wall %.2f, CPU %.2f"
          % (wx, cx, wg, cg, wg / wx, cg / cx))
    print("  local accuracy: XGBoost %.3g (float), grove %.3g"
          % (np.abs(px.sum(1) - mx).max(), np.abs(pg[:, 0].sum(1) - mg).max()))

    k = max(1, n_rows // 100)
    Xs = X[:k]
    ds = Dataset(Xs.astype(np.float32), like=m)
    wx, cx, _ = best(lambda: b.predict(xgb.DMatrix(Xs, nthread=threads),
                                       pred_interactions=True), repeat)
    wg, cg, _ = best(lambda: m.predict_contrib(ds, True, threads), repeat)
    print("interactions, %d rows:" % k)
    print("  XGBoost %.3f s wall, %.3f s CPU; grove %.3f s wall, %.3f s CPU; "
          "grove / XGBoost: wall %.2f, CPU %.2f"
          % (wx, cx, wg, cg, wg / wx, cg / cx))
    print("load after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
