#!/usr/bin/python3
"""The Python package's overhead, measured (target: fit from numpy within 5% of the CLI's training
on the same data in memory; predicting 1M rows into numpy at least as fast as XGBoost).

usage: bench.py DATA.csv [REPS]      (DATA: bench/common/gen_binary.py's 1M x 28 set)

1. fit: `grove train DATA --algo gbdt` reports its training time apart from loading the file
   ("load X s, train Y s"); GradientBoostingClassifier.fit(X, y) on the same rows already in a
   numpy array (float64, C order) is timed whole (array -> dataset copy, training, model).  The
   two models must predict bit-identically (same data, seed, parameters; the files differ only
   in the feature names: the CSV's header against numpy's f0..).  Alternated, REPS each,
   medians and the ratio python / CLI.  On a busy machine the two whole timings are noisy, so
   fit's own cost is also timed in-process: fit minus the grove_train call inside it (the
   call the CLI makes), i.e. what the package adds.
2. fit's own cost in-process, and CPU time in one process: grove_train on the dataset the library
   loads from the CSV (the CLI's path) against fit(numpy); see the comments in main().
3. predict: predict_proba on all rows into numpy, grove against xgboost.XGBClassifier trained
   with the same shape (100 trees of depth 6, hist, 256 bins) on the same array; medians.
Both use every core.  Prints markdown rows.
"""
import os
import ctypes
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import grove  # noqa: E402
import grove.core  # noqa: E402
import xgboost  # noqa: E402

GROVE = os.environ.get("GROVE", os.path.join(ROOT, "build", "grove"))
ROUNDS, DEPTH = 100, 6


def main():
    path = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    df = pd.read_csv(path, float_precision="round_trip")
    y = df.pop("label").to_numpy()
    X = np.ascontiguousarray(df.to_numpy(dtype=np.float64))
    n, p = X.shape
    cli, py, inner = [], [], []
    train = grove.core.Model.train.__func__

    def timed_train(cls, *a):     # grove_train inside fit, the call the CLI makes
        t0 = time.perf_counter()
        m = train(cls, *a)
        inner.append(time.perf_counter() - t0)
        return m
    grove.core.Model.train = classmethod(timed_train)
    tmp = tempfile.mkdtemp()
    model = os.path.join(tmp, "cli.model")
    est = None
    for _ in range(reps):
        out = subprocess.run([GROVE, "train", path, "-o", model, "--algo", "gbdt", "--rounds",
                              str(ROUNDS), "--set", "max_depth=%d" % DEPTH, "--seed", "0"],
                             check=True, capture_output=True, text=True).stdout
        cli.append(float(re.search(r"train ([0-9.]+) s", out).group(1)))
        est = grove.GradientBoostingClassifier(n_estimators=ROUNDS, max_depth=DEPTH,
                                               random_state=0)
        t0 = time.perf_counter()
        est.fit(X, y)
        py.append(time.perf_counter() - t0)
    cli_est = grove.GradientBoostingClassifier().load_model(model)
    same = cli_est.predict_proba(X[:100000]).tobytes() == est.predict_proba(X[:100000]).tobytes()
    c, q = statistics.median(cli), statistics.median(py)
    over = statistics.median([a - b for a, b in zip(py, inner)])
    print("| fit gbdt %d trees depth %d, %d x %d | CLI train %.3f s | Python fit %.3f s | "
          "python/CLI %.3f | same predictions: %s |" % (ROUNDS, DEPTH, n, p, c, q, q / c, same))
    print("| fit's own cost (fit minus its grove_train call: checks, labels, array copy) | "
          "%.3f s | %.1f %% of the CLI's train time | | |" % (over, 100 * over / c))

    # 3. The same in one process by CPU time (user + system, all threads; OMP_WAIT_POLICY=passive
    # set by run.sh so idle threads sleep instead of spinning): the CLI's path is the library
    # loading the CSV (grove_dataset_load, as `grove train` does) and then grove_train on it;
    # fit's is the numpy array through the package.  CPU time is what a busy machine blurs
    # least; alternated, REPS each.
    from grove._lib import lib, check
    lib.grove_dataset_load.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.POINTER(ctypes.c_void_p)]
    params = grove.core.Params({"algo": "gbdt", "rounds": ROUNDS, "max_depth": DEPTH,
                                "seed": 0, "threads": 0})
    h = ctypes.c_void_p()
    check(lib.grove_dataset_load(path.encode(), params.handle, None, ctypes.byref(h)))

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    ccpu, pcpu = [], []
    for _ in range(reps):
        c0 = cpu()
        m = ctypes.c_void_p()
        check(lib.grove_train(h, None, params.handle, ctypes.byref(m)))
        ccpu.append(cpu() - c0)
        lib.grove_model_free(m)
        e = grove.GradientBoostingClassifier(n_estimators=ROUNDS, max_depth=DEPTH,
                                             random_state=0)
        c0 = cpu()
        e.fit(X, y)
        pcpu.append(cpu() - c0)
    lib.grove_dataset_free(h)
    c, q = statistics.median(ccpu), statistics.median(pcpu)
    print("| CPU time, one process: grove_train on the CSV-loaded dataset vs fit(numpy) | "
          "%.3f s | %.3f s | python/CLI %.3f | |" % (c, q, q / c))

    xgb = xgboost.XGBClassifier(n_estimators=ROUNDS, max_depth=DEPTH, tree_method="hist",
                                max_bin=256, learning_rate=0.3, n_jobs=os.cpu_count())
    xgb.fit(X, y)
    tg, tx = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        pg = est.predict_proba(X)
        tg.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        px = xgb.predict_proba(X)
        tx.append(time.perf_counter() - t0)
    g_, x_ = statistics.median(tg), statistics.median(tx)
    assert pg.shape == px.shape == (n, 2)
    print("| predict_proba %d rows into numpy | grove %.3f s (%.2fM rows/s) | XGBoost %.3f s "
          "(%.2fM rows/s) | XGBoost/grove %.2f |" % (n, g_, n / g_ / 1e6, x_, n / x_ / 1e6,
                                                     x_ / g_))


if __name__ == "__main__":
    main()
