"""grove.from_xgboost and grove.from_sklearn: converted models predict as the originals do.

scikit-learn's trees compare float32 features with double thresholds; the converted model takes
the same paths on float32 data, so class probabilities agree to within the rounding of sums
(1e-9; a single tree exactly).  XGBoost sums leaf values in float: 1e-6.
"""
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import (ExtraTreesClassifier, ExtraTreesRegressor,
                              GradientBoostingClassifier, GradientBoostingRegressor,
                              HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                              RandomForestClassifier, RandomForestRegressor)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import grove

Xc, yc = make_classification(n_samples=400, n_features=8, n_informative=5, random_state=0)
Xc = Xc.astype(np.float32)
Xm, ym = make_classification(n_samples=400, n_features=8, n_informative=5, n_classes=3,
                             random_state=1)
Xm = Xm.astype(np.float32)
Xr, yr = make_regression(n_samples=400, n_features=6, noise=5.0, random_state=2)
Xr = Xr.astype(np.float32)
labels = np.array(["no", "yes"])[yc]


CLASSIFIERS = [
    DecisionTreeClassifier(max_depth=6, random_state=0),
    RandomForestClassifier(n_estimators=15, max_depth=8, random_state=0),
    ExtraTreesClassifier(n_estimators=15, random_state=0),
    GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0),
    HistGradientBoostingClassifier(max_iter=20, random_state=0),
]
REGRESSORS = [
    DecisionTreeRegressor(max_depth=7, random_state=0),
    RandomForestRegressor(n_estimators=10, random_state=0),
    ExtraTreesRegressor(n_estimators=10, max_depth=9, random_state=0),
    GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0),
    GradientBoostingRegressor(n_estimators=10, loss="huber", random_state=0),
    HistGradientBoostingRegressor(max_iter=25, random_state=0),
]


@pytest.mark.parametrize("est", CLASSIFIERS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("multiclass", [False, True])
def test_sklearn_classifiers(est, multiclass):
    X, y = (Xm, ym) if multiclass else (Xc, labels)
    est.fit(X, y)
    m = grove.from_sklearn(est)
    p = m.predict_proba(X)
    assert p.shape == (len(X), len(est.classes_))
    assert np.abs(p - est.predict_proba(X)).max() <= 1e-9
    agree = np.mean(m.predict(X) == est.predict(X))
    assert agree >= 0.995  # ties between equal probabilities may break otherwise
    assert list(m.classes_) == list(est.classes_)


@pytest.mark.parametrize("est", REGRESSORS, ids=lambda e: type(e).__name__ + getattr(e, "loss", ""))
def test_sklearn_regressors(est):
    est.fit(Xr, yr)
    m = grove.from_sklearn(est)
    got, want = m.predict(Xr), est.predict(Xr)
    assert np.max(np.abs(got - want) / np.maximum(1, np.abs(want))) <= 1e-9


def test_sklearn_hist_missing():
    X = Xc.copy()
    X[np.random.default_rng(3).random(X.shape) < 0.15] = np.nan
    est = HistGradientBoostingClassifier(max_iter=15, random_state=0).fit(X, yc)
    assert np.abs(grove.from_sklearn(est).predict_proba(X) - est.predict_proba(X)).max() <= 1e-9


def test_sklearn_single_tree_exact():
    est = DecisionTreeClassifier(random_state=0).fit(Xm, ym)
    assert np.array_equal(grove.from_sklearn(est).predict_proba(Xm), est.predict_proba(Xm))


def test_sklearn_save_load(tmp_path):
    est = RandomForestClassifier(n_estimators=5, random_state=0).fit(Xc, yc)
    m = grove.from_sklearn(est)
    path = tmp_path / "rf.grove"
    m.save(path)
    back = grove.ConvertedModel(grove.Model.load(path), est.classes_)
    assert np.array_equal(back.predict_proba(Xc), m.predict_proba(Xc))
    assert m.info()["algo"] == "forest"
    imp = m.importance()
    assert imp.shape == (Xc.shape[1],) and imp.sum() > 0


def test_sklearn_refuses():
    with pytest.raises(ValueError, match="not a supported tree ensemble"):
        grove.from_sklearn(grove.DecisionTreeClassifier().fit(Xc, yc))
    with pytest.raises(ValueError, match="exponential"):
        grove.from_sklearn(GradientBoostingClassifier(loss="exponential", n_estimators=2).fit(Xc, yc))


def test_xgboost():
    xgb = pytest.importorskip("xgboost")
    Xn = Xm.copy()
    Xn[np.random.default_rng(0).random(Xn.shape) < 0.1] = np.nan
    clf = xgb.XGBClassifier(n_estimators=15, max_depth=4).fit(Xn, ym)
    m = grove.from_xgboost(clf)
    assert np.abs(m.predict_proba(Xn) - clf.predict_proba(Xn)).max() <= 1e-6
    b = xgb.train({"objective": "reg:squarederror", "max_depth": 5},
                  xgb.DMatrix(Xr, label=yr), 20)
    r = grove.from_xgboost(b)
    want = b.predict(xgb.DMatrix(Xr))
    assert np.max(np.abs(r.predict(Xr) - want) / np.maximum(1, np.abs(want))) <= 1e-5


def test_convert_errors():
    xgb = pytest.importorskip("xgboost")
    b = xgb.train({"objective": "count:poisson"}, xgb.DMatrix(Xr, label=np.abs(yr)), 2)
    with pytest.raises(grove.GroveError, match=r"<buffer>: \$\.learner\.objective\.name"):
        grove.from_xgboost(b)
