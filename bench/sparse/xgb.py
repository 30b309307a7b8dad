#!/usr/bin/python3
"""XGBoost on the same LIBSVM file as grove (bench/sparse/run.sh): load the file into a DMatrix
(its sparse CSR), then train a random forest or a gbdt with the hist method; prints the phase
times.  Peak memory is measured outside, by /usr/bin/time.
usage: xgb.py FILE forest|gbdt THREADS [TREE_METHOD]   (default exact: hist keeps a histogram of
every feature per node, 1.35M x 256 bins, and ran out of memory here)"""
import sys
import time

import numpy as np
import xgboost as xgb

path, algo, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
method = sys.argv[4] if len(sys.argv) > 4 else "exact"
t0 = time.time()
d = xgb.DMatrix(path + "?format=libsvm")
d.set_label((d.get_label() > 0).astype(np.float32))  # labels -1/+1 -> 0/1
t1 = time.time()
common = {"objective": "binary:logistic", "tree_method": method, "nthread": threads, "seed": 0}
if method == "hist":
    common["max_bin"] = 255
if algo == "forest":
    # a random forest as XGBoost documents it: parallel trees, one round, no shrinkage; rows
    # drawn without replacement (XGBoost has no bootstrap), sqrt(F) features per node
    p = dict(common, num_parallel_tree=10, learning_rate=1.0, subsample=0.632,
             colsample_bynode=float(np.sqrt(d.num_col()) / d.num_col()), max_depth=20,
             reg_lambda=0.0, min_child_weight=1e-6)
    bst = xgb.train(p, d, num_boost_round=1)
else:
    p = dict(common, max_depth=6, learning_rate=0.3)
    bst = xgb.train(p, d, num_boost_round=20)
t2 = time.time()
acc = float(((bst.predict(d) > 0.5) == (d.get_label() > 0.5)).mean())
print("xgboost %s (%s): %d x %d, load %.2f s, train %.2f s, training accuracy %.4f"
      % (algo, method, d.num_row(), d.num_col(), t1 - t0, t2 - t1, acc))
