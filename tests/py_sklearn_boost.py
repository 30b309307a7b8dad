#!/usr/bin/python3
"""grove's AdaBoost family against scikit-learn's AdaBoostClassifier/Regressor, same splits.

For every public dataset of the boosting benchmarks (twonorm, ringnorm, sonar, ionosphere, glass,
breast cancer) and two base learners (stumps, depth-3 trees), 100 rounds: grove's `adaboost`
(two classes) or `samme` (glass, six classes) next to scikit-learn's AdaBoostClassifier
(algorithm="SAMME"), which is the same algorithm (for two classes SAMME's alpha is twice
AdaBoost's, so the votes agree).  Checks: the first round's weighted error equals scikit-
learn's (the same gini-best stump on the same data; up to one row when binning or a tie picks
another split), and the test accuracy is within 4 points.  On digits (10 classes, every pixel
value its own bin) samme with stumps must be scikit-learn's SAMME stump for stump (feature,
threshold, alpha) for 60 rounds.  adaboost.r2 against
AdaBoostRegressor on Boston housing: test RMSE within 10 %.  Prints the table.
"""
import csv
import json
import os
import sys
import tempfile

import numpy as np
from sklearn.ensemble import AdaBoostClassifier, AdaBoostRegressor
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import fixtures
from fixtures import DATA, check, grove, load


tmp = tempfile.mkdtemp()
print(f"{'dataset':<14}{'base':<8}{'grove acc':>10}{'sklearn acc':>12}{'grove eps1':>11}{'sk eps1':>9}")
for name in ("twonorm", "ringnorm", "sonar", "ionosphere", "glass", "breast_cancer"):
    tr, te = os.path.join(DATA, name + "_train.csv"), os.path.join(DATA, name + "_test.csv")
    Xtr, ytr = load(tr)
    Xte, yte = load(te)
    algo = "samme" if len(set(ytr)) > 2 else "adaboost"
    for base, depth in (("stump", 1), ("tree3", 3)):
        sk = AdaBoostClassifier(DecisionTreeClassifier(max_depth=depth), n_estimators=100,
                                algorithm="SAMME", random_state=0).fit(Xtr, ytr)
        sk_acc = float(np.mean(sk.predict(Xte) == yte))
        model, log = os.path.join(tmp, "m"), os.path.join(tmp, "log.csv")
        args = ["train", tr, "-o", model, "--algo", algo, "--rounds", "100", "--log", log, "-q"]
        args += ["--base", "stump"] if depth == 1 else ["--base", "tree", "--set", "base.max_depth=3"]
        grove(*args)
        acc = float(grove("eval", model, te, "--json").split('"accuracy":')[1].split(",")[0])
        with open(log) as f:
            eps1 = float(list(csv.DictReader(f))[0]["epsilon"])
        sk_eps1 = float(sk.estimator_errors_[0])
        print(f"{name:<14}{base:<8}{acc:>10.4f}{sk_acc:>12.4f}{eps1:>11.4f}{sk_eps1:>9.4f}")
        check(abs(eps1 - sk_eps1) <= 1.0 / len(ytr) + 1e-9,
              f"{name} {base}: first-round error {eps1} vs scikit-learn {sk_eps1}")
        check(acc >= sk_acc - 0.04, f"{name} {base}: accuracy {acc} vs scikit-learn {sk_acc}")

# Stump for stump: where every distinct value has a bin of its own (digits: 17 pixel values; with
# the default 255 bins a feature of 256 values shares one bin between its rarest neighbouring
# pair), grove's samme with stumps is scikit-learn's SAMME -- the same gini-best split every round
# (feature, threshold) and the same alpha, 60 rounds of 10 classes.
tr = os.path.join(DATA, "digits_train.csv")
Xtr, ytr = load(tr)
sk = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=60, algorithm="SAMME",
                        random_state=0).fit(Xtr, ytr)
model = os.path.join(tmp, "digits")
grove("train", tr, "-o", model, "--algo", "samme", "--base", "stump", "--rounds", "60", "-q")
with open(model) as f:
    boost = json.load(f)["model"]
alphas = [float(a) for a in str(boost["alpha"]).strip("[]").replace(",", " ").split()]
same = 0
for t, mem in enumerate(boost["members"]):
    e = sk.estimators_[t].tree_ if t < len(sk.estimators_) else None
    f, th = int(mem["feature"].split()[0]), float(mem["threshold"].split()[0])
    same += (e is not None and f == e.feature[0] and abs(th - e.threshold[0]) < 1e-6 and
             abs(alphas[t] - sk.estimator_weights_[t]) <= 1e-9 * abs(alphas[t]))
print(f"digits samme stumps: {same} of {len(boost['members'])} rounds as scikit-learn's")
check(len(boost["members"]) == 60 and same == 60,
      f"digits samme: {same} of 60 stumps (feature, threshold, alpha) equal scikit-learn's")

tr, te = os.path.join(DATA, "boston_housing_train.csv"), os.path.join(DATA, "boston_housing_test.csv")
Xtr, ytr = load(tr, True)
Xte, yte = load(te, True)
sk_rmse = np.mean([np.sqrt(np.mean((AdaBoostRegressor(DecisionTreeRegressor(max_depth=3), n_estimators=50,
                                                      random_state=s).fit(Xtr, ytr).predict(Xte) - yte) ** 2))
                   for s in range(3)])
model = os.path.join(tmp, "r2")
grove("train", tr, "-o", model, "--algo", "adaboost.r2", "--base", "tree", "--set", "base.max_depth=3",
      "--rounds", "50", "-q")
rmse = float(grove("eval", model, te, "--json").split('"rmse":')[1].split(",")[0])
print(f"boston adaboost.r2 depth-3: rmse grove {rmse:.4f}  scikit-learn (mean of 3 seeds) {sk_rmse:.4f}")
check(rmse <= 1.1 * sk_rmse, f"adaboost.r2 rmse {rmse} vs scikit-learn {sk_rmse}")
sys.exit(fixtures.finish("py_sklearn_boost"))
