"""The grove package beyond check_estimator: scikit-learn tools, pickle, the CLI's files and
bytes, pandas, threads, the theory's objects, errors, and accuracy next to scikit-learn."""
import copy
import os
import pickle
import subprocess
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import grove as g

SRC = os.environ.get("GROVE_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
GROVE = os.environ.get("GROVE", os.path.join(SRC, "build", "grove"))
DATA = os.path.join(SRC, "examples", "data")


def load(name, part):
    df = pd.read_csv(os.path.join(DATA, "%s_%s.csv" % (name, part)), float_precision="round_trip")
    return df.drop(columns="label"), df["label"]


@pytest.fixture(scope="module")
def cancer():
    Xtr, ytr = load("breast_cancer", "train")
    Xte, yte = load("breast_cancer", "test")
    return Xtr, ytr, Xte, yte


def test_version_from_library():
    assert g.__version__ == g._lib.version()
    assert g.__version__.count(".") == 2


def test_pipeline_gridsearch_cv_clone(cancer):
    Xtr, ytr, Xte, yte = cancer
    pipe = Pipeline([("scale", StandardScaler()),
                     ("gbdt", g.GradientBoostingClassifier(n_estimators=20, random_state=1))])
    pipe.fit(Xtr, ytr)
    assert pipe.score(Xte, yte) > 0.9
    gs = GridSearchCV(g.RandomForestClassifier(n_estimators=10, random_state=0),
                      {"max_depth": [2, 6], "max_features": ["sqrt", "0.5"]}, cv=3)
    gs.fit(Xtr.values, ytr.values)
    assert set(gs.best_params_) == {"max_depth", "max_features"}
    assert gs.score(Xte.values, yte.values) > 0.9
    scores = cross_val_score(g.AdaBoostClassifier(n_estimators=20), Xtr.values, ytr.values, cv=4)
    assert scores.shape == (4,) and scores.mean() > 0.9
    c = clone(g.AdaBoostClassifier(base=g.DecisionTreeClassifier(max_depth=2), n_estimators=7))
    assert c.get_params()["base__max_depth"] == 2 and not hasattr(c, "_model")


def test_pickle_and_deepcopy_bit_identical(cancer):
    Xtr, ytr, Xte, _ = cancer
    for est in [g.GradientBoostingClassifier(n_estimators=15),
                g.AdaBoostClassifier(n_estimators=15, algorithm="samme.r"),
                g.RandomForestRegressor(n_estimators=5), g.MLPClassifier(max_iter=20)]:
        y = ytr if hasattr(est, "predict_proba") else (ytr == "malignant").astype(float)
        est.fit(Xtr, y)
        for other in (pickle.loads(pickle.dumps(est)), copy.deepcopy(est)):
            assert other.model_bytes() == est.model_bytes()
            f = "predict_proba" if hasattr(est, "predict_proba") else "predict"
            a, b = getattr(est, f)(Xte), getattr(other, f)(Xte)
            assert a.tobytes() == b.tobytes()


def test_same_model_bytes_as_cli_and_back(cancer, tmp_path):
    Xtr, ytr, Xte, yte = cancer
    est = g.RandomForestClassifier(n_estimators=8, random_state=3).fit(Xtr, ytr)
    path = tmp_path / "cli.model"
    subprocess.run([GROVE, "train", os.path.join(DATA, "breast_cancer_train.csv"), "-o",
                    str(path), "--algo", "forest", "--rounds", "8", "--seed", "3", "--set",
                    "task=classification", "-q"], check=True)
    assert path.read_bytes() == est.model_bytes()
    # the CLI predicts with the Python model, and Python with the CLI's
    py_path = tmp_path / "py.model"
    est.save_model(py_path)
    out = subprocess.run([GROVE, "predict", str(py_path), os.path.join(DATA,
                          "breast_cancer_test.csv")], check=True, capture_output=True, text=True)
    cli_labels = [l.split(",")[0] for l in out.stdout.splitlines()[1:]]
    assert cli_labels == list(est.predict(Xte))
    back = g.RandomForestClassifier().load_model(path)
    assert (back.predict(Xte) == est.predict(Xte)).all()
    assert list(back.classes_) == ["benign", "malignant"]


def test_numpy_layouts_and_labels(cancer):
    Xtr, ytr, Xte, _ = cancer
    X = Xtr.values
    ref = g.GradientBoostingClassifier(n_estimators=10).fit(X, ytr.values)
    p_ref = ref.predict_proba(Xte.values)
    for Xv in (np.asfortranarray(X), X.astype(np.float32), np.asfortranarray(X, np.float32),
               X[:, ::1].copy(order="F")):
        m = g.GradientBoostingClassifier(n_estimators=10).fit(Xv, ytr.values)
        assert m.model_bytes() == ref.model_bytes()
    # a strided view (every other column) equals its contiguous copy
    view = X[:, ::2]
    a = g.DecisionTreeClassifier(max_depth=4).fit(view, ytr.values)
    b = g.DecisionTreeClassifier(max_depth=4).fit(np.ascontiguousarray(view), ytr.values)
    assert a.model_bytes() == b.model_bytes()
    # labels: strings, ints, floats -> the same classes order and predictions
    yi = (ytr.values == "malignant").astype(int) * 7 + 2       # 2 / 9
    yf = yi.astype(float)                # 2.0 / 9.0 (scikit-learn: 0.5 would be continuous)
    for y in (yi, yf, ytr.values.astype(object)):
        m = g.AdaBoostClassifier(n_estimators=5).fit(X, y)
        assert list(m.classes_) == list(np.unique(y))
        assert set(m.predict(Xte.values)) <= set(np.unique(y))
    np.testing.assert_array_equal(p_ref, ref.predict_proba(np.asfortranarray(Xte.values)))


def test_sample_weight_changes_the_model(cancer):
    Xtr, ytr, _, _ = cancer
    w = np.where(ytr == "malignant", 5.0, 1.0)
    a = g.DecisionTreeClassifier(max_depth=3).fit(Xtr, ytr)
    b = g.DecisionTreeClassifier(max_depth=3).fit(Xtr, ytr, sample_weight=w)
    c = g.DecisionTreeClassifier(max_depth=3).fit(Xtr, ytr, sample_weight=np.ones(len(ytr)))
    assert a.model_bytes() != b.model_bytes()
    assert (a.predict(Xtr) == c.predict(Xtr)).all()


def test_pandas_categorical_columns_and_names():
    df = pd.read_csv(os.path.join(DATA, "house_votes84_train.csv"))
    te = pd.read_csv(os.path.join(DATA, "house_votes84_test.csv"))
    X, y = df.drop(columns="label"), df["label"]
    Xt, yt = te.drop(columns="label"), te["label"]
    assert all(X[c].dtype == object for c in X.columns)  # 'y' / 'n' / missing
    m = g.DecisionTreeClassifier(algorithm="id3", max_depth=4).fit(X, y)
    assert list(m.feature_names_in_) == list(X.columns)
    assert m.score(Xt, yt) > 0.85  # grove eval gives 0.900 with the same model
    # category dtype columns give the same model as object columns
    Xc = X.astype("category")
    m2 = g.DecisionTreeClassifier(algorithm="id3", max_depth=4).fit(Xc, y)
    assert m2.model_bytes() == m.model_bytes()
    info = m._model.info()
    assert "schema" in info or "features" in str(info)
    # unseen categories at prediction are missing, not an error
    Xu = Xt.copy()
    Xu.iloc[0, 0] = "maybe"
    assert len(m.predict(Xu)) == len(Xu)


def test_threads_predict_at_once(cancer):
    Xtr, ytr, Xte, _ = cancer
    m = g.RandomForestClassifier(n_estimators=30, n_jobs=1).fit(Xtr.values, ytr.values)
    X = np.tile(Xte.values, (50, 1))
    ref = m.predict_proba(X)
    results, errors = [None] * 8, []

    def work(i):
        try:
            results[i] = m.predict_proba(X)
        except Exception as e:  # pragma: no cover
            errors.append(e)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    for r in results:
        assert r.tobytes() == ref.tobytes()


def test_theory_objects():
    tr = pd.read_csv(os.path.join(DATA, "twonorm_train.csv"))
    te = pd.read_csv(os.path.join(DATA, "twonorm_test.csv"))
    X, y = tr.drop(columns="label").values, tr["label"].values
    Xt, yt = te.drop(columns="label").values, te["label"].values
    ada = g.AdaBoostClassifier(algorithm="adaboost", n_estimators=40).fit(X, y)
    log = ada.log_
    for k in ("t", "epsilon", "gamma", "alpha", "Z", "train_error", "prod_Z", "bound"):
        assert len(log[k]) == 40, k
    assert np.all(log["train_error"] <= log["prod_Z"] + 1e-12)
    assert np.all(log["prod_Z"] <= log["bound"] + 1e-12)
    staged = list(ada.staged_score(Xt, yt))
    assert len(staged) == 40 and abs(staged[-1] - ada.score(Xt, yt)) < 1e-12
    last = list(ada.staged_predict_proba(Xt))[-1]
    np.testing.assert_array_equal(last, ada.predict_proba(Xt))
    mg = ada.margins(X, y)
    assert mg.shape == (len(y),) and np.all(np.abs(mg) <= 1 + 1e-12)
    assert np.mean(mg > 0) == pytest.approx(1 - log["train_error"][-1])
    bag = g.BaggingClassifier(n_estimators=15, oob_score=True).fit(X, y)
    assert 0.8 < bag.oob_score_ <= 1
    assert len(next(iter(bag.log_.values()))) == 15  # the OOB curve, one row per member
    bv = g.bias_variance(g.DecisionTreeClassifier(max_depth=3), X, y, replicates=5)
    assert set(["bias", "variance"]) <= set(bv)


def test_eval_set_early_stopping(cancer):
    Xtr, ytr, Xte, yte = cancer
    m = g.GradientBoostingClassifier(n_estimators=500, learning_rate=0.5,
                                     early_stopping_rounds=5)
    m.fit(Xtr, ytr, eval_set=[(Xte, yte)])
    log = m.log_
    assert len(log["t"] if "t" in log else next(iter(log.values()))) < 500
    assert m.evals_result_


def test_errors_are_value_errors_with_the_library_message(cancer):
    Xtr, ytr, _, _ = cancer
    with pytest.raises(ValueError, match="max_depth"):
        g.DecisionTreeClassifier(max_depth=-1).fit(Xtr, ytr)
    with pytest.raises(ValueError, match="algorithm"):
        g.AdaBoostClassifier(algorithm="nope").fit(Xtr, ytr)
    with pytest.raises(ValueError, match="weight"):
        g.DecisionTreeClassifier().fit(Xtr, ytr, sample_weight=-np.ones(len(ytr)))
    with pytest.raises(ValueError, match="base"):
        g.AdaBoostClassifier(base=StandardScaler()).fit(Xtr, ytr)
    with pytest.raises(ValueError, match="features"):
        g.DecisionTreeClassifier().fit(Xtr.values, ytr).predict(Xtr.values[:, :3])
    with pytest.raises(ValueError, match="<buffer>"):
        g.Model.from_bytes(b'{"format": "nope"}')


def test_accuracy_parity_with_sklearn():
    """grove and scikit-learn's counterparts on the bundled splits: within 4 points."""
    import sklearn.ensemble as se
    import sklearn.tree as st
    pairs = [(g.DecisionTreeClassifier(max_depth=5), st.DecisionTreeClassifier(max_depth=5,
              random_state=0)),
             (g.RandomForestClassifier(n_estimators=50), se.RandomForestClassifier(
                 n_estimators=50, random_state=0)),
             (g.AdaBoostClassifier(n_estimators=50), se.AdaBoostClassifier(
                 n_estimators=50, algorithm="SAMME", random_state=0)),
             (g.GradientBoostingClassifier(n_estimators=50, learning_rate=0.1, max_depth=3),
              se.GradientBoostingClassifier(n_estimators=50, random_state=0))]
    for name in ("breast_cancer", "twonorm", "wine"):
        Xtr, ytr = load(name, "train")
        Xte, yte = load(name, "test")
        for ours, theirs in pairs:
            if name == "wine" and isinstance(theirs, se.GradientBoostingClassifier):
                continue
            a = clone(ours).fit(Xtr.values, ytr.values).score(Xte.values, yte.values)
            b = clone(theirs).fit(Xtr.values, ytr.values).score(Xte.values, yte.values)
            assert a >= b - 0.04, (name, type(ours).__name__, a, b)


def test_scipy_sparse_matches_dense_and_scales_with_nonzeros():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.RandomState(0)
    X = sp.random(400, 60, density=0.05, format="csr", random_state=rng, dtype=np.float64)
    y = (np.asarray(X[:, :6].sum(axis=1)).ravel() > 0.1).astype(int)
    for est in (g.RandomForestClassifier(n_estimators=5, random_state=1),
                g.GradientBoostingClassifier(n_estimators=10), g.AdaBoostClassifier(
                    n_estimators=10)):
        # grove stores this matrix sparse: a gradient or weight sum that takes the zeros' bin
        # from the node total differs from the dense sum in its last bits, so the dense model
        # is matched on predictions; every sparse format gives the CSR model's bytes
        a = clone(est).fit(X.toarray(), y)
        c = clone(est).fit(X, y)
        np.testing.assert_allclose(c.predict_proba(X), a.predict_proba(X.toarray()),
                                   rtol=0, atol=1e-12)
        assert (c.predict(X) == a.predict(X.toarray())).all()
        for fmt in ("csc", "coo"):
            b = clone(est).fit(X.asformat(fmt), y)
            assert b.model_bytes() == c.model_bytes()
            assert b.predict_proba(X.asformat(fmt)).tobytes() == c.predict_proba(X).tobytes()
    # unsorted indices and duplicates are canonicalized on a copy, the caller's matrix untouched
    m = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]), np.array([0, 3, 3])),
                      shape=(2, 3))
    before = (m.indices.copy(), m.data.copy())
    Xd = np.vstack([m.toarray()] * 10)
    Xs = sp.vstack([m] * 10, format="csr")
    Xs.has_canonical_format = False
    yy = np.array([0, 1] * 10)
    assert (g.DecisionTreeClassifier().fit(Xs, yy).model_bytes()
            == g.DecisionTreeClassifier().fit(Xd, yy).model_bytes())
    assert (m.indices == before[0]).all() and (m.data == before[1]).all()
    # news20-like width: 2,000 rows x 1,000,000 columns, 20 stored values a row (a dense copy
    # would be 8 GB); only the stored values are kept
    n, width = 2000, 1_000_000
    cols = np.sort(rng.choice(width, size=(n, 20), replace=True), axis=1)
    rows = np.repeat(np.arange(n), 20)
    W = sp.csr_matrix((np.ones(n * 20), (rows, cols.ravel())), shape=(n, width))
    yw = (cols[:, 0] % 2).astype(int)
    clf = g.RandomForestClassifier(n_estimators=3, random_state=0).fit(W, yw)
    assert clf.n_features_in_ == width
    assert clf.predict(W[:5]).shape == (5,)
    # compact features: only the columns that hold a value are features, and the
    # model's file keeps those its splits read; reloaded, it reads the full-width matrix (and
    # dense rows) and predicts the same; importances come per column
    assert clf.feature_importances_.shape == (width,)
    clf2 = pickle.loads(pickle.dumps(clf))
    assert len(clf2._model.feature_names()) < len(clf._model.feature_names()) <= len(set(W.indices))
    assert clf2.n_features_in_ == width
    assert clf2.predict_proba(W).tobytes() == clf.predict_proba(W).tobytes()
    np.testing.assert_allclose(clf2.feature_importances_, clf.feature_importances_, atol=1e-12)
    assert clf2.model_bytes() == clf.model_bytes()
    assert (clf2.predict_proba(W[:2].toarray()) == clf.predict_proba(W[:2])).all()
    for est in (g.GradientBoostingClassifier(n_estimators=3), g.DecisionTreeClassifier()):
        a = est.fit(W, yw)
        b = pickle.loads(pickle.dumps(a))
        assert b.predict_proba(W).tobytes() == a.predict_proba(W).tobytes()


def test_cascade_detect_like_opencv_and_train(tmp_path):
    cv2 = pytest.importorskip("cv2")
    xml = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    vis = os.path.join(SRC, "tests", "data", "vision")
    grey = cv2.imread(os.path.join(vis, "astronaut.pgm"), cv2.IMREAD_GRAYSCALE)
    c = g.Cascade.load(xml)
    assert c.window == (24, 24) and c.n_stages == 25 and c.stages() == []
    ours = c.detect(grey, scale_factor=1.1, min_neighbors=3)
    theirs = cv2.CascadeClassifier(xml).detectMultiScale(grey, scaleFactor=1.1, minNeighbors=3)
    assert sorted(map(tuple, ours[:, :4].tolist())) == sorted(map(tuple, np.asarray(theirs).tolist()))
    # a path, a strided view and another thread count give the same boxes
    assert (c.detect(os.path.join(vis, "astronaut.pgm"), n_jobs=1) == ours).all()
    wide = np.zeros((grey.shape[0], grey.shape[1] + 7), np.uint8)
    wide[:, :grey.shape[1]] = grey
    assert (c.detect(wide[:, :grey.shape[1]], n_jobs=2) == ours).all()
    with pytest.raises(ValueError, match="2-D grey"):
        c.detect(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="scale_factor"):
        c.detect(grey, scale_factor=1.0)
    # a small cascade trained from Python: its record, its files, and cv2 runs its XML
    t = g.Cascade.train(os.path.join(vis, "lfw"), os.path.join(vis, "negatives_small"),
                        stages=2, max_weak=10, negatives=200, n_jobs=2)
    rec = t.stages()
    assert len(rec) == t.n_stages >= 1
    assert abs(rec[-1]["F"] - np.prod([r["f"] for r in rec])) < 1e-12
    t.save(str(tmp_path / "t.json"))
    t.save_opencv(str(tmp_path / "t.xml"))
    back = g.Cascade.load(str(tmp_path / "t.json"))
    assert (back.detect(grey) == t.detect(grey)).all()
    cvt = cv2.CascadeClassifier(str(tmp_path / "t.xml"))
    assert not cvt.empty()
    raw_ours = t.detect(grey, min_neighbors=0)
    raw_cv = cvt.detectMultiScale(grey, scaleFactor=1.1, minNeighbors=0)
    assert len(raw_ours) == len(raw_cv)


def test_deep_nesting_refused_cleanly(cancer):
    """Parameter keys are bounded (8 levels of base.): a 60-deep nest of AdaBoost is refused by
    fit with a message naming the limit, and a 3-deep one pickles and loads back."""
    Xtr, ytr, Xte, _ = cancer
    est = g.AdaBoostClassifier(n_estimators=2)
    for _ in range(60):
        est = g.AdaBoostClassifier(base=est, n_estimators=2)
    with pytest.raises(ValueError, match="longer than 127 bytes|at most 8"):
        est.fit(Xtr, ytr)
    est = g.AdaBoostClassifier(base=g.BaggingClassifier(base=g.DecisionTreeClassifier(max_depth=2),
                                                         n_estimators=2), n_estimators=2)
    est.fit(Xtr, ytr)
    other = pickle.loads(pickle.dumps(est))
    assert other.model_bytes() == est.model_bytes()


def test_gbdt_continued_training_equals_one_run():
    """fit(..., init_model=old): old's rounds then n_estimators more, the model one fit of all
    the rounds gives (same data and parameters; subsampling draws keyed by the round)."""
    from grove import GradientBoostingClassifier, GradientBoostingRegressor
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 5))
    y = 2 * X[:, 0] + np.sin(X[:, 1]) + rng.normal(0, 0.1, 400)
    kw = dict(max_depth=3, subsample=0.8, random_state=1)
    a = GradientBoostingRegressor(n_estimators=6, **kw).fit(X, y)
    b = GradientBoostingRegressor(n_estimators=4, **kw).fit(X, y, init_model=a)
    c = GradientBoostingRegressor(n_estimators=10, **kw).fit(X, y)
    assert np.array_equal(b.predict(X), c.predict(X))
    yc = (y > 0).astype(int)
    a = GradientBoostingClassifier(n_estimators=6, max_depth=3).fit(X, yc)
    b = GradientBoostingClassifier(n_estimators=4, max_depth=3).fit(X, yc, init_model=a)
    c = GradientBoostingClassifier(n_estimators=10, max_depth=3).fit(X, yc)
    assert np.array_equal(b.predict_proba(X), c.predict_proba(X))
