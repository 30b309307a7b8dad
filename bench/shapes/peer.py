#!/usr/bin/python3
"""XGBoost (and scikit-learn's random forest), the peers of bench/shapes/run.sh, run the way a user runs it: one process reads the
file, trains and saves a model; another loads it, predicts the test file and writes a CSV.

usage: peer.py train WORKLOAD TASK TRAIN MODEL ROUNDS THREADS [CATCOLS]
       peer.py predict TASK MODEL TEST OUT.csv THREADS [CATCOLS]
WORKLOAD: d6 (hist, depth 6) | 63L (lossguide, 63 leaves, min_child_weight 0.001) | rf
(scikit-learn's RandomForestClassifier: ROUNDS trees, max_features sqrt, n_jobs THREADS; the
model pickled).  TASK: bin |
mc7 | reg.  TRAIN/TEST: CSV (label first; 'nan' missing) or LIBSVM (.svm, read into a CSR
matrix).  CATCOLS: comma-separated INDEX:LEVELS, 0-based feature indices read as pandas categories
(enable_categorical, XGBoost's own partition splits).  Settings mirror grove's: 255 bins,
learning rate 0.1, lambda 1.  train prints the seconds of the fit (DMatrix included).
"""
import sys
import time

import numpy as np
import pandas as pd
import xgboost as xgb


def load(path, cats):
    if path.endswith(".svm"):
        from sklearn.datasets import load_svmlight_file
        X, y = load_svmlight_file(path, n_features=10000, dtype=np.float32)
        return X, y
    d = pd.read_csv(path, dtype=np.float32)
    y = d.iloc[:, 0].to_numpy()
    X = d.iloc[:, 1:].copy()
    if cats:  # the same categories in train and test files: codes 0 .. levels-1
        for j, levels in cats:
            X[X.columns[j]] = pd.Categorical(X.iloc[:, j].astype(int), categories=range(levels))
        return X, y
    return X.to_numpy(), y


def main():
    a = sys.argv
    if a[1] == "train":
        wl, task, path, model, n, t = a[2], a[3], a[4], a[5], int(a[6]), int(a[7])
        cats = [tuple(map(int, c.split(":"))) for c in a[8].split(",")] if len(a) > 8 and a[8] else []
        X, y = load(path, cats)
        if wl == "rf":
            import pickle
            from sklearn.ensemble import RandomForestClassifier
            t0 = time.perf_counter()
            rf = RandomForestClassifier(n_estimators=n, max_features="sqrt", n_jobs=t,
                                        random_state=1).fit(X, y)
            print("%.3f" % (time.perf_counter() - t0))
            with open(model + ".pkl", "wb") as f:
                pickle.dump(rf, f, protocol=pickle.HIGHEST_PROTOCOL)
            return
        t0 = time.perf_counter()
        p = {"tree_method": "hist", "max_bin": 255, "eta": 0.1, "lambda": 1, "nthread": t}
        if wl == "d6":
            p["max_depth"] = 6
        else:
            p.update(grow_policy="lossguide", max_leaves=63, max_depth=0, min_child_weight=0.001)
        p.update({"bin": {"objective": "binary:logistic"}, "reg": {"objective": "reg:squarederror"},
                  "mc7": {"objective": "multi:softprob", "num_class": 7}}[task])
        if cats:
            p["max_cat_to_onehot"] = 1
        bst = xgb.train(p, xgb.DMatrix(X, label=y, nthread=t, enable_categorical=bool(cats)), n)
        print("%.3f" % (time.perf_counter() - t0))
        bst.save_model(model + ".json")  # JSON: the legacy binary format has no categorical splits
    else:
        task, model, path, out, t = a[2], a[3], a[4], a[5], int(a[6])
        cats = [tuple(map(int, c.split(":"))) for c in a[7].split(",")] if len(a) > 7 and a[7] else []
        X, y = load(path, cats)
        import os
        if os.path.exists(model + ".pkl"):
            import pickle
            with open(model + ".pkl", "rb") as f:
                rf = pickle.load(f)
            rf.n_jobs = t
            P = rf.predict_proba(X)
        else:
            bst = xgb.Booster(model_file=model + ".json")
            bst.set_param({"nthread": t})
            P = bst.predict(xgb.DMatrix(X, nthread=t, enable_categorical=bool(cats)))
        if task == "reg":
            pd.DataFrame({"label": P}).to_csv(out, index=False)
        else:
            P = np.column_stack([1 - P, P]) if P.ndim == 1 else P
            d = pd.DataFrame(P, columns=["p_%d" % k for k in range(P.shape[1])])
            d.insert(0, "label", np.argmax(P, axis=1))
            d.to_csv(out, index=False)


main()
