"""scikit-learn estimators over libgrove.

Every estimator is a thin description of a grove training run: its constructor arguments map
to grove parameters (the table `_PARAMS` of each class: python name -> grove key), `fit` builds
a grove dataset from the data (numpy without an extra copy where the layout allows, scipy.sparse
matrices by their stored values, pandas with categorical columns), trains, and keeps the grove model; predictions are written by the library
into numpy arrays.  An argument left at None takes grove's default (`grove help params`).
A base learner is given as an estimator object: `AdaBoostClassifier(base=
DecisionTreeClassifier(max_depth=3))` becomes grove's base=tree, base.max_depth=3.
random_state None means seed 0 (grove is deterministic: the same data and seed give the same
model bytes as `grove train --seed`); n_jobs None or -1 uses every core.
"""
import csv
import io
import json
import numbers
import re
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (check_is_fitted, check_array, _check_sample_weight, column_or_1d,
                                      check_consistent_length, _num_samples)

from .core import Params, Dataset, Model, biasvar as _biasvar
from ._lib import lib

try:  # pandas is optional
    import pandas as _pd
except ImportError:  # pragma: no cover
    _pd = None


def _text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):  # monotone_constraints={"age": 1, "income": -1}
        return ",".join(f"{k}:{_text(x)}" for k, x in v.items())
    if isinstance(v, (tuple, list)):
        if any(isinstance(x, (tuple, list, set)) for x in v):  # interaction_constraints
            return "[" + ",".join("[" + ",".join(str(y) for y in x) + "]" for x in v) + "]"
        return ",".join(_text(x) for x in v)
    return str(v)


class _GroveBase(BaseEstimator):
    """What every grove estimator shares: parameters -> grove, data -> grove, model state."""

    _ALGO = None          # grove's algo name
    _PARAMS = {}          # python parameter -> grove key (None value = grove's default)
    _ALLOW_NAN = True     # tree learners send missing values down their best side
    _WEIGHTED_CLASSES = False  # fit refuses weights that leave one class (filter, confidence)

    # ---- parameters ----
    def _algo(self):
        return self._ALGO

    def _learner_params(self):
        """This estimator as a grove learner: {"algo": name, key: text} (no seed, threads)."""
        out = {"algo": self._algo()}
        for name, key in self._PARAMS.items():
            v = getattr(self, name)
            if v is None:
                continue
            out[key] = _text(v)
        self._extra_params(out)
        return out

    def _extra_params(self, out):
        """Hook: parameters that need more than a rename (base learners, lists)."""

    def _seed(self):
        rs = self.random_state
        if rs is None:
            return 0
        if isinstance(rs, numbers.Integral):
            return int(rs)
        return int(check_random_state(rs).randint(0, 2**31 - 1))

    def _threads(self):
        n = getattr(self, "n_jobs", None)
        if n is None or n < 0:
            return 0
        return int(n)

    def _params(self, task):
        p = self._learner_params()
        p["seed"] = self._seed()
        p["threads"] = self._threads()
        p["task"] = task
        return Params(p)

    # ---- data ----
    def _prepare_X(self, X, reset):
        """(array, categories {feature: [names]}, feature names or None)."""
        if _pd is not None and isinstance(X, _pd.DataFrame):
            self._check_feature_names(X, reset=reset)
            cats_fit = {} if reset else getattr(self, "_categories", {})
            cols = []
            cats = {}
            unseen = []   # (column, count, first value): categories the fit never saw
            for j, name in enumerate(X.columns):
                col = X.iloc[:, j]
                is_cat = (isinstance(col.dtype, _pd.CategoricalDtype) or col.dtype == object
                          or _pd.api.types.is_string_dtype(col.dtype))
                if reset and is_cat:
                    if isinstance(col.dtype, _pd.CategoricalDtype):
                        names = [str(c) for c in col.cat.categories]
                    else:
                        names = sorted({str(v) for v in col.dropna()})
                    cats[j] = names
                if (j in cats) if reset else (j in cats_fit):
                    names = cats[j] if reset else cats_fit[j]
                    index = {n: i for i, n in enumerate(names)}
                    values = col.astype(object)
                    missing = np.array([v is None or (isinstance(v, float) and np.isnan(v))
                                        for v in values], dtype=bool)
                    codes = np.array([np.nan if m else index.get(str(v), np.nan)
                                      for v, m in zip(values, missing)], dtype=np.float64)
                    new = np.isnan(codes) & ~missing
                    if new.any():
                        unseen.append((name, int(new.sum()), values[np.argmax(new)]))
                    cols.append(codes)
                else:
                    cols.append(np.asarray(col, dtype=np.float64))
            if reset:
                self._categories = cats
            if unseen:
                n = sum(u[1] for u in unseen)
                warnings.warn("%d value%s of unseen categories treated as missing (first: column "
                              "'%s': %r)" % (n, "" if n == 1 else "s", unseen[0][0],
                                             unseen[0][2]), UserWarning, stacklevel=3)
            if not cols:
                raise ValueError("0 feature(s) (shape=(%d, 0)) while a minimum of 1 is required."
                                 % X.shape[0])
            A = np.column_stack(cols) if len(cols) > 1 else cols[0].reshape(-1, 1)
            A = self._infinities_missing(check_array(
                A, dtype=[np.float64, np.float32],
                force_all_finite=False if self._ALLOW_NAN else True))
            self._check_n_features(A, reset=reset)
            names = [str(c) for c in X.columns]
            return A, cats, names
        if reset:
            self._categories = {}
        A = self._validate_data(X, reset=reset, accept_sparse="csr",
                                dtype=[np.float64, np.float32],
                                force_all_finite=False if self._ALLOW_NAN else True)
        if hasattr(A, "has_canonical_format") and not A.has_canonical_format:
            A = A.copy()          # sorted indices, duplicates summed; the caller's is untouched
            A.sum_duplicates()
        return self._infinities_missing(A), {}, None

    @staticmethod
    def _infinities_missing(A):
        """+-inf are missing values, as the CLI reads "inf" in a file (learners that take
        missing values only; the others refuse infinities in check_array).  A copy when there
        are any: the caller's array is untouched."""
        vals = A.data if hasattr(A, "nnz") else A
        inf = np.isinf(vals)
        if not inf.any():
            return A
        A = A.copy()
        vals = A.data if hasattr(A, "nnz") else A
        vals[inf] = np.nan
        return A

    def _fitted(self):
        """The model as it is now.  Every method reads self._model once through this and keeps
        the reference for the whole call: a fit in another thread replaces self._model, and the
        old model lives on (and is freed) only when the last such reference goes."""
        check_is_fitted(self, "_model")
        return self._model

    def _dataset(self, X, model):
        A, _, _ = self._prepare_X(X, reset=False)
        return Dataset(A, like=model)

    # ---- fit ----
    def _fit(self, X, y, sample_weight, task, eval_set=None, verbose=0, init_model=None,
             qid=None, valid_qid=None):
        if y is None:
            self._validate_data(X, y)  # raises: requires y
        A, cats, names = self._prepare_X(X, reset=True)
        label_name = None
        if _pd is not None and isinstance(y, _pd.Series) and y.name is not None:
            label_name = str(y.name)
        y = column_or_1d(y, warn=True)
        check_consistent_length(A, y)
        w = None
        if sample_weight is not None:
            w = _check_sample_weight(sample_weight, A, dtype=np.float64)
        if task == "classification":
            check_classification_targets(y)
            classes, idx = np.unique(y, return_inverse=True)
            if len(classes) < 2:
                raise ValueError("y has 1 class (%r); a classifier needs at least two"
                                 % (classes[0] if len(classes) else None))
            self.classes_ = classes
            if classes.dtype.kind in "iufb":
                labels, class_names = classes[idx].astype(np.float64), None
            else:
                labels, class_names = idx.astype(np.float64), [str(c) for c in classes]
        else:
            labels = np.asarray(y, dtype=np.float64)
            if not np.all(np.isfinite(labels)):
                raise ValueError("Input y contains NaN or infinity.")
            class_names = None
        if (task == "classification" and w is not None and self._WEIGHTED_CLASSES
                and len(np.unique(idx[w > 0])) < 2):
            raise ValueError("sample_weight leaves 1 class with positive weight; %s needs at "
                             "least two classes" % type(self).__name__)
        if getattr(self, "early_stopping_rounds", None) and not eval_set:
            raise ValueError("early_stopping_rounds=%r needs validation data: fit(X, y, "
                             "eval_set=[(X_valid, y_valid)])" % (self.early_stopping_rounds,))
        params = self._params(task)
        init = getattr(init_model, "_model", init_model)  # a fitted estimator, or a Model
        if init is not None:  # continued training: the rows read with the saved model's schema
            if task == "classification" and not np.array_equal(
                    getattr(init_model, "classes_", classes), classes):
                raise ValueError("init_model was fitted on other classes")
            data = Dataset(A, labels, w, params, like=init, qid=qid)
        else:
            data = Dataset(A, labels, w, params, categories=cats, feature_names=names,
                           class_names=class_names, label_name=label_name, qid=qid)
        valid = None
        if eval_set:
            Xv, yv = eval_set[-1]
            Av, _, _ = self._prepare_X(Xv, reset=False)
            valid = Dataset(Av, self._valid_labels(data, yv, task), None, params, like=data,
                            qid=valid_qid)
        try:
            model = Model.train(data, params, valid, verbose, init)
        except ValueError as e:
            raise self._train_error(e, A) from None
        except KeyboardInterrupt:
            # an interrupted fit leaves the estimator unfitted, not holding an older model
            self.__dict__.pop("_model", None)
            raise
        if task == "classification" and model.n_classes() != len(self.classes_):
            raise ValueError("grove: %d classes in the model, %d in y"
                             % (model.n_classes(), len(self.classes_)))
        self._model = model
        self.n_features_in_ = A.shape[1]
        self._after_fit(A, labels, w)
        return self

    def _train_error(self, err, A):
        """Hook: the library's training error as raised (subclasses add context)."""
        return err

    def _valid_labels(self, data, yv, task):
        yv = column_or_1d(yv)
        if task != "classification":
            return np.asarray(yv, dtype=np.float64)
        idx = np.searchsorted(self.classes_, yv)
        idx[idx >= len(self.classes_)] = 0
        if not np.all(self.classes_[idx] == yv):
            raise ValueError("eval_set: a label not among the training classes %r"
                             % list(self.classes_))
        s = data.schema
        names = [lib.grove_schema_class_name(s, i).decode() for i in range(len(self.classes_))]
        try:
            values = np.array([float(n) for n in names])
            return values[idx]
        except ValueError:
            return idx.astype(np.float64)

    def _after_fit(self, A, labels, w):
        """Hook: fitted attributes beyond the model (oob_score_)."""

    # ---- pickle: the model as its file bytes ----
    def __getstate__(self):
        state = super().__getstate__()
        if "_model" in state:
            state = dict(state)
            state["_model"] = self._model.to_bytes()
        return state

    def __setstate__(self, state):
        if "_model" in state:
            state = dict(state)
            state["_model"] = Model.from_bytes(state["_model"])
        super().__setstate__(state)

    # ---- the model ----
    def save_model(self, path):
        """Writes the model in grove's file format (the CLI's `grove predict` reads it)."""
        self._fitted().save(path)

    def load_model(self, path):
        """Reads a model file written by `grove train` or save_model; returns self."""
        m = Model.load(path)
        names = m.class_names()
        if isinstance(self, ClassifierMixin):
            try:
                self.classes_ = np.array([float(n) for n in names])
                if np.all(self.classes_ == np.round(self.classes_)):
                    self.classes_ = self.classes_.astype(np.int64)
            except ValueError:
                self.classes_ = np.array(names, dtype=object)
        self._model = m
        self.n_features_in_ = m.n_columns()
        self._categories = {}
        return self

    def model_bytes(self):
        """The model's file bytes (what save_model writes)."""
        return self._fitted().to_bytes()

    _IMPORTANCE = "impurity"  # the kind feature_importances_ reads (grove_model_importance)

    @property
    def feature_importances_(self):
        """One importance per feature, normalized to sum 1 (all 0 when nothing splits): impurity
        importances of trees and forests (scikit-learn's definition), weighted by |alpha| for
        the AdaBoost family; gbdt's mean gain per split (XGBoost's default); |coef| on the
        standardized features for linear models.  AttributeError when the model has none."""
        m = self._fitted()
        try:
            v = self._importances(m)
        except ValueError as e:
            raise AttributeError(str(e)) from None
        total = v.sum()
        return v / total if total > 0 else v

    def _importances(self, m):
        return m.importance(self._IMPORTANCE)

    # ---- the trees as text and tables ----
    def get_dump(self, dump_format="text", with_stats=True):
        """Every tree as a list of strings, one per tree, as XGBoost's Booster.get_dump:
        dump_format "text" (lines "0:[f<=t] yes=1,no=2,missing=1,gain=..,cover=..", leaves
        "leaf=v"; with_stats=False drops gain, cover and count) or "json" (one nested object
        per tree).  Members without trees (linear models) are entries of their own.  Leaf
        values of gbdt are margin terms: base_score plus the leaves a row reaches in the trees
        of its group give the margin (output_margin)."""
        m = self._fitted()
        if dump_format == "json":
            return [json.dumps(t) for t in json.loads(m.dump("json"))["trees"]]
        if dump_format != "text":
            raise ValueError("dump_format must be 'text' or 'json', got %r" % (dump_format,))
        trees, cur = [], None
        for line in m.dump("text").splitlines():
            if line.startswith("booster["):
                cur = [line]
                trees.append(cur)
            elif cur is not None and not line.startswith("#"):
                if not with_stats:
                    line = re.sub(r",(gain|cover|count)=[^,]*", "", line)
                cur.append(line)
        return ["\n".join(t) + "\n" for t in trees]

    def dump_model(self, fout, dump_format="text", with_stats=True):
        """Writes every tree to the file or path `fout` (XGBoost's Booster.dump_model): the text
        of `grove dump` (dump_format "text", "json" or "csv"); with_stats=False: text without
        gain, cover and count."""
        if dump_format not in ("text", "json", "csv"):
            raise ValueError("dump_format must be 'text', 'json' or 'csv', got %r" % (dump_format,))
        text = self._fitted().dump(dump_format)
        if dump_format == "text" and not with_stats:
            text = re.sub(r",(gain|cover|count)=[^,\n]*", "", text)
        if hasattr(fout, "write"):
            fout.write(text)
        else:
            with open(fout, "w", encoding="utf-8") as f:
                f.write(text)

    _DUMP_INT = ("Tree", "Node", "Member", "Round")
    _DUMP_FLOAT = ("Split", "Gain", "Cover", "Count", "Weight")

    def trees_to_dataframe(self):
        """One row per node of every tree, as XGBoost's and LightGBM's trees_to_dataframe:
        columns Tree, Node, ID ("tree-node"), Feature ("Leaf" for leaves), Split (threshold,
        NaN for categorical splits and leaves), Category (the categories sent to Yes), Yes, No,
        Missing (IDs), Gain, Cover, Count, Value (a leaf's value; several values, such as a
        classification tree's class probabilities, joined by ';'), Class, Member, Round and
        Weight (alpha or voting weight; NaN when none).  A pandas DataFrame when pandas can be
        imported; otherwise a dict of numpy arrays (column name -> array, in the same order),
        which pandas.DataFrame() accepts as it is.  Members without trees have no rows."""
        rows = list(csv.reader(io.StringIO(self._fitted().dump("csv"))))
        head, body = rows[0], rows[1:]
        cols = {}
        for j, h in enumerate(head):
            v = [r[j] for r in body]
            if h in self._DUMP_INT:
                cols[h] = np.array([int(x) for x in v], dtype=np.int64)
            elif h in self._DUMP_FLOAT:
                cols[h] = np.array([float(x) if x else np.nan for x in v], dtype=np.float64)
            elif h == "Value" and not any(";" in x for x in v):
                cols[h] = np.array([float(x) if x else np.nan for x in v], dtype=np.float64)
            else:
                cols[h] = np.array(v, dtype=object)
        try:
            import pandas
        except ImportError:
            return cols
        return pandas.DataFrame(cols)

    # ---- contributions ----
    def shap_values(self, X, interactions=False):
        """Per-feature contributions (path-dependent TreeSHAP) of the model's score, shaped as
        XGBoost's Booster.predict(pred_contribs=True): (n_samples, n_features + 1), the bias
        last, for one score group (regression, gbdt with two classes: its margin before the
        sigmoid), (n_samples, n_groups, n_features + 1) for several (softmax gbdt: per class;
        trees and forests: the probability of each class; the AdaBoost family: each class's
        score).  Each row of a group sums to the score (output_margin).  With `interactions`,
        XGBoost's pred_interactions: (n_samples, [n_groups,] n_features + 1, n_features + 1).
        Models that are not sums of trees raise ValueError."""
        m = self._fitted()  # one reference for the whole call: a concurrent fit cannot free it
        phi = m.predict_contrib(self._dataset(X, m), interactions, self._threads())
        s = m.schema
        F = lib.grove_schema_n_features(s)
        W = self.n_features_in_
        if W != F:  # compact features: each model feature at its column, the others 0
            cols = [lib.grove_schema_feature_column(s, f) for f in range(F)] + [W]
            shape = phi.shape[:2] + ((W + 1, W + 1) if interactions else (W + 1,))
            full = np.zeros(shape, dtype=np.float64)
            if interactions:
                full[:, :, np.ix_(cols, cols)[0], np.ix_(cols, cols)[1]] = phi
            else:
                full[:, :, cols] = phi
            phi = full
        return phi[:, 0] if phi.shape[1] == 1 else phi

    def _predict_contrib(self, X, pred_contribs, pred_interactions):
        if pred_contribs and pred_interactions:
            raise ValueError("pred_contribs and pred_interactions: choose one")
        return self.shap_values(X, interactions=bool(pred_interactions))

    def _more_tags(self):
        return {"allow_nan": self._ALLOW_NAN, "_xfail_checks": self._xfail_checks()}

    def _xfail_checks(self):
        return {}


class _Classifier(ClassifierMixin, _GroveBase):
    def fit(self, X, y, sample_weight=None):
        return self._fit(X, y, sample_weight, "classification")

    def predict_proba(self, X):
        m = self._fitted()
        return m.predict(self._dataset(X, m), self._threads())

    def predict(self, X, pred_contribs=False, pred_interactions=False):
        """Predicted classes; with pred_contribs or pred_interactions the contributions
        instead (shap_values)."""
        if pred_contribs or pred_interactions:
            return self._predict_contrib(X, pred_contribs, pred_interactions)
        m = self._fitted()
        idx = m.predict_label(self._dataset(X, m), self._threads()).astype(np.intp)
        return self.classes_[idx]

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class _Regressor(RegressorMixin, _GroveBase):
    def fit(self, X, y, sample_weight=None):
        return self._fit(X, y, sample_weight, "regression")

    def predict(self, X, pred_contribs=False, pred_interactions=False):
        """Predicted values; with pred_contribs or pred_interactions the contributions
        instead (shap_values)."""
        if pred_contribs or pred_interactions:
            return self._predict_contrib(X, pred_contribs, pred_interactions)
        m = self._fitted()
        return m.predict(self._dataset(X, m), self._threads()).ravel()


# ---- theory: staged predictions, the per-round log, margins ----

class _RoundsMixin:
    """Models trained in rounds (the AdaBoost family, gbdt, bagging): the per-round log."""

    @property
    def best_iteration(self):
        """After early stopping (early_stopping_rounds with an eval_set), the 0-based round the
        model ends with: the best on the last eval_set, XGBoost's name.  AttributeError
        otherwise."""
        self._valid_column()
        return self._fitted().n_rounds - 1

    @property
    def best_score(self):
        """The last eval_set's metric at best_iteration (XGBoost's name)."""
        col = self._valid_column()
        return float(col[self.best_iteration])

    def _valid_column(self):
        m = self._fitted()
        if getattr(self, "early_stopping_rounds", None):
            log = m.log()
            for k, v in log.items():
                if k.startswith("valid"):
                    return v
        raise AttributeError("best_iteration and best_score exist after early stopping: fit "
                             "with early_stopping_rounds and eval_set=[(X_valid, y_valid)]")

    @property
    def log_(self):
        """The per-round training log as a dict of numpy arrays: boosting t, epsilon, gamma,
        alpha, Z, train_error, prod_Z, bound (and valid_error); bagging the OOB curve; gbdt the
        evaluation metric per round."""
        return self._fitted().log()


class _StagedMixin(_RoundsMixin):
    def _stages(self, X):
        m = self._fitted()
        d = self._dataset(X, m)
        for t in range(1, m.n_rounds + 1):
            yield m.predict(d, self._threads(), rounds=t)

    def staged_predict_proba(self, X):
        """Class probabilities after 1, 2, ..., T rounds."""
        yield from self._stages(X)

    def staged_predict(self, X):
        for p in self._stages(X):
            if isinstance(self, ClassifierMixin):
                yield self.classes_[np.argmax(p, axis=1)]
            else:
                yield p.ravel()

    def staged_score(self, X, y, sample_weight=None):
        from sklearn.metrics import accuracy_score, r2_score
        f = accuracy_score if isinstance(self, ClassifierMixin) else r2_score
        for p in self.staged_predict(X):
            yield f(y, p, sample_weight=sample_weight)

    def margins(self, X, y):
        """Normalized voting margins y f(x) / sum |alpha| in [-1, 1] of labelled rows."""
        m = self._fitted()
        A, _, _ = self._prepare_X(X, reset=False)
        d0 = Dataset(A, like=m)
        labels = self._valid_labels(d0, y, "classification")
        d = Dataset(A, labels, like=m)
        return m.margins(d, self._threads())


def _base_params(base, default):
    """{"base": algo, "base.k": v} for a base estimator (None: default, may be None)."""
    if base is None:
        base = default
    if base is None:
        return {}
    if not isinstance(base, _GroveBase):
        raise ValueError("base: expected a grove estimator (e.g. grove.DecisionTreeClassifier()),"
                         " found %r" % (base,))
    out = {}
    for k, v in base._learner_params().items():
        out["base" if k == "algo" else "base." + k] = v
    return out


# ---- single learners ----

_TREE_PARAMS = {
    "criterion": "criterion", "max_depth": "max_depth", "min_samples_split": "min_samples_split",
    "min_samples_leaf": "min_samples_leaf", "min_weight_leaf": "min_weight_leaf",
    "max_features": "max_features", "max_leaf_nodes": "max_leaves", "min_gain": "min_gain",
    "growth": "growth", "categorical_split": "categorical_split", "max_bins": "max_bins",
}


class DecisionTreeClassifier(_Classifier):
    """CART (algorithm="cart") or ID3 (algorithm="id3") on grove's binned data.  criterion gini |
    entropy; max_depth None = unlimited; min_gain is the minimum weighted impurity decrease
    summed over the node's rows; categorical_split partition | multiway."""
    _PARAMS = _TREE_PARAMS

    def __init__(self, algorithm="cart", criterion=None, max_depth=None, min_samples_split=None,
                 min_samples_leaf=None, min_weight_leaf=None, max_features=None,
                 max_leaf_nodes=None, min_gain=None, growth=None, categorical_split=None,
                 max_bins=None, random_state=None, n_jobs=None):
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_leaf = min_weight_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_gain = min_gain
        self.growth = growth
        self.categorical_split = categorical_split
        self.max_bins = max_bins
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _algo(self):
        if self.algorithm not in ("cart", "id3", "stump"):
            raise ValueError("algorithm: expected cart, id3 or stump, found %r" % (self.algorithm,))
        return {"cart": "tree", "id3": "id3", "stump": "stump"}[self.algorithm]


class DecisionTreeRegressor(_Regressor):
    """CART regression tree (variance criterion) on grove's binned data."""
    _ALGO = "tree"
    _PARAMS = _TREE_PARAMS

    def __init__(self, criterion=None, max_depth=None, min_samples_split=None,
                 min_samples_leaf=None, min_weight_leaf=None, max_features=None,
                 max_leaf_nodes=None, min_gain=None, growth=None, categorical_split=None,
                 max_bins=None, random_state=None, n_jobs=None):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_leaf = min_weight_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_gain = min_gain
        self.growth = growth
        self.categorical_split = categorical_split
        self.max_bins = max_bins
        self.random_state = random_state
        self.n_jobs = n_jobs


class _Linear:
    """Linear models: importances are the coefficients' sizes on the standardized features
    (the model's own units), summed over the classes' rows."""

    def _importances(self, m):
        lin = json.loads(m.to_bytes())["model"]
        coef = np.abs(np.asarray(lin["coef"], dtype=np.float64))
        p = len(lin["mean"])
        full = coef.reshape(-1, p).sum(axis=0)
        width = m.n_columns()
        if width == p:
            return full
        out = np.zeros(width)
        out[m.feature_columns()] = full
        return out


class PerceptronClassifier(_Linear, _Classifier):
    """Rosenblatt's perceptron (variant classic | averaged | pocket) on standardized features;
    predict_proba is the one-hot vote."""
    _ALGO = "perceptron"
    _PARAMS = {"epochs": "perceptron.epochs", "variant": "perceptron.variant"}
    _ALLOW_NAN = False

    def __init__(self, epochs=None, variant=None, random_state=None, n_jobs=None):
        self.epochs = epochs
        self.variant = variant
        self.random_state = random_state
        self.n_jobs = n_jobs


class LogisticRegression(_Linear, _Classifier):
    """L2-regularized logistic regression (binary or multinomial, L-BFGS), scikit-learn's C."""
    _ALGO = "logistic"
    _PARAMS = {"C": "logistic.C", "max_iter": "logistic.max_iter", "tol": "logistic.tol"}
    _ALLOW_NAN = False

    def __init__(self, C=None, max_iter=None, tol=None, random_state=None, n_jobs=None):
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs


class MLPClassifier(_Classifier):
    """One hidden layer (hidden_layer_sizes: an int or a 1-tuple), softmax output, Adam or SGD."""
    _ALGO = "mlp"
    _PARAMS = {"activation": "mlp.activation", "alpha": "mlp.alpha",
               "learning_rate_init": "mlp.learning_rate", "batch_size": "mlp.batch_size",
               "max_iter": "mlp.epochs", "solver": "mlp.solver", "momentum": "mlp.momentum",
               "tol": "mlp.tol"}
    _ALLOW_NAN = False

    def __init__(self, hidden_layer_sizes=None, activation=None, alpha=None,
                 learning_rate_init=None, batch_size=None, max_iter=None, solver=None,
                 momentum=None, tol=None, random_state=None, n_jobs=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.alpha = alpha
        self.learning_rate_init = learning_rate_init
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.solver = solver
        self.momentum = momentum
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _extra_params(self, out):
        h = self.hidden_layer_sizes
        if h is None:
            return
        if isinstance(h, (tuple, list)):
            if len(h) != 1:
                raise ValueError("hidden_layer_sizes: grove's MLP has one hidden layer, found %r"
                                 % (h,))
            h = h[0]
        out["mlp.hidden"] = str(int(h))

    def _xfail_checks(self):
        d = super()._xfail_checks()
        d["check_non_transformer_estimators_n_iter"] = \
            "grove's model does not record the number of epochs run (no n_iter_)"
        return d


# ---- boosting ----

_ADA_ALGOS = {"adaboost": "adaboost", "m1": "adaboost.m1", "samme": "samme",
              "samme.r": "samme.r", "m2": "adaboost.m2"}


class AdaBoostClassifier(_StagedMixin, _Classifier):
    """AdaBoost: algorithm adaboost (two classes) | m1 | samme | samme.r | m2; mode reweight |
    resample (sample_size rows drawn per round); base learner default: a stump."""
    _PARAMS = {"n_estimators": "rounds", "learning_rate": "boost.learning_rate",
               "mode": "boost.mode", "sample_size": "boost.sample_size",
               "early_stopping_rounds": "early_stopping_rounds"}

    def __init__(self, base=None, n_estimators=50, algorithm="samme", learning_rate=None,
                 mode=None, sample_size=None, early_stopping_rounds=None, random_state=None,
                 n_jobs=None):
        self.base = base
        self.n_estimators = n_estimators
        self.algorithm = algorithm
        self.learning_rate = learning_rate
        self.mode = mode
        self.sample_size = sample_size
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _algo(self):
        if self.algorithm not in _ADA_ALGOS:
            raise ValueError("algorithm: expected one of %s, found %r"
                             % (", ".join(_ADA_ALGOS), self.algorithm))
        return _ADA_ALGOS[self.algorithm]

    def _extra_params(self, out):
        out.update(_base_params(self.base, None))

    def fit(self, X, y, sample_weight=None, eval_set=None, verbose=0):
        """verbose=N prints every N-th round's metrics while it trains (XGBoost's format)."""
        return self._fit(X, y, sample_weight, "classification", eval_set, verbose)

    def decision_function(self, X):
        """Two classes: the vote sum_t alpha_t h_t(x) / sum_t alpha_t in [-1, 1] (positive
        for classes_[1]), from the normalized probabilities; K classes: the class scores."""
        p = self.predict_proba(X)
        if p.shape[1] == 2:
            return p[:, 1] - p[:, 0]
        return p


class AdaBoostRegressor(_StagedMixin, _Regressor):
    """AdaBoost.R2 (Drucker 1997), loss linear | square | exponential; base default: a CART
    regression tree of depth 3 (scikit-learn's)."""
    _ALGO = "adaboost.r2"
    _PARAMS = {"n_estimators": "rounds", "learning_rate": "boost.learning_rate",
               "loss": "boost.loss"}

    def __init__(self, base=None, n_estimators=50, loss=None, learning_rate=None,
                 random_state=None, n_jobs=None):
        self.base = base
        self.n_estimators = n_estimators
        self.loss = loss
        self.learning_rate = learning_rate
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _extra_params(self, out):
        out.update(_base_params(self.base, DecisionTreeRegressor(max_depth=3)))


class FilterBoostClassifier(_StagedMixin, _Classifier):
    """Schapire's (1990) boosting by filtering: a recursive majority of three (depth k: 3^k
    base learners), each trained on examples filtered from the oracle."""
    _ALGO = "filter-boost"
    _WEIGHTED_CLASSES = True
    _PARAMS = {"depth": "filter.depth", "budget": "filter.budget",
               "sample_size": "boost.sample_size"}

    def _xfail_checks(self):
        d = super()._xfail_checks()
        for c in ("check_sample_weights_shape", "check_sample_weights_not_overwritten",
                  "check_pipeline_consistency", "check_dict_unchanged",
                  "check_sample_weights_invariance"):
            d[c] = _FILTER_SEPARABLE
        return d

    def __init__(self, base=None, depth=None, budget=None, sample_size=None, random_state=None,
                 n_jobs=None):
        self.base = base
        self.depth = depth
        self.budget = budget
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _extra_params(self, out):
        out.update(_base_params(self.base, None))


_FILTER_SEPARABLE = (
    "the check's data is separated by the first base learner: Schapire's filter then finds no "
    "example that hypothesis gets wrong within filter.budget draws and grove refuses to boost "
    "(GROVE_ERR_DATA 'nothing to boost') rather than return a majority of one")
_CONFIDENCE_ROWS = (
    "the check fits on fewer than 21 rows; boosting the confidence needs k runs plus a "
    "selection sample of (9/eps^2) ln(4k/delta) rows, at least 21 for any epsilon, delta < 1, "
    "and grove refuses smaller data by name")


class ConfidenceBoostClassifier(_StagedMixin, _Classifier):
    """Boosting the confidence: k = ceil(log2(2/delta)) runs at error epsilon/3, the best kept."""
    _ALGO = "confidence-boost"
    _WEIGHTED_CLASSES = True
    _PARAMS = {"epsilon": "confidence.epsilon", "delta": "confidence.delta",
               "sample_size": "boost.sample_size"}

    def _xfail_checks(self):
        d = super()._xfail_checks()
        for c in ("check_estimators_dtypes", "check_sample_weights_not_an_array",
                  "check_sample_weights_shape", "check_sample_weights_not_overwritten",
                  "check_classifier_data_not_an_array", "check_classifiers_classes",
                  "check_methods_sample_order_invariance", "check_methods_subset_invariance",
                  "check_fit2d_1feature", "check_dict_unchanged",
                  "check_dont_overwrite_parameters", "check_fit2d_predict1d",
                  "check_sample_weights_pandas_series", "check_sample_weights_invariance"):
            d[c] = _CONFIDENCE_ROWS
        return d

    def __init__(self, base=None, epsilon=None, delta=None, sample_size=None, random_state=None,
                 n_jobs=None):
        self.base = base
        self.epsilon = epsilon
        self.delta = delta
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _extra_params(self, out):
        out.update(_base_params(self.base, None))


class _GBDT(_RoundsMixin):
    _ALGO = "gbdt"
    _IMPORTANCE = "gain"
    _PARAMS = {"n_estimators": "rounds", "learning_rate": "learning_rate",
               "max_depth": "max_depth", "max_leaves": "max_leaves", "grow_policy": "growth",
               "min_child_weight": "min_child_weight", "gamma": "gamma",
               "reg_lambda": "lambda", "reg_alpha": "alpha", "subsample": "subsample",
               "colsample_bytree": "colsample_bytree", "colsample_bynode": "colsample_bynode",
               "max_bin": "max_bins", "objective": "objective", "base_score": "base_score",
               "eval_metric": "eval_metric", "early_stopping_rounds": "early_stopping_rounds",
               "monotone_constraints": "monotone_constraints",
               "interaction_constraints": "interaction_constraints"}
    # grove's own gbdt parameters under their grove names (docs/params.md): each estimator
    # lists those of its objectives in _EXTRA, and its _PARAMS gets them
    _EXTRA = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "_EXTRA" in cls.__dict__:
            cls._PARAMS = dict(_GBDT._PARAMS, **{k: k for k in cls._EXTRA})

    def _init(self, n_estimators, learning_rate, max_depth, max_leaves, grow_policy,
              min_child_weight, gamma, reg_lambda, reg_alpha, subsample, colsample_bytree,
              colsample_bynode, max_bin, objective, base_score, eval_metric,
              early_stopping_rounds, random_state, n_jobs, monotone_constraints=None,
              interaction_constraints=None, **extra):
        for k in self._EXTRA:
            setattr(self, k, extra.pop(k))
        assert not extra, extra
        self.monotone_constraints = monotone_constraints
        self.interaction_constraints = interaction_constraints
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.grow_policy = grow_policy
        self.min_child_weight = min_child_weight
        self.gamma = gamma
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.colsample_bynode = colsample_bynode
        self.max_bin = max_bin
        self.objective = objective
        self.base_score = base_score
        self.eval_metric = eval_metric
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _extra_params(self, out):
        if out.get("growth") == "lossguide":
            out["growth"] = "bestfirst"

    @property
    def evals_result_(self):
        """XGBoost's shape: {"validation_0": {metric: [...]}} from the per-round log."""
        log = self.log_
        res = {}
        for k, v in log.items():
            if k in ("t", "round"):
                continue
            res.setdefault("validation_0" if k.startswith("valid") else "train", {})[k] = list(v)
        return res


class GradientBoostingClassifier(_GBDT, _Classifier):
    """Gradient boosting on histograms with XGBoost's parameter names (max_depth default 6,
    learning_rate 0.3, reg_lambda 1 ...); fit(X, y, eval_set=[(X_val, y_val)]) with
    early_stopping_rounds stops on the last eval_set's metric and keeps the best round.
    cat_smooth, max_cat_threshold, min_data_per_group, cat_l2, quantized_bits and train_metric
    are grove's parameters of those names (docs/params.md)."""
    _EXTRA = ("cat_smooth", "max_cat_threshold", "min_data_per_group", "cat_l2", "quantized_bits",
              "train_metric")

    def __init__(self, n_estimators=100, learning_rate=None, max_depth=6, max_leaves=None,
                 grow_policy=None, min_child_weight=None, gamma=None, reg_lambda=None,
                 reg_alpha=None, subsample=None, colsample_bytree=None, colsample_bynode=None,
                 max_bin=None, objective=None, base_score=None, eval_metric=None,
                 early_stopping_rounds=None, random_state=None, n_jobs=None,
                 monotone_constraints=None, interaction_constraints=None, cat_smooth=None,
                 max_cat_threshold=None, min_data_per_group=None, cat_l2=None,
                 quantized_bits=None, train_metric=None):
        self._init(n_estimators, learning_rate, max_depth, max_leaves, grow_policy,
                   min_child_weight, gamma, reg_lambda, reg_alpha, subsample, colsample_bytree,
                   colsample_bynode, max_bin, objective, base_score, eval_metric,
                   early_stopping_rounds, random_state, n_jobs, monotone_constraints,
                   interaction_constraints, cat_smooth=cat_smooth,
                   max_cat_threshold=max_cat_threshold, min_data_per_group=min_data_per_group,
                   cat_l2=cat_l2, quantized_bits=quantized_bits, train_metric=train_metric)

    def fit(self, X, y, sample_weight=None, eval_set=None, verbose=0, init_model=None):
        """verbose=N prints every N-th round's metrics while it trains (XGBoost's format);
        init_model: a fitted GradientBoostingClassifier (or its grove Model) whose rounds the new
        model starts with (continued training: n_estimators more rounds)."""
        return self._fit(X, y, sample_weight, "classification", eval_set, verbose, init_model)


class GradientBoostingRegressor(_GBDT, _Regressor):
    """Gradient boosting regression (objective squared | absolute | huber | poisson | tweedie |
    gamma | quantile), XGBoost's names; the objectives' own parameters under grove's names:
    huber_delta, tweedie_variance_power, quantile_alpha (XGBoost 2's name),
    poisson_max_delta_step (XGBoost's max_delta_step for poisson); and those of
    GradientBoostingClassifier (cat_smooth ... train_metric)."""
    _EXTRA = ("huber_delta", "tweedie_variance_power", "quantile_alpha",
              "poisson_max_delta_step", "cat_smooth", "max_cat_threshold", "min_data_per_group", "cat_l2", "quantized_bits",
              "train_metric")

    def __init__(self, n_estimators=100, learning_rate=None, max_depth=6, max_leaves=None,
                 grow_policy=None, min_child_weight=None, gamma=None, reg_lambda=None,
                 reg_alpha=None, subsample=None, colsample_bytree=None, colsample_bynode=None,
                 max_bin=None, objective=None, base_score=None, eval_metric=None,
                 early_stopping_rounds=None, random_state=None, n_jobs=None,
                 monotone_constraints=None, interaction_constraints=None, huber_delta=None,
                 tweedie_variance_power=None, quantile_alpha=None, poisson_max_delta_step=None,
                 cat_smooth=None, max_cat_threshold=None, min_data_per_group=None, cat_l2=None,
                 quantized_bits=None, train_metric=None):
        self._init(n_estimators, learning_rate, max_depth, max_leaves, grow_policy,
                   min_child_weight, gamma, reg_lambda, reg_alpha, subsample, colsample_bytree,
                   colsample_bynode, max_bin, objective, base_score, eval_metric,
                   early_stopping_rounds, random_state, n_jobs, monotone_constraints,
                   interaction_constraints, huber_delta=huber_delta,
                   tweedie_variance_power=tweedie_variance_power, quantile_alpha=quantile_alpha,
                   poisson_max_delta_step=poisson_max_delta_step, cat_smooth=cat_smooth,
                   max_cat_threshold=max_cat_threshold, min_data_per_group=min_data_per_group,
                   cat_l2=cat_l2, quantized_bits=quantized_bits, train_metric=train_metric)

    def fit(self, X, y, sample_weight=None, eval_set=None, verbose=0, init_model=None):
        """verbose=N prints every N-th round's metrics while it trains (XGBoost's format);
        init_model: a fitted GradientBoostingRegressor (or its grove Model) whose rounds the new
        model starts with (continued training: n_estimators more rounds)."""
        return self._fit(X, y, sample_weight, "regression", eval_set, verbose, init_model)


class GradientBoostingRanker(_GBDT, _GroveBase):
    """Learning to rank with gradient boosting, as xgboost.XGBRanker: fit(X, y, group=sizes)
    or fit(X, y, qid=ids) with y the relevance grades (>= 0) and each query's rows contiguous;
    predict(X) gives the scores (higher first); score(X, y, group=/qid=) the mean NDCG@eval_at
    (default 10) over the queries.  objective "rank:pairwise" (XGBRanker's default; RankNet
    pairs) or "lambdarank" (LambdaMART, lambdarank_truncation); sample_weight one weight per
    query, as XGBRanker's.  eval_set=[(X_val, y_val)] with eval_group=[sizes] or
    eval_qid=[ids] for early stopping on the validation NDCG.  Other parameters as
    GradientBoostingRegressor's."""
    _EXTRA = ("lambdarank_truncation", "eval_at", "cat_smooth", "max_cat_threshold", "min_data_per_group", "cat_l2", "quantized_bits",
              "train_metric")

    def __init__(self, n_estimators=100, learning_rate=None, max_depth=6, max_leaves=None,
                 grow_policy=None, min_child_weight=None, gamma=None, reg_lambda=None,
                 reg_alpha=None, subsample=None, colsample_bytree=None, colsample_bynode=None,
                 max_bin=None, objective="rank:pairwise", base_score=None, eval_metric=None,
                 early_stopping_rounds=None, random_state=None, n_jobs=None,
                 monotone_constraints=None, interaction_constraints=None,
                 lambdarank_truncation=None, eval_at=None, cat_smooth=None,
                 max_cat_threshold=None, min_data_per_group=None, cat_l2=None,
                 quantized_bits=None, train_metric=None):
        self._init(n_estimators, learning_rate, max_depth, max_leaves, grow_policy,
                   min_child_weight, gamma, reg_lambda, reg_alpha, subsample, colsample_bytree,
                   colsample_bynode, max_bin, objective, base_score, eval_metric,
                   early_stopping_rounds, random_state, n_jobs, monotone_constraints,
                   interaction_constraints, lambdarank_truncation=lambdarank_truncation,
                   eval_at=eval_at, cat_smooth=cat_smooth, max_cat_threshold=max_cat_threshold,
                   min_data_per_group=min_data_per_group, cat_l2=cat_l2,
                   quantized_bits=quantized_bits, train_metric=train_metric)

    @staticmethod
    def _qid(n, group, qid, what="group"):
        """Per-row query ids from XGBRanker's group (sizes of consecutive queries) or qid."""
        if (group is None) == (qid is None):
            raise ValueError("give the query groups: one of %s= (the sizes of consecutive "
                             "queries) or %s= (a query id per row)"
                             % (what, "qid" if what == "group" else "eval_qid"))
        if qid is not None:
            qid = np.asarray(column_or_1d(qid), dtype=np.float64)
            if len(qid) != n:
                raise ValueError("qid: %d ids for %d rows" % (len(qid), n))
            return qid
        sizes = np.asarray(column_or_1d(group), dtype=np.int64)
        if np.any(sizes <= 0) or sizes.sum() != n:
            raise ValueError("%s: the query sizes must be positive and sum to the %d rows, got "
                             "%d in all" % (what, n, int(sizes.sum())))
        return np.repeat(np.arange(len(sizes), dtype=np.float64), sizes)

    def fit(self, X, y, group=None, qid=None, sample_weight=None, eval_set=None,
            eval_group=None, eval_qid=None, verbose=0, init_model=None):
        """X, y (relevance grades >= 0); group (query sizes, in row order) or qid (a query id
        per row, each query's rows contiguous); sample_weight: one weight per query."""
        n = _num_samples(X)
        q = self._qid(n, group, qid)
        w = None
        if sample_weight is not None:  # per query, as XGBRanker's: every row of the query
            sw = np.asarray(column_or_1d(sample_weight), dtype=np.float64)
            starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
            if len(sw) != len(starts):
                raise ValueError("sample_weight: one weight per query (%d queries), got %d"
                                 % (len(starts), len(sw)))
            w = np.repeat(sw, np.diff(np.r_[starts, n]))
        qv = None
        if eval_set:
            nv = _num_samples(eval_set[-1][0])
            qv = self._qid(nv, None if eval_group is None else eval_group[-1],
                           None if eval_qid is None else eval_qid[-1], "eval_group")
        return self._fit(X, y, w, "regression", eval_set, verbose, init_model, qid=q,
                         valid_qid=qv)

    def predict(self, X, pred_contribs=False, pred_interactions=False):
        """The scores (higher ranks first); with pred_contribs or pred_interactions the
        contributions instead (shap_values)."""
        if pred_contribs or pred_interactions:
            return self._predict_contrib(X, pred_contribs, pred_interactions)
        m = self._fitted()
        return m.predict(self._dataset(X, m), self._threads()).ravel()

    def score(self, X, y, group=None, qid=None):
        """The mean over the queries of NDCG@eval_at (gains 2^y - 1, XGBoost's ndcg@k)."""
        m = self._fitted()
        A, _, _ = self._prepare_X(X, reset=False)
        d = Dataset(A, np.asarray(column_or_1d(y), dtype=np.float64), like=m,
                    qid=self._qid(A.shape[0], group, qid))
        k = self.eval_at if self.eval_at is not None else 10
        return m.rank_metric(d, "ndcg", int(k), self._threads())[0]


# ---- bagging family ----

class _BaggingBase(_RoundsMixin):
    _BOOTSTRAP_DEFAULT = True

    def _xfail_checks(self):
        d = super()._xfail_checks()
        if self.bootstrap if self.bootstrap is not None else self._BOOTSTRAP_DEFAULT:
            # as scikit-learn's own forests and bagging declare it
            d["check_sample_weights_invariance"] = (
                "(kind=zeros) the check shuffles the rows as it appends the rows of weight zero; "
                "rows of weight zero take no part in grove's bootstrap draws, but the draws pick "
                "rows by position, so the same rows in another order draw other replicates (in "
                "the same order the models are identical at any size: python/tests/"
                "test_estimators.py)")
        return d

    def _after_fit(self, A, labels, w):
        if not getattr(self, "oob_score", False):
            return
        err, n = self._fitted().oob()
        if isinstance(self, ClassifierMixin):
            self.oob_score_ = 1.0 - err
        else:
            # grove's OOB error is the mean squared error; R^2 against the labels' variance
            var = float(np.var(labels))
            self.oob_score_ = 1.0 - err / var if var > 0 else 0.0
        self.oob_n_ = n


_BAG_PARAMS = {"n_estimators": "rounds", "max_samples": "sample_fraction",
               "bootstrap": "bagging.replace", "voting": "bagging.vote",
               "oob_importance": "oob_importance"}


class BaggingClassifier(_BaggingBase, _Classifier):
    """Bagging of any base learner (default: an unpruned CART tree); oob_score_ = out-of-bag
    accuracy; log_ is the OOB curve."""
    _ALGO = "bagging"
    _PARAMS = _BAG_PARAMS

    def __init__(self, base=None, n_estimators=10, max_samples=None, bootstrap=None,
                 voting=None, oob_score=False, oob_importance=None, random_state=None,
                 n_jobs=None):
        self.base = base
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.voting = voting
        self.oob_score = oob_score
        self.oob_importance = oob_importance
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _extra_params(self, out):
        out.update(_base_params(self.base, DecisionTreeClassifier()))


class BaggingRegressor(_BaggingBase, _Regressor):
    """Bagging regression (default base: an unpruned regression tree); oob_score_ is R^2."""
    _ALGO = "bagging"
    _PARAMS = {k: v for k, v in _BAG_PARAMS.items() if k != "voting"}

    def __init__(self, base=None, n_estimators=10, max_samples=None, bootstrap=None,
                 oob_score=False, oob_importance=None, random_state=None, n_jobs=None):
        self.base = base
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.oob_importance = oob_importance
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _extra_params(self, out):
        out.update(_base_params(self.base, DecisionTreeRegressor()))


_FOREST_PARAMS = dict(_TREE_PARAMS, n_estimators="rounds", max_samples="sample_fraction",
                      bootstrap="bagging.replace", oob_importance="oob_importance")


def _forest_init(self, n_estimators, criterion, max_depth, min_samples_split, min_samples_leaf,
                 max_features, max_leaf_nodes, bootstrap, max_samples, oob_score,
                 oob_importance, random_state, n_jobs):
    self.n_estimators = n_estimators
    self.criterion = criterion
    self.max_depth = max_depth
    self.min_samples_split = min_samples_split
    self.min_samples_leaf = min_samples_leaf
    self.max_features = max_features
    self.max_leaf_nodes = max_leaf_nodes
    self.bootstrap = bootstrap
    self.max_samples = max_samples
    self.oob_score = oob_score
    self.oob_importance = oob_importance
    self.random_state = random_state
    self.n_jobs = n_jobs


class _Forest(_BaggingBase):
    _PARAMS = {k: v for k, v in _FOREST_PARAMS.items()
               if k not in ("min_weight_leaf", "min_gain", "growth", "categorical_split",
                            "max_bins")}


class RandomForestClassifier(_Forest, _Classifier):
    """Breiman's random forest (max_features None = sqrt); soft vote; oob_score_."""
    _ALGO = "forest"

    def __init__(self, n_estimators=100, criterion=None, max_depth=None, min_samples_split=None,
                 min_samples_leaf=None, max_features=None, max_leaf_nodes=None, bootstrap=None,
                 max_samples=None, oob_score=False, oob_importance=None, random_state=None,
                 n_jobs=None):
        _forest_init(self, n_estimators, criterion, max_depth, min_samples_split,
                     min_samples_leaf, max_features, max_leaf_nodes, bootstrap, max_samples,
                     oob_score, oob_importance, random_state, n_jobs)


class RandomForestRegressor(_Forest, _Regressor):
    """Random forest regression (max_features None = 1/3 of the features)."""
    _ALGO = "forest"

    def __init__(self, n_estimators=100, criterion=None, max_depth=None, min_samples_split=None,
                 min_samples_leaf=None, max_features=None, max_leaf_nodes=None, bootstrap=None,
                 max_samples=None, oob_score=False, oob_importance=None, random_state=None,
                 n_jobs=None):
        _forest_init(self, n_estimators, criterion, max_depth, min_samples_split,
                     min_samples_leaf, max_features, max_leaf_nodes, bootstrap, max_samples,
                     oob_score, oob_importance, random_state, n_jobs)


class ExtraTreesClassifier(_Forest, _Classifier):
    """Extremely randomized trees (Geurts et al. 2006): every tree sees all rows (bootstrap
    None = false), random thresholds."""
    _ALGO = "extra-trees"
    _BOOTSTRAP_DEFAULT = False

    def __init__(self, n_estimators=100, criterion=None, max_depth=None, min_samples_split=None,
                 min_samples_leaf=None, max_features=None, max_leaf_nodes=None, bootstrap=None,
                 max_samples=None, oob_score=False, oob_importance=None, random_state=None,
                 n_jobs=None):
        _forest_init(self, n_estimators, criterion, max_depth, min_samples_split,
                     min_samples_leaf, max_features, max_leaf_nodes, bootstrap, max_samples,
                     oob_score, oob_importance, random_state, n_jobs)


class ExtraTreesRegressor(_Forest, _Regressor):
    """Extremely randomized regression trees."""
    _ALGO = "extra-trees"
    _BOOTSTRAP_DEFAULT = False

    def __init__(self, n_estimators=100, criterion=None, max_depth=None, min_samples_split=None,
                 min_samples_leaf=None, max_features=None, max_leaf_nodes=None, bootstrap=None,
                 max_samples=None, oob_score=False, oob_importance=None, random_state=None,
                 n_jobs=None):
        _forest_init(self, n_estimators, criterion, max_depth, min_samples_split,
                     min_samples_leaf, max_features, max_leaf_nodes, bootstrap, max_samples,
                     oob_score, oob_importance, random_state, n_jobs)


# ---- stacking and voting ----

def _members(estimators):
    """grove's learner list and their shared base.KEY parameters from a list of estimators or
    (name, estimator) pairs.  grove gives every member the same base.KEY values, so two members
    setting one key to different values cannot be expressed: ValueError."""
    if estimators is None:
        return {}
    algos, shared = [], {}
    for e in estimators:
        if isinstance(e, tuple):
            e = e[1]
        if not isinstance(e, _GroveBase):
            raise ValueError("estimators: expected grove estimators, found %r" % (e,))
        p = e._learner_params()
        algos.append(p.pop("algo"))
        for k, v in p.items():
            if k in shared and shared[k] != v:
                raise ValueError("estimators: grove shares member parameters; %s is %s in one "
                                 "member and %s in another" % (k, shared[k], v))
            shared[k] = v
    if not algos:
        raise ValueError("estimators: expected at least one estimator")
    out = {"base." + k: v for k, v in shared.items()}
    out["_learners"] = ",".join(algos)
    return out


_ZERO_WEIGHT_ROWS = ("(kind=zeros) rows of weight zero still take part in the draw, so removing "
                     "them changes the random choices: %s")


class _Stacking:
    _ALGO = "stacking"

    def _xfail_checks(self):
        return {"check_sample_weights_invariance": _ZERO_WEIGHT_ROWS %
                "the out-of-fold split assigns every row, weighted or not, to a fold"}

    _PARAMS = {"cv": "stack.folds", "passthrough": "stack.passthrough"}

    def _train_error(self, err, A):
        # the library counts distinct rows against the folds; say the sample count too
        if "distinct training rows" in str(err):
            return ValueError("n_samples = %d: %s" % (A.shape[0], err))
        return err

    def _extra_params(self, out):
        m = _members(self.estimators)
        if m:
            out["stack.learners"] = m.pop("_learners")
            out.update(m)
        fe = self.final_estimator
        if fe is not None:
            if not isinstance(fe, _GroveBase):
                raise ValueError("final_estimator: expected a grove estimator, found %r" % (fe,))
            p = fe._learner_params()
            out["stack.meta"] = p.pop("algo")
            out.update(p)


class StackingClassifier(_Stacking, _Classifier):
    """Stacked generalization: out-of-fold predictions of the members (default tree, forest,
    logistic) feed the final estimator (default logistic regression)."""
    _ALLOW_NAN = False

    def __init__(self, estimators=None, final_estimator=None, cv=None, passthrough=None,
                 random_state=None, n_jobs=None):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.passthrough = passthrough
        self.random_state = random_state
        self.n_jobs = n_jobs


class StackingRegressor(_Stacking, _Regressor):
    """Stacking regression (default members tree, forest, mlp; meta: non-negative least
    squares, Breiman 1996)."""
    _ALLOW_NAN = False

    def __init__(self, estimators=None, final_estimator=None, cv=None, passthrough=None,
                 random_state=None, n_jobs=None):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.passthrough = passthrough
        self.random_state = random_state
        self.n_jobs = n_jobs


class _Voting:
    _ALGO = "voting"
    _PARAMS = {"weights": "voting.weights"}

    def _extra_params(self, out):
        m = _members(self.estimators)
        if m:
            out["voting.learners"] = m.pop("_learners")
            out.update(m)
        v = getattr(self, "voting", None)
        if v is not None:
            out["voting.mode"] = v


class VotingClassifier(_Voting, _Classifier):
    """Hard or soft weighted voting of grove estimators (default tree, forest, logistic)."""
    _ALLOW_NAN = False

    def __init__(self, estimators=None, voting=None, weights=None, random_state=None,
                 n_jobs=None):
        self.estimators = estimators
        self.voting = voting
        self.weights = weights
        self.random_state = random_state
        self.n_jobs = n_jobs


class VotingRegressor(_Voting, _Regressor):
    """Weighted mean of grove regressors (default tree, forest, mlp)."""
    _ALLOW_NAN = False

    def _xfail_checks(self):
        return {"check_sample_weights_invariance": _ZERO_WEIGHT_ROWS %
                "the default mlp member draws its minibatches from every row"}

    def __init__(self, estimators=None, weights=None, random_state=None, n_jobs=None):
        self.estimators = estimators
        self.weights = weights
        self.random_state = random_state
        self.n_jobs = n_jobs


def bias_variance(estimator, X, y, X_test=None, y_test=None, replicates=20):
    """Bias-variance decomposition (grove_biasvar) of `estimator`'s algorithm: squared loss for
    regressors, Domingos' zero-one decomposition for classifiers.  Returns a dict."""
    is_clf = isinstance(estimator, ClassifierMixin)
    task = "classification" if is_clf else "regression"
    est = estimator.__class__(**estimator.get_params())
    A, cats, names = est._prepare_X(X, reset=True)
    y = column_or_1d(y)
    if is_clf:
        classes, idx = np.unique(y, return_inverse=True)
        est.classes_ = classes
        labels = (classes[idx].astype(np.float64) if classes.dtype.kind in "iufb"
                  else idx.astype(np.float64))
    else:
        labels = np.asarray(y, dtype=np.float64)
    params = est._params(task)
    train = Dataset(A, labels, None, params, categories=cats, feature_names=names)
    test = None
    if X_test is not None:
        At, _, _ = est._prepare_X(X_test, reset=False)
        test = Dataset(At, est._valid_labels(train, y_test, task), None, params, like=train)
    return _biasvar(train, test, params, replicates)
