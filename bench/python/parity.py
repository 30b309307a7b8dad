#!/usr/bin/python3
"""Accuracy of grove's estimators next to scikit-learn's counterparts on the public datasets'
fixed train/test splits (../shared/data/get-datasets.sh), same settings where both have them.

usage: parity.py DATA_DIR          prints a markdown table (test accuracy, grove - sklearn)
"""
import os
import sys

import numpy as np
import pandas as pd
import sklearn.ensemble as se
import sklearn.linear_model as sl
import sklearn.tree as st

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import grove as g  # noqa: E402

PAIRS = [
    ("tree depth 5", g.DecisionTreeClassifier(max_depth=5),
     st.DecisionTreeClassifier(max_depth=5, random_state=0)),
    ("forest 100", g.RandomForestClassifier(n_estimators=100),
     se.RandomForestClassifier(n_estimators=100, random_state=0)),
    ("extra-trees 100", g.ExtraTreesClassifier(n_estimators=100),
     se.ExtraTreesClassifier(n_estimators=100, random_state=0)),
    ("bagging 50 trees", g.BaggingClassifier(n_estimators=50),
     se.BaggingClassifier(n_estimators=50, random_state=0)),
    ("AdaBoost SAMME 100 stumps", g.AdaBoostClassifier(n_estimators=100, algorithm="samme"),
     se.AdaBoostClassifier(n_estimators=100, algorithm="SAMME", random_state=0)),
    ("gbdt 100 depth 3", g.GradientBoostingClassifier(n_estimators=100, learning_rate=0.1,
                                                      max_depth=3),
     se.GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0)),
    ("logistic", g.LogisticRegression(), sl.LogisticRegression(max_iter=5000)),
]
SETS = ["breast_cancer", "ionosphere", "sonar", "pima_indians_diabetes", "twonorm", "ringnorm",
        "wine", "glass", "digits"]


def load(d, name, part):
    df = pd.read_csv(os.path.join(d, "%s_%s.csv" % (name, part)))
    y = df.pop("label").to_numpy()
    return df.to_numpy(dtype=np.float64), y


def main():
    d = sys.argv[1]
    print("| data | " + " | ".join(p[0] for p in PAIRS) + " |")
    print("|---|" + "---|" * len(PAIRS))
    diffs = []
    for name in SETS:
        Xtr, ytr = load(d, name, "train")
        Xte, yte = load(d, name, "test")
        cells = []
        for _, ours, theirs in PAIRS:
            if isinstance(theirs, sl.LogisticRegression) and len(np.unique(ytr)) > 2:
                cells.append("–")
                continue
            a = ours.fit(Xtr, ytr).score(Xte, yte)
            b = theirs.fit(Xtr, ytr).score(Xte, yte)
            diffs.append(a - b)
            cells.append("%.3f / %.3f (%+.3f)" % (a, b, a - b))
        print("| %s | %s |" % (name, " | ".join(cells)))
    print("\ngrove / scikit-learn test accuracy (difference); mean difference %+.4f over %d pairs,"
          " worst %+.3f" % (np.mean(diffs), len(diffs), min(diffs)))


if __name__ == "__main__":
    main()
