#!/usr/bin/python3
"""The peers of bench/gbdt/run.sh: XGBoost (tree_method=hist) or scikit-learn's
HistGradientBoostingClassifier on the same CSV files and settings as grove.

usage: peers.py xgboost|sklearn TRAIN.csv[.gz] TEST.csv[.gz] ROUNDS THREADS
Prints one line: load_s train_s metric predict_rows_per_s  (metric: AUC for two classes, else
accuracy).  Threads: XGBoost's nthread; scikit-learn through OMP_NUM_THREADS (set by run.sh).
"""
import sys
import time

import numpy as np
import pandas as pd

tool, tr, te, rounds, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
t0 = time.perf_counter()
dtr = pd.read_csv(tr, dtype=np.float32)
dte = pd.read_csv(te, dtype=np.float32)
ytr, Xtr = dtr.iloc[:, 0].to_numpy().astype(int), dtr.iloc[:, 1:].to_numpy()
yte, Xte = dte.iloc[:, 0].to_numpy().astype(int), dte.iloc[:, 1:].to_numpy()
K = int(max(ytr.max(), yte.max())) + 1
t1 = time.perf_counter()
if tool == "xgboost":
    import xgboost as xgb
    params = {"tree_method": "hist", "max_bin": 255, "max_depth": 6, "eta": 0.1, "lambda": 1,
              "nthread": threads, "base_score": 0.5}
    params.update({"objective": "binary:logistic"} if K == 2 else
                  {"objective": "multi:softprob", "num_class": K})
    dm = xgb.DMatrix(Xtr, label=ytr, nthread=threads)
    bst = xgb.train(params, dm, rounds)
    t2 = time.perf_counter()
    dmt = xgb.DMatrix(Xte, nthread=threads)
    t3 = time.perf_counter()
    p = bst.predict(dmt)
    t4 = time.perf_counter()
    proba = p if K == 2 else p
else:
    from sklearn.ensemble import HistGradientBoostingClassifier
    m = HistGradientBoostingClassifier(max_iter=rounds, learning_rate=0.1, max_depth=None,
                                       max_leaf_nodes=63, max_bins=255, l2_regularization=1.0,
                                       early_stopping=False, random_state=0)
    m.fit(Xtr, ytr)
    t2 = time.perf_counter()
    t3 = time.perf_counter()
    pp = m.predict_proba(Xte)
    t4 = time.perf_counter()
    proba = pp[:, 1] if K == 2 else pp
if K == 2:
    from sklearn.metrics import roc_auc_score
    metric = roc_auc_score(yte, proba)
else:
    metric = float(np.mean(np.argmax(proba, axis=1) == yte))
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {metric:.5f} {len(yte) / (t4 - t3):.0f}")
