"""Models trained by XGBoost and scikit-learn as grove models (grove_model_convert_buffer).

from_xgboost(booster) hands XGBoost's own JSON model to the library's converter;
from_sklearn(estimator) writes the fitted trees of a scikit-learn ensemble as the neutral tree
dump the converter reads ("sklearn" format, docs/convert.md).  Either returns a ConvertedModel:
predict / predict_proba on arrays, save, to_bytes, importance, and the underlying grove.Model.
"""
import ctypes
import json

import numpy as np

from ._lib import lib, check
from .core import Dataset, Model, _vp


def _convert(fmt, data):
    h = _vp()
    check(lib.grove_model_convert_buffer(fmt.encode(), data, len(data), ctypes.byref(h)))
    return Model(h)


class ConvertedModel:
    """A grove model converted from another library's fitted model.  `classes_` are the
    original estimator's classes (classification), in the order of predict_proba's columns."""

    def __init__(self, model, classes=None):
        self.model = model
        n = model.n_classes()
        self.classes_ = (np.asarray(classes) if classes is not None
                         else (np.arange(n) if n else None))

    def _data(self, X):
        A = np.asarray(X)
        if A.dtype not in (np.float32, np.float64):
            A = A.astype(np.float64)
        if A.ndim != 2:
            raise ValueError(f"X must be 2-D, got {A.ndim} dimension(s)")
        return Dataset(np.ascontiguousarray(A), like=self.model)

    def predict_proba(self, X, n_threads=0):
        """Class probabilities (classification models)."""
        if self.classes_ is None:
            raise AttributeError("predict_proba: a regression model")
        return self.model.predict(self._data(X), n_threads)

    def predict(self, X, n_threads=0):
        """Classes (classification) or values (regression)."""
        d = self._data(X)
        if self.classes_ is None:
            return self.model.predict(d, n_threads).ravel()
        return self.classes_[self.model.predict_label(d, n_threads).astype(np.intp)]

    def save(self, path):
        self.model.save(path)

    def to_bytes(self):
        return self.model.to_bytes()

    def importance(self, kind="impurity"):
        return self.model.importance(kind)

    def info(self):
        return self.model.info()


def from_xgboost(booster):
    """An XGBoost Booster (or a fitted XGBClassifier / XGBRegressor) as a grove model: gbtree or
    dart, objectives binary:logistic, binary:logitraw, multi:softprob, multi:softmax,
    reg:squarederror, reg:absoluteerror, reg:pseudohubererror.  Probabilities equal XGBoost's
    within about 1e-7 on float inputs."""
    classes = getattr(booster, "classes_", None)
    if hasattr(booster, "get_booster"):
        booster = booster.get_booster()
    raw = bytes(booster.save_raw(raw_format="json"))
    return ConvertedModel(_convert("xgboost", raw), classes)


def _tree_dump(tree, proba, scale=1.0):
    t = tree.tree_ if hasattr(tree, "tree_") else tree
    left, right = t.children_left, t.children_right
    w = t.weighted_n_node_samples
    imp = t.impurity
    value = t.value[:, 0, :] if t.value.shape[1] == 1 else None
    if value is None:
        raise ValueError("from_sklearn: multi-output trees have no grove counterpart")
    if proba:
        value = value / value.sum(axis=1, keepdims=True)
    else:
        value = value * scale if scale != 1.0 else value
    gain = np.zeros(t.node_count)
    internal = left >= 0
    gain[internal] = (w[internal] * imp[internal] - w[left[internal]] * imp[left[internal]]
                      - w[right[internal]] * imp[right[internal]])
    return {"left": [int(v) for v in left], "right": [int(v) for v in right],
            "feature": [int(v) if v >= 0 else 0 for v in t.feature],
            "threshold": [float(v) for v in t.threshold],
            "value": [float(v) for v in value.ravel()],
            "weight": [float(v) for v in w], "count": [float(v) for v in t.n_node_samples],
            "gain": [float(v) for v in gain]}


def _hist_tree_dump(predictor):
    nd = predictor.nodes
    if np.any(nd["is_categorical"][nd["is_leaf"] == 0]):
        raise ValueError("from_sklearn: HistGradientBoosting's categorical splits are not "
                         "converted")
    leaf = nd["is_leaf"] != 0
    left = np.where(leaf, -1, nd["left"]).astype(int)
    right = np.where(leaf, -1, nd["right"]).astype(int)
    return {"left": left.tolist(), "right": right.tolist(),
            "feature": np.where(leaf, 0, nd["feature_idx"]).astype(int).tolist(),
            "threshold": np.where(leaf, 0.0, nd["num_threshold"]).astype(float).tolist(),
            "default_left": np.where(leaf, 1, nd["missing_go_to_left"]).astype(int).tolist(),
            "value": nd["value"].astype(float).tolist(),
            "weight": nd["count"].astype(float).tolist(),
            "count": nd["count"].astype(float).tolist(),
            "gain": np.where(leaf | ~np.isfinite(nd["gain"]), 0.0, nd["gain"]).astype(float).tolist()}


def from_sklearn(estimator):
    """A fitted scikit-learn DecisionTree*, RandomForest*, ExtraTrees*, GradientBoosting* or
    HistGradientBoosting* (single output, numeric splits) as a grove model; predictions equal
    scikit-learn's on float32 inputs (up to the order of floating-point sums)."""
    est = estimator
    name = type(est).__name__
    if not type(est).__module__.startswith("sklearn."):
        raise ValueError(f"from_sklearn: {name} is not a supported tree ensemble "
                         "(scikit-learn's DecisionTree*, RandomForest*, ExtraTrees*, "
                         "GradientBoosting*)")
    is_clf = hasattr(est, "classes_")
    K = len(est.classes_) if is_clf else 0
    if is_clf and np.ndim(est.classes_[0]) != 0:
        raise ValueError("from_sklearn: multi-output models have no grove counterpart")
    nf = int(est.n_features_in_)
    doc = {"format": "grove-sklearn-trees", "n_features": nf, "n_classes": K}
    if name.startswith("DecisionTree"):
        doc.update(kind="tree", trees=[_tree_dump(est, is_clf)])
    elif name.startswith(("RandomForest", "ExtraTrees")):
        doc.update(kind="extra-trees" if name.startswith("ExtraTrees") else "forest",
                   trees=[_tree_dump(t, is_clf) for t in est.estimators_])
    elif name.startswith("HistGradientBoosting"):
        if is_clf and getattr(est, "loss", "log_loss") not in ("log_loss", "auto",
                                                               "binary_crossentropy",
                                                               "categorical_crossentropy"):
            raise ValueError(f"from_sklearn: loss={est.loss!r} has no grove counterpart")
        if not is_clf and getattr(est, "loss", "") in ("poisson", "gamma"):
            raise ValueError(f"from_sklearn: loss={est.loss!r} has no grove counterpart")
        base = np.asarray(est._baseline_prediction, dtype=np.float64).ravel()
        trees = [_hist_tree_dump(p) for stage in est._predictors for p in stage]
        obj = "squared" if not is_clf else ("logistic" if K == 2 else "softmax")
        doc.update(kind="gbdt", objective=obj, base=[float(b) for b in base], trees=trees)
    elif name.startswith("GradientBoosting"):
        loss = getattr(est, "loss", "")
        if is_clf and loss == "exponential":
            raise ValueError("from_sklearn: loss='exponential' has no grove counterpart")
        if is_clf and loss not in ("log_loss", "deviance"):
            raise ValueError(f"from_sklearn: loss={loss!r} has no grove counterpart")
        base = est._raw_predict_init(np.zeros((1, nf), dtype=np.float32))[0]
        lr = float(est.learning_rate)
        trees = [_tree_dump(est.estimators_[i, k], False, lr)
                 for i in range(est.estimators_.shape[0]) for k in range(est.estimators_.shape[1])]
        obj = "squared" if not is_clf else ("logistic" if K == 2 else "softmax")
        doc.update(kind="gbdt", objective=obj, base=[float(b) for b in base], trees=trees)
    else:
        raise ValueError(f"from_sklearn: {name} is not a supported tree ensemble "
                         "(DecisionTree*, RandomForest*, ExtraTrees*, GradientBoosting*, "
                         "HistGradientBoosting*)")
    data = json.dumps(doc).encode()
    return ConvertedModel(_convert("sklearn", data), est.classes_ if is_clf else None)


__all__ = ["ConvertedModel", "from_xgboost", "from_sklearn"]
