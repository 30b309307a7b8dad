#!/usr/bin/python3
"""scikit-learn's AdaBoostClassifier(algorithm="SAMME", stumps) on grove's benchmark files.

usage: sk_adaboost.py TRAIN.csv TEST.csv ROUNDS
Prints one line: load_s train_s accuracy train_cpu_s (scikit-learn's AdaBoost is single-threaded,
so CPU time equals wall time on an idle machine and is robust to other load) (float32 features, label in the first column).
"""
import sys
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

train, test, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
a = pd.read_csv(train)
b = pd.read_csv(test)
X, y = a.iloc[:, 1:].to_numpy(np.float32), a.iloc[:, 0].to_numpy()
Xt, yt = b.iloc[:, 1:].to_numpy(np.float32), b.iloc[:, 0].to_numpy()
t1 = time.perf_counter()
c1 = time.process_time()
m = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=rounds,
                       algorithm="SAMME", random_state=0).fit(X, y)
t2 = time.perf_counter()
c2 = time.process_time()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {np.mean(m.predict(Xt) == yt):.4f} {c2 - c1:.3f}")
