#!/usr/bin/python3
"""scikit-learn's RandomForestClassifier(100 trees, n_jobs=2) on grove's benchmark files.

usage: sk_forest.py TRAIN.csv[.gz] TEST.csv[.gz] TREES
Prints one line: load_s train_s accuracy (float32 features, label in the first column).
"""
import sys
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train, test, trees = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
a = pd.read_csv(train)
b = pd.read_csv(test)
X, y = a.iloc[:, 1:].to_numpy(np.float32), a.iloc[:, 0].to_numpy()
Xt, yt = b.iloc[:, 1:].to_numpy(np.float32), b.iloc[:, 0].to_numpy()
t1 = time.perf_counter()
m = RandomForestClassifier(n_estimators=trees, n_jobs=2, random_state=0).fit(X, y)
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {np.mean(m.predict(Xt) == yt):.4f}")
