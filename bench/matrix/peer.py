#!/usr/bin/python3
"""The Python peers of bench/matrix/run.sh, run the way a user runs them: one process trains
and saves a model file, another loads it, predicts class probabilities and writes them to CSV.

usage: peer.py train TOOL WORKLOAD TRAIN.csv[.gz] MODEL N THREADS
       peer.py predict TOOL MODEL TEST.csv[.gz] OUT.csv THREADS
TOOL: xgboost | sklearn.  WORKLOAD: gbdt-d6, gbdt-63L, forest, bagging, adaboost (N: rounds,
trees or members).  Prints the seconds of the fit (train) or of predict + write (predict);
the file reading is outside those and inside the whole-process time that run.sh measures.
Settings mirror grove's in run.sh: 255 bins, learning rate 0.1, lambda 1; depth 6 level by
level, or 63 leaves best first (XGBoost lossguide with min_child_weight 0.001; scikit-learn's
HistGradientBoostingClassifier with its defaults, min_samples_leaf 20); forests and bagging of
unpruned trees; AdaBoost SAMME with stumps.  Probabilities are written as pandas writes
floats (shortest round-trip text).
"""
import os
import pickle
import sys
import time

import numpy as np
import pandas as pd


def load(path):
    d = pd.read_csv(path, dtype=np.float32)
    return d.iloc[:, 1:].to_numpy(), d.iloc[:, 0].to_numpy().astype(int)


def train(tool, workload, path, model, n, threads):
    X, y = load(path)
    K = int(y.max()) + 1
    t0 = time.perf_counter()
    if tool == "xgboost":
        import xgboost as xgb
        p = {"tree_method": "hist", "max_bin": 255, "eta": 0.1, "lambda": 1, "nthread": threads}
        if workload == "gbdt-d6":
            p["max_depth"] = 6
        elif workload == "gbdt-63L":
            p.update(grow_policy="lossguide", max_leaves=63, max_depth=0, min_child_weight=0.001)
        else:
            raise SystemExit("xgboost: no workload " + workload)
        p.update({"objective": "binary:logistic"} if K == 2 else
                 {"objective": "multi:softprob", "num_class": K})
        bst = xgb.train(p, xgb.DMatrix(X, label=y, nthread=threads), n)
        fit = time.perf_counter() - t0
        bst.save_model(model)
    else:
        from sklearn.ensemble import (AdaBoostClassifier, BaggingClassifier,
                                      HistGradientBoostingClassifier, RandomForestClassifier)
        from sklearn.tree import DecisionTreeClassifier
        if workload == "gbdt-63L":
            m = HistGradientBoostingClassifier(max_iter=n, learning_rate=0.1, max_leaf_nodes=63,
                                               max_bins=255, l2_regularization=1.0,
                                               early_stopping=False, random_state=0)
        elif workload == "gbdt-d6":
            m = HistGradientBoostingClassifier(max_iter=n, learning_rate=0.1, max_depth=6,
                                               max_leaf_nodes=None, max_bins=255,
                                               l2_regularization=1.0, early_stopping=False,
                                               random_state=0)
        elif workload == "forest":
            m = RandomForestClassifier(n_estimators=n, n_jobs=threads, random_state=0)
        elif workload == "bagging":
            m = BaggingClassifier(DecisionTreeClassifier(), n_estimators=n, n_jobs=threads,
                                  random_state=0)
        elif workload == "adaboost":
            m = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n,
                                   algorithm="SAMME", random_state=0)
        else:
            raise SystemExit("sklearn: no workload " + workload)
        m.fit(X, y)
        fit = time.perf_counter() - t0
        with open(model, "wb") as f:
            pickle.dump(m, f, protocol=pickle.HIGHEST_PROTOCOL)
    print(f"{fit:.3f}")


def predict(tool, model, path, out, threads):
    X, _ = load(path)
    t0 = time.perf_counter()
    if tool == "xgboost":
        import xgboost as xgb
        bst = xgb.Booster(params={"nthread": threads}, model_file=model)
        p = bst.predict(xgb.DMatrix(X, nthread=threads))
        P = np.column_stack([1 - p, p]) if p.ndim == 1 else p
    else:
        with open(model, "rb") as f:
            m = pickle.load(f)
        P = m.predict_proba(X)
    df = pd.DataFrame(P, columns=["p_%d" % k for k in range(P.shape[1])])
    df.insert(0, "label", np.argmax(P, axis=1))
    df.to_csv(out, index=False)
    print(f"{time.perf_counter() - t0:.3f}")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", sys.argv[-1])
    if sys.argv[1] == "train":
        train(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7]))
    else:
        predict(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
