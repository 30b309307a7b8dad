#!/usr/bin/python3
"""Contributions (TreeSHAP) of one XGBoost model, converted: grove against XGBoost's own
Booster.predict(pred_contribs=True).

usage: bench/predict/contrib_converted.py [N_ROWS [REPEAT [THREADS...]]]   (defaults 20000 2, threads 1 2)
       GROVE (the CLI, default build/grove) converts; GROVE_LIB picks libgrove.so (default
       build/libgrove.so); BENCH_TMP keeps the generated data between runs.

XGBoost 1.7 (hist, 100 rounds of depth-6 trees, eta 0.1, binary:logistic) is trained on
100k x 28 rows of bench/common/gen_binary.py (seed 1) and saved as JSON; `grove convert --from
xgboost` makes the grove model, which the Python package loads.  On N_ROWS rows (seed 2) each
thread count times, REPEAT times in alternation (XGBoost, grove, XGBoost, grove, ...): XGBoost's
Booster.predict(DMatrix(X), pred_contribs=True) on a fresh DMatrix, and grove's
Model.predict_contrib (in memory, the C API's grove_model_predict_contrib).  Prints the best wall
and CPU seconds (user + system of this process, all threads) of each, the ratios grove /
XGBoost (< 1: grove faster), the load average before and after, and the largest difference
between the two libraries' contributions (the same model: float against double arithmetic).
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
from grove.core import Dataset, Model  # noqa: E402

GROVE = os.environ.get("GROVE", os.path.join(ROOT, "build", "grove"))


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contrib import data  # noqa: E402  (the same generated rows as contrib.py)


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def main():
    a = sys.argv[1:]
    n_rows = int(a[0]) if a else 20000
    repeat = int(a[1]) if len(a) > 1 else 2
    threads = [int(t) for t in a[2:]] or [1, 2]
    tmp = os.environ.get("BENCH_TMP", tempfile.gettempdir())
    os.makedirs(tmp, exist_ok=True)
    Xtr, ytr = data(100000, 1, tmp)
    X, _ = data(n_rows, 2, tmp)
    print("load before: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    jpath = os.path.join(tmp, "xgb_shap.json")
    gpath = os.path.join(tmp, "xgb_shap.grove")
    b = xgb.train({"max_depth": 6, "eta": 0.1, "tree_method": "hist", "nthread": 2,
                   "objective": "binary:logistic", "max_bin": 256},
                  xgb.DMatrix(Xtr, label=ytr, nthread=2), 100)
    b.save_model(jpath)
    subprocess.run([GROVE, "convert", "--from", "xgboost", jpath, "-o", gpath], check=True,
                   stdout=subprocess.DEVNULL)
    b = xgb.Booster(model_file=jpath)
    m = Model.load(gpath)
    d = Dataset(X, like=m)
    print("contributions of %d rows, 100 trees of depth 6 (XGBoost's model, converted), best "
          "of %d alternating runs" % (n_rows, repeat))
    for t in threads:
        b.set_param({"nthread": t})
        best = {"xgb": [1e300, 1e300], "grove": [1e300, 1e300]}
        px = pg = None
        for _ in range(repeat):
            w, c, px = timed(lambda: b.predict(xgb.DMatrix(X, nthread=t), pred_contribs=True))
            best["xgb"] = [min(best["xgb"][0], w), min(best["xgb"][1], c)]
            w, c, pg = timed(lambda: m.predict_contrib(d, False, t))
            best["grove"] = [min(best["grove"][0], w), min(best["grove"][1], c)]
        (wx, cx), (wg, cg) = best["xgb"], best["grove"]
        diff = np.abs(pg[:, 0] - px).max()
        print("  %d thread%s: XGBoost %.2f s wall, %.2f s CPU; grove %.2f s wall, %.2f s CPU; "
              "grove / XGBoost: wall %.2f, CPU %.2f; largest |difference| %.2g"
              % (t, "" if t == 1 else "s", wx, cx, wg, cg, wg / wx, cg / cx, diff), flush=True)
    print("load after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
