#!/usr/bin/python3
"""Scores a probability CSV of bench/matrix/run.sh against the test file's labels, the same
code for every tool: ROC AUC of p_1 for two classes, else accuracy of the most probable class
(p_<k> columns in class order 0..K-1; ties to the lowest class).

usage: score.py TEST.csv[.gz] PRED.csv     prints the score
"""
import sys

import numpy as np
import pandas as pd

y = pd.read_csv(sys.argv[1], usecols=[0]).iloc[:, 0].to_numpy().astype(int)
p = pd.read_csv(sys.argv[2])
cols = sorted((c for c in p.columns if c.startswith("p_")), key=lambda c: int(c[2:]))
P = p[cols].to_numpy()
if len(cols) == 2:
    from sklearn.metrics import roc_auc_score
    print(f"{roc_auc_score(y, P[:, 1]):.5f}")
else:
    print(f"{np.mean(np.argmax(P, axis=1) == y):.5f}")
