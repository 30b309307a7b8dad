#!/usr/bin/python3
"""Contributions (TreeSHAP) through the Python package, and against XGBoost's own.

1. The estimators' predict(X, pred_contribs=True) / pred_interactions=True and shap_values have
   XGBoost's shapes ((n, F + 1) for one score group, (n, K, F + 1) for several; interactions
   (n, [K,] F + 1, F + 1)); contributions sum to the score within 1e-9 (gbdt: the logit of
   predict_proba, softmax: log-probabilities up to a row constant, forests: predict_proba,
   regression: predict); interaction rows sum to the contributions; a column never split on
   contributes 0.
2. A model trained by XGBoost 1.7 (Debian's python3-xgboost) and converted by
   `grove convert --from xgboost model.json -o OUT`: grove's contributions and interaction
   values equal Booster.predict(pred_contribs=True / pred_interactions=True) to float
   precision (XGBoost computes in float), for logistic, softmax and squared error on data with
   missing values.  Skipped (with a note) while this grove has no `convert --from`.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

import fixtures
from fixtures import GROVE, SRC, check

os.environ.setdefault("GROVE_LIB", os.path.join(os.environ.get("GROVE_BIN", "build"),
                                                "libgrove.so"))
sys.path.insert(0, os.path.join(SRC, "python"))
import grove  # noqa: E402
from grove.core import Dataset, Model  # noqa: E402

rng = np.random.RandomState(5)
n, F = 400, 6
X = rng.rand(n, F)
X[rng.rand(n) < 0.15, 1] = np.nan
X[:, 5] = 3.0  # constant: never split on
score = 2 * X[:, 0] - np.nan_to_num(X[:, 1], nan=0.4) + X[:, 2] * X[:, 3]
y2 = (score + 0.3 * rng.rand(n) > 0.9).astype(int)
y3 = np.digitize(score, [0.3, 1.0])
yr = score + 0.1 * rng.rand(n)


def close(a, b, tol, what):
    err = float(np.max(np.abs(a - b))) if a.size else 0.0
    check(err <= tol, "%s: largest difference %.3g > %.3g" % (what, err, tol))


# ---- 1. estimators ----
g = grove.GradientBoostingClassifier(n_estimators=25, max_depth=4).fit(X, y2)
phi = g.predict(X, pred_contribs=True)
check(phi.shape == (n, F + 1), "gbdt binary contributions shape %r" % (phi.shape,))
p = g.predict_proba(X)[:, 1]
close(phi.sum(1), np.log(p / (1 - p)), 1e-9, "gbdt binary: sum vs logit")
check(np.all(phi[:, 5] == 0), "gbdt binary: a constant column contributes")
inter = g.predict(X, pred_interactions=True)
check(inter.shape == (n, F + 1, F + 1), "gbdt binary interactions shape %r" % (inter.shape,))
close(inter.sum(2), phi, 1e-9, "gbdt binary: interaction rows vs contributions")
close(inter, inter.transpose(0, 2, 1), 1e-9, "gbdt binary: interactions symmetric")
close(g.shap_values(X), phi, 0, "shap_values vs predict(pred_contribs=True)")

g3 = grove.GradientBoostingClassifier(n_estimators=10, max_depth=3).fit(X, y3)
phi = g3.predict(X, pred_contribs=True)
check(phi.shape == (n, 3, F + 1), "gbdt softmax contributions shape %r" % (phi.shape,))
s = phi.sum(2)
lp = np.log(g3.predict_proba(X))
close((s - s[:, :1]) - (lp - lp[:, :1]), 0 * s, 1e-9, "gbdt softmax: sums vs log-probabilities")
check(g3.predict(X, pred_interactions=True).shape == (n, 3, F + 1, F + 1), "softmax interactions")

f = grove.RandomForestClassifier(n_estimators=15, random_state=1).fit(X, y3)
phi = f.shap_values(X)
check(phi.shape == (n, 3, F + 1), "forest contributions shape %r" % (phi.shape,))
close(phi.sum(2), f.predict_proba(X), 1e-9, "forest: sums vs probabilities")

r = grove.GradientBoostingRegressor(n_estimators=30, max_depth=3).fit(X, yr)
phi = r.predict(X, pred_contribs=True)
check(phi.shape == (n, F + 1), "gbdt regression contributions shape %r" % (phi.shape,))
close(phi.sum(1), r.predict(X), 1e-9, "gbdt regression: sum vs prediction")
et = grove.ExtraTreesRegressor(n_estimators=10, random_state=2).fit(X, yr)
close(et.predict(X, pred_contribs=True).sum(1), et.predict(X), 1e-9, "extra-trees regression")

try:
    grove.LogisticRegression().fit(np.nan_to_num(X), y2).shap_values(np.nan_to_num(X))
    check(False, "a logistic regression has contributions")
except ValueError as e:
    check("sum over trees" in str(e), "logistic regression refused: %s" % e)

# ---- 2. XGBoost's own contributions on a converted model ----
help_text = subprocess.run([GROVE, "convert", "--help"], capture_output=True, text=True)
if "--from" not in help_text.stdout + help_text.stderr:
    print("py_shap: XGBoost comparison skipped: this grove has no `convert --from`")
else:
    import xgboost as xgb
    tmp = tempfile.mkdtemp()
    cases = [("binary:logistic", y2, {}), ("multi:softprob", y3, {"num_class": 3}),
             ("reg:squarederror", yr, {})]
    for obj, yy, extra in cases:
        params = {"objective": obj, "max_depth": 4, "eta": 0.3, "tree_method": "hist",
                  "nthread": 1, **extra}
        b = xgb.train(params, xgb.DMatrix(X, label=yy), 15)
        jpath, gpath = os.path.join(tmp, "m.json"), os.path.join(tmp, "m.grove")
        b.save_model(jpath)
        fixtures.grove("convert", "--from", "xgboost", jpath, "-o", gpath)
        m = Model.load(gpath)
        cols = [grove.core.lib.grove_schema_feature_column(m.schema, j)
                for j in range(grove.core.lib.grove_schema_n_features(m.schema))]
        d = Dataset(X[:, cols].astype(np.float32), like=m)
        mine = m.predict_contrib(d)
        theirs = b.predict(xgb.DMatrix(X), pred_contribs=True)
        if theirs.ndim == 2:
            theirs = theirs[:, None, :]
        theirs = theirs[:, :, cols + [F]]
        scale = 1 + float(np.max(np.abs(theirs)))
        close(mine, theirs, 2e-5 * scale, "%s: contributions vs XGBoost" % obj)
        mi = m.predict_contrib(Dataset(X[:40][:, cols].astype(np.float32), like=m),
                               True)
        ti = b.predict(xgb.DMatrix(X[:40]), pred_interactions=True)
        if ti.ndim == 3:
            ti = ti[:, None]
        idx = cols + [F]
        ti = ti[:, :, idx][:, :, :, idx]
        close(mi, ti, 2e-5 * scale, "%s: interactions vs XGBoost" % obj)

sys.exit(fixtures.finish("py_shap"))
