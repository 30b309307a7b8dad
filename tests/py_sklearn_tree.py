#!/usr/bin/python3
"""grove's trees against scikit-learn's on the same files (Debian's python3-sklearn).

Truth nobody here chose: on data where every feature has at most 255 distinct values, grove's
histogram tree sees the same candidate splits as scikit-learn's exact tree, so a depth-limited
tree grown with the same criterion must find splits of the same quality: the same training
accuracy / error per depth.  On real data (more distinct values than bins) test accuracy must
stay close to scikit-learn's.
"""
import csv
import json
import os
import sys
import tempfile

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import fixtures
from fixtures import DATA, check, grove, load


def grove_eval(model, test):
    return json.loads(grove("eval", model, test, "--json"))


def write_csv(path, header, X, y):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for row, label in zip(X, y):
            w.writerow([label] + [repr(float(v)) for v in row])


tmp = tempfile.mkdtemp()

# 1. Breast cancer, depth-5 CART (gini): test accuracy next to scikit-learn's.
tr, te = os.path.join(DATA, "breast_cancer_train.csv"), os.path.join(DATA, "breast_cancer_test.csv")
h, Xtr, ytr = load(tr, header=True)
_, Xte, yte = load(te, header=True)
sk = DecisionTreeClassifier(max_depth=5, random_state=0).fit(Xtr, ytr)
sk_acc = float(np.mean(sk.predict(Xte) == np.array(yte)))
m = os.path.join(tmp, "bc.model")
grove("train", tr, "-o", m, "--set", "max_depth=5", "-q")
g_acc = grove_eval(m, te)["accuracy"]
print(f"breast_cancer depth-5 tree: grove {g_acc:.4f}  scikit-learn {sk_acc:.4f}")
check(g_acc >= sk_acc - 0.03, f"breast cancer accuracy {g_acc} far below scikit-learn's {sk_acc}")

# 2. Data with <= 255 distinct values per feature (digits: 0..16; breast cancer rounded to 255
#    levels): the training error of a depth-d tree equals scikit-learn's for every d, for gini
#    and entropy, because both search the same candidate thresholds exactly.
def quantize(X, levels=200):
    lo, hi = X.min(0), X.max(0)
    return np.round((X - lo) / np.where(hi > lo, hi - lo, 1) * (levels - 1))

cases = []
_, Xd, yd = load(os.path.join(DATA, "digits_train.csv"), header=True)
cases.append(("digits", Xd, yd))
cases.append(("breast_cancer_q", quantize(Xtr), ytr))
for name, X, y in cases:
    path = os.path.join(tmp, name + ".csv")
    write_csv(path, ["label"] + [f"x{j}" for j in range(X.shape[1])], X, y)
    for crit in ("gini", "entropy"):
        for depth in (1, 2, 3, 4, 6):
            sk = DecisionTreeClassifier(max_depth=depth, criterion=crit, random_state=0).fit(X, y)
            sk_train = float(np.mean(sk.predict(X) == np.array(y)))
            m = os.path.join(tmp, "q.model")
            grove("train", path, "-o", m, "--set", f"max_depth={depth}", "--set", f"criterion={crit}", "-q")
            g_train = grove_eval(m, path)["accuracy"]
            # equal split quality gives equal impurity; ties between equally good splits may
            # still pick different features, so allow one row of difference per level
            check(abs(g_train - sk_train) <= depth / len(y) + 1e-12 or g_train >= sk_train,
                  f"{name} {crit} depth {depth}: train acc grove {g_train} vs sklearn {sk_train}")
            if depth == 1:
                check(abs(g_train - sk_train) < 1e-12,
                      f"{name} {crit} stump: train acc grove {g_train} vs sklearn {sk_train}")

# 3. Regression (variance criterion): boston housing, depth 4.
tr, te = os.path.join(DATA, "boston_housing_train.csv"), os.path.join(DATA, "boston_housing_test.csv")
h, Xtr, ytr = load(tr, header=True)
_, Xte, yte = load(te, header=True)
ytr, yte = np.array(ytr, float), np.array(yte, float)
sk = DecisionTreeRegressor(max_depth=4, random_state=0).fit(Xtr, ytr)
sk_rmse = float(np.sqrt(np.mean((sk.predict(Xte) - yte) ** 2)))
m = os.path.join(tmp, "reg.model")
grove("train", tr, "-o", m, "--set", "max_depth=4", "-q")
g = grove_eval(m, te)
print(f"boston depth-4 regression tree: rmse grove {g['rmse']:.4f}  scikit-learn {sk_rmse:.4f}")
check(g["rmse"] <= sk_rmse * 1.15, f"boston rmse {g['rmse']} vs scikit-learn {sk_rmse}")
sk_train = DecisionTreeRegressor(max_depth=1).fit(Xtr, ytr)
sk_train_rmse = float(np.sqrt(np.mean((sk_train.predict(Xtr) - ytr) ** 2)))
grove("train", tr, "-o", m, "--algo", "stump", "-q")
g_train_rmse = grove_eval(m, tr)["rmse"]
check(abs(g_train_rmse - sk_train_rmse) < 1e-9 * max(1, sk_train_rmse),
      f"regression stump training rmse grove {g_train_rmse} vs sklearn {sk_train_rmse}")

# 4. Multiclass: iris and wine, unlimited depth fits the training data; test accuracy close.
for name in ("iris", "wine", "glass"):
    tr, te = os.path.join(DATA, name + "_train.csv"), os.path.join(DATA, name + "_test.csv")
    _, Xtr, ytr = load(tr, header=True)
    _, Xte, yte = load(te, header=True)
    sk = DecisionTreeClassifier(random_state=0).fit(Xtr, ytr)
    sk_acc = float(np.mean(sk.predict(Xte) == np.array(yte)))
    m = os.path.join(tmp, name + ".model")
    grove("train", tr, "-o", m, "-q")
    g_acc = grove_eval(m, te)["accuracy"]
    print(f"{name} full tree: grove {g_acc:.4f}  scikit-learn {sk_acc:.4f}")
    check(g_acc >= sk_acc - 0.08, f"{name}: grove {g_acc} vs scikit-learn {sk_acc}")

sys.exit(fixtures.finish("py_sklearn_tree"))
