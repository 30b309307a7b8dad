#!/usr/bin/python3
"""Scores a prediction CSV of bench/shapes/run.sh against the test file, the same code for every
tool: ROC AUC of p_1 (two classes), accuracy of the most probable p_<k> (more classes), or RMSE
of the 'label' column (regression).

usage: score.py TASK TEST.csv|TEST.svm PRED.csv     prints the score
"""
import sys

import numpy as np
import pandas as pd

task, test, pred = sys.argv[1:4]
if test.endswith(".svm"):
    y = np.array([float(line.split(None, 1)[0]) for line in open(test)])
else:
    y = pd.read_csv(test, usecols=[0]).iloc[:, 0].to_numpy()
p = pd.read_csv(pred)
if task == "reg":
    print(f"{np.sqrt(np.mean((p['label'].to_numpy() - y) ** 2)):.5f}")
else:
    cols = sorted((c for c in p.columns if c.startswith("p_")), key=lambda c: int(c[2:]))
    P = p[cols].to_numpy()
    if len(cols) == 2:
        from sklearn.metrics import roc_auc_score
        print(f"{roc_auc_score(y.astype(int), P[:, 1]):.5f}")
    else:
        print(f"{np.mean(np.argmax(P, axis=1) == y.astype(int)):.5f}")
