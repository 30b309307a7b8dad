#!/usr/bin/python3
"""grove stacking against scikit-learn's StackingClassifier on the same files (Debian's python3-sklearn).

Base learners on both sides: a CART tree, a random forest of 100 trees and L2 logistic regression
(C = 1, standardized inputs); meta-learner: logistic regression on 5-fold out-of-fold class
probabilities (two classes: P(class 1) only, as scikit-learn does).  Check: test accuracies within
4 points (6 on sets whose test set has fewer than 100 rows).
"""
import os
import sys
import tempfile
import json

import numpy as np
from sklearn.ensemble import RandomForestClassifier, StackingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import fixtures
from fixtures import DATA, check, grove, load

SETS = ["breast_cancer", "ionosphere", "wine", "sonar"]
failures = 0


print(f"{'data':14s} {'grove':>8s} {'sklearn':>8s}")
with tempfile.TemporaryDirectory() as tmp:
    for name in SETS:
        train, test = (os.path.join(DATA, f"{name}_{s}.csv") for s in ("train", "test"))
        model = os.path.join(tmp, name + ".model")
        grove("train", train, "-o", model, "--algo", "stacking", "--seed", "1", "-q",
              "--set", "stack.learners=tree,forest,logistic")
        acc_g = json.loads(grove("eval", model, test, "--json"))["accuracy"]
        Xtr, ytr = load(train)
        Xte, yte = load(test)
        sk = StackingClassifier(
            estimators=[("tree", DecisionTreeClassifier(random_state=1)),
                        ("forest", RandomForestClassifier(100, random_state=1)),
                        ("logistic", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)))],
            final_estimator=LogisticRegression(), cv=5, stack_method="predict_proba")
        sk.fit(Xtr, ytr)
        acc_s = float(np.mean(sk.predict(Xte) == np.array(yte)))
        print(f"{name:14s} {acc_g:8.4f} {acc_s:8.4f}")
        tol = 0.04 if len(yte) >= 100 else 0.06
        check(abs(acc_g - acc_s) <= tol,
              f"{name}: grove {acc_g:.4f} vs scikit-learn {acc_s:.4f} (tolerance {tol})")
sys.exit(fixtures.finish("py_sklearn_stacking"))
