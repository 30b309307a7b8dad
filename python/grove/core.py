"""Thin owners of libgrove's handles: Params, Dataset (from numpy or pandas) and Model.

Every handle is freed by its owner's __del__; nothing here keeps a pointer into memory Python
might free (the library copies arrays it reads), and no raw handle travels without a reference
to its owner: a dataset that follows a model's schema is given the Model, not the schema's
pointer, so a fit in another thread that drops the estimator's model cannot free the schema
while the dataset is built from it.
"""
import ctypes
import json
import sys
import threading

import numpy as np

from ._lib import lib, check, take_string, GroveError, PROGRESS_FN, ROUND_FN

_vp = ctypes.c_void_p
_DP = ctypes.POINTER(ctypes.c_double)


def _dptr(a):
    return a.ctypes.data_as(_DP) if a is not None else None


class Params:
    """grove_params built from a dict of key -> value (values written as text)."""

    def __init__(self, values=None):
        h = _vp()
        check(lib.grove_params_create(ctypes.byref(h)))
        self.handle = h
        for k, v in (values or {}).items():
            self.set(k, v)

    def set(self, key, value):
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, float):
            text = repr(value)
        else:
            text = str(value)
        check(lib.grove_params_set(self.handle, key.encode(), text.encode()))

    def get(self, key):
        buf = ctypes.create_string_buffer(4096)
        check(lib.grove_params_get(self.handle, key.encode(), buf, len(buf)))
        return buf.value.decode()

    def __del__(self):
        if getattr(self, "handle", None):
            lib.grove_params_free(self.handle)
            self.handle = None


def _as_strided(X):
    """X (2-D float32/float64 ndarray) -> (array, dtype code, row stride, feature stride) in
    elements, copying only when the strides are not whole non-negative elements."""
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    item = X.itemsize
    rs, fs = X.strides
    if rs < 0 or fs < 0 or rs % item or fs % item:
        X = np.ascontiguousarray(X)
        rs, fs = X.strides
    return X, (0 if X.dtype == np.float32 else 1), rs // item, fs // item


def _issparse(X):
    return hasattr(X, "tocsr") and hasattr(X, "nnz")


class Dataset:
    """A grove_dataset built from a 2-D array or a scipy.sparse CSR matrix (canonical: sorted
    indices, no duplicates; kept sparse in grove when at most 1/8 of the cells are stored).
    `labels` (float64) are class values / indices or targets; `weights` sample weights; `like`
    None (infer the schema) or a Model or Dataset whose schema the new dataset follows (it is
    referenced while the dataset lives; grove copies the schema);
    `categories` maps a feature index to its list of category names (values are codes);
    `feature_names` names the features; `class_names`/`label_name` rename the classes;
    `qid` (one query id per row, each query's rows contiguous) gives learning to rank its
    query groups."""

    def __init__(self, X, labels=None, weights=None, params=None, like=None, categories=None,
                 feature_names=None, class_names=None, label_name=None, qid=None):
        if like is not None and not isinstance(like, (Model, Dataset)):
            raise TypeError("like: expected a grove Model or Dataset, found %r" % (like,))
        self._like = like     # keeps the schema's owner alive while this object lives
        schema = like.schema if like is not None else None
        n, p = X.shape
        if labels is not None:
            labels = np.ascontiguousarray(labels, dtype=np.float64)
        if weights is not None:
            weights = np.ascontiguousarray(weights, dtype=np.float64)
        h = _vp()
        if _issparse(X):
            vals = X.data if X.data.dtype in (np.float32, np.float64) else X.data.astype(np.float64)
            vals = np.ascontiguousarray(vals)
            indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
            indices = np.ascontiguousarray(X.indices, dtype=np.int64)
            check(lib.grove_dataset_from_csr(vals.ctypes.data_as(_vp),
                                             0 if vals.dtype == np.float32 else 1,
                                             indptr.ctypes.data_as(_vp),
                                             indices.ctypes.data_as(_vp), n, p, _dptr(labels),
                                             _dptr(weights), params.handle if params else None,
                                             schema, ctypes.byref(h)))
        else:
            X, dt, rs, fs = _as_strided(X)
            check(lib.grove_dataset_from_strided(X.ctypes.data_as(_vp), dt, n, p, rs, fs,
                                                 _dptr(labels), _dptr(weights), None,
                                                 params.handle if params else None, schema,
                                                 ctypes.byref(h)))
        self.handle = h
        self.n_rows = n
        if qid is not None:  # query groups (learning to rank): one id per row, runs contiguous
            qid = np.ascontiguousarray(qid, dtype=np.float64)
            check(lib.grove_dataset_set_queries(h, _dptr(qid), len(qid)))
        if schema is None:
            # only the features named or categorical: never a Python loop over every column of
            # a wide sparse matrix (up to 2^32 - 1 of them)
            features = range(p) if feature_names is not None else sorted(categories or {})
            for f in features:
                name = feature_names[f] if feature_names is not None else None
                cats = categories.get(f) if categories else None
                if name is None and cats is None:
                    continue
                arr = None
                if cats is not None:
                    arr = (ctypes.c_char_p * len(cats))(*[str(c).encode() for c in cats])
                check(lib.grove_dataset_set_feature(
                    h, f, str(name).encode() if name is not None else None, arr,
                    len(cats) if cats is not None else 0))
            if class_names is not None or label_name is not None:
                arr = None
                if class_names is not None:
                    arr = (ctypes.c_char_p * len(class_names))(*[c.encode() for c in class_names])
                check(lib.grove_dataset_set_classes(
                    h, arr, len(class_names) if class_names is not None else 0,
                    label_name.encode() if label_name is not None else None))

    @property
    def schema(self):
        """The dataset's schema handle, borrowed: valid while this Dataset is referenced."""
        return lib.grove_dataset_schema(self.handle)

    def __del__(self):
        if getattr(self, "handle", None):
            lib.grove_dataset_free(self.handle)
            self.handle = None


class Model:
    """An owned grove_model."""

    def __init__(self, handle):
        self.handle = handle

    @classmethod
    def train(cls, data, params, valid=None, verbose=0, init=None):
        """Trains in a worker thread while the calling thread waits in short joins, so that
        Ctrl-C (KeyboardInterrupt, Jupyter's interrupt) reaches Python at once: the library is
        then asked to cancel through its progress callback, which it polls every round, tree
        or run, and the interrupt is re-raised once the worker has stopped (within a round).
        verbose=N prints every N-th round's metrics (and the last) as XGBoost does:
        "[t]\ttrain-METRIC:v\tvalidation_0-METRIC:v" (t from 0).  init: a gbdt Model to continue
        (continued training: its rounds, then params' rounds more on data)."""
        cancel = threading.Event()
        every = int(verbose) if verbose is not True else 1

        def progress(ctx, stage, done, total):
            return 1 if cancel.is_set() else 0

        def round_done(ctx, t, total, metric, train, valid):
            if every > 0 and ((t - 1) % every == 0 or t == total):
                m = metric.decode()
                parts = ["[%d]" % (t - 1)]
                if train == train:
                    parts.append("train-%s:%.5f" % (m, train))
                if valid == valid:
                    parts.append("validation_0-%s:%.5f" % (m, valid))
                if len(parts) == 1:   # nothing measured this round (no eval_set)
                    parts.append("round %d of %d" % (t, total))
                print("\t".join(parts), file=sys.stdout, flush=True)
            return 1 if cancel.is_set() else 0

        pfn, rfn = PROGRESS_FN(progress), ROUND_FN(round_done)  # alive until train returns
        check(lib.grove_params_set_progress(params.handle, pfn, None))
        check(lib.grove_params_set_round_callback(params.handle, rfn, None))
        out = {}

        def work():
            h = _vp()
            try:
                vh = valid.handle if valid else None
                if init is not None:
                    check(lib.grove_train_continue(init.handle, data.handle, vh, params.handle,
                                                   ctypes.byref(h)))
                else:
                    check(lib.grove_train(data.handle, vh, params.handle, ctypes.byref(h)))
                out["model"] = cls(h)
            except BaseException as e:  # re-raised in the caller's thread
                out["error"] = e

        worker = threading.Thread(target=work, name="grove-train", daemon=True)
        try:
            worker.start()
            while worker.is_alive():
                worker.join(0.05)
        except BaseException:
            cancel.set()          # KeyboardInterrupt (or any signal's exception): stop it
            worker.join()
            out.pop("model", None)
            raise
        finally:
            lib.grove_params_set_progress(params.handle, PROGRESS_FN(), None)
            lib.grove_params_set_round_callback(params.handle, ROUND_FN(), None)
        if "error" in out:
            raise out["error"]
        return out["model"]

    @classmethod
    def load(cls, path):
        h = _vp()
        check(lib.grove_model_load(str(path).encode(), ctypes.byref(h)))
        return cls(h)

    @classmethod
    def from_bytes(cls, data):
        h = _vp()
        check(lib.grove_model_from_buffer(data, len(data), ctypes.byref(h)))
        return cls(h)

    def to_bytes(self):
        p = ctypes.c_void_p()
        n = ctypes.c_size_t()
        check(lib.grove_model_to_buffer(self.handle, ctypes.byref(p), ctypes.byref(n)))
        try:
            return ctypes.string_at(p, n.value)
        finally:
            lib.grove_string_free(p)

    def save(self, path):
        check(lib.grove_model_save(self.handle, str(path).encode()))

    @property
    def schema(self):
        """The model's schema handle, borrowed: valid while this Model is referenced."""
        return lib.grove_model_schema(self.handle)

    @property
    def algo(self):
        return lib.grove_model_algo(self.handle).decode()

    @property
    def n_outputs(self):
        return lib.grove_model_n_outputs(self.handle)

    @property
    def n_rounds(self):
        return lib.grove_model_n_rounds(self.handle)

    def n_classes(self):
        return lib.grove_schema_n_classes(self.schema)

    def class_names(self):
        s = self.schema
        return [lib.grove_schema_class_name(s, i).decode() for i in range(self.n_classes())]

    def feature_names(self):
        s = self.schema
        return [lib.grove_schema_feature_name(s, i).decode()
                for i in range(lib.grove_schema_n_features(s))]

    def predict(self, data, n_threads=0, rounds=None, out=None):
        """Class probabilities (n_rows x n_classes) or values (n_rows,) into `out` (a new
        C-ordered float64 array unless given)."""
        k = self.n_outputs
        if out is None:
            out = np.empty((data.n_rows, k), dtype=np.float64)
        ptr = out.ctypes.data_as(_DP)
        if rounds is None:
            check(lib.grove_model_predict(self.handle, data.handle, n_threads, ptr, out.size))
        else:
            check(lib.grove_model_predict_rounds(self.handle, data.handle, rounds, n_threads,
                                                 ptr, out.size))
        return out

    def contrib_groups(self):
        """Score groups of predict_contrib (gbdt: 1, or K for softmax; trees, forests and the
        AdaBoost family: K classes, or 1 for regression); ValueError for other models."""
        g = ctypes.c_size_t()
        check(lib.grove_model_contrib_groups(self.handle, ctypes.byref(g)))
        return g.value

    def predict_contrib(self, data, interactions=False, n_threads=0):
        """SHAP values of the model's score (grove_model_predict_contrib): a new float64 array
        (n_rows, G, F + 1), bias last, or with `interactions` (n_rows, G, F + 1, F + 1); F the
        model's features."""
        G = self.contrib_groups()
        F1 = lib.grove_schema_n_features(self.schema) + 1
        shape = (data.n_rows, G, F1, F1) if interactions else (data.n_rows, G, F1)
        out = np.empty(shape, dtype=np.float64)
        check(lib.grove_model_predict_contrib(self.handle, data.handle, 1 if interactions else 0,
                                              n_threads, out.ctypes.data_as(_DP), out.size))
        return out

    def predict_margin(self, data, n_threads=0):
        """The scores the contributions add up to: a new float64 array (n_rows, G)."""
        out = np.empty((data.n_rows, self.contrib_groups()), dtype=np.float64)
        check(lib.grove_model_predict_margin(self.handle, data.handle, n_threads,
                                             out.ctypes.data_as(_DP), out.size))
        return out

    def predict_label(self, data, n_threads=0):
        out = np.empty(data.n_rows, dtype=np.float64)
        check(lib.grove_model_predict_label(self.handle, data.handle, n_threads,
                                            out.ctypes.data_as(_DP), out.size))
        return out

    def margins(self, data, n_threads=0):
        out = np.empty(data.n_rows, dtype=np.float64)
        check(lib.grove_model_margins(self.handle, data.handle, n_threads,
                                      out.ctypes.data_as(_DP), out.size))
        return out

    def rank_metric(self, data, metric="ndcg", k=10, n_threads=0):
        """NDCG@k or MAP@k (metric "ndcg" or "map") of the scores on labelled data with query
        groups: (mean over the queries, per-query values)."""
        nq = lib.grove_dataset_n_queries(data.handle)
        per = np.empty(max(nq, 1), dtype=np.float64)
        mean = ctypes.c_double()
        check(lib.grove_model_rank_metric(self.handle, data.handle, metric.encode(), k,
                                          n_threads, per.ctypes.data_as(_DP), ctypes.byref(mean)))
        return mean.value, per[:nq]

    def log(self):
        """The per-round log as a dict of numpy arrays (column name -> values)."""
        p = ctypes.c_void_p()
        check(lib.grove_model_log_csv(self.handle, ctypes.byref(p)))
        text = take_string(p)
        lines = [l for l in text.splitlines() if l]
        head = lines[0].split(",")
        cols = {h: [] for h in head}
        for line in lines[1:]:
            for h, v in zip(head, line.split(",")):
                cols[h].append(float(v) if v not in ("", "nan", "null") else np.nan)
        return {h: np.asarray(v, dtype=np.int64 if h == "t" else np.float64)
                for h, v in cols.items()}

    def oob(self):
        e = ctypes.c_double()
        n = ctypes.c_size_t()
        check(lib.grove_model_oob(self.handle, ctypes.byref(e), ctypes.byref(n)))
        return e.value, n.value

    def n_columns(self):
        """The width of the data the model reads (its features are some of these columns when
        it was trained on a sparse matrix or LIBSVM file; see feature_columns)."""
        return lib.grove_schema_n_columns(self.schema)

    def feature_columns(self):
        s = self.schema
        return np.array([lib.grove_schema_feature_column(s, f)
                         for f in range(lib.grove_schema_n_features(s))], dtype=np.int64)

    def importance(self, kind="impurity", data=None, seed=0, n_threads=0):
        """One importance per column of the data (0 for a column the model has no feature of)."""
        p = lib.grove_schema_n_features(self.schema)
        out = np.empty(p, dtype=np.float64)
        check(lib.grove_model_importance(self.handle, kind.encode(),
                                         data.handle if data else None, seed, n_threads,
                                         out.ctypes.data_as(_DP), p))
        width = self.n_columns()
        if width == p:
            return out
        full = np.zeros(width, dtype=np.float64)
        full[self.feature_columns()] = out
        return full

    def dump(self, format="text"):
        """Every tree of the model as grove_model_dump writes it: "text", "json" or "csv"."""
        p = ctypes.c_void_p()
        check(lib.grove_model_dump(self.handle, format.encode(), ctypes.byref(p)))
        return take_string(p)

    def info(self):
        p = ctypes.c_void_p()
        check(lib.grove_model_info_json(self.handle, ctypes.byref(p)))
        return json.loads(take_string(p))

    def __del__(self):
        if getattr(self, "handle", None):
            lib.grove_model_free(self.handle)
            self.handle = None


def biasvar(train, test, params, replicates):
    p = ctypes.c_void_p()
    check(lib.grove_biasvar(train.handle, test.handle if test else None, params.handle,
                            replicates, ctypes.byref(p)))
    return json.loads(take_string(p))


__all__ = ["Params", "Dataset", "Model", "GroveError", "biasvar"]
