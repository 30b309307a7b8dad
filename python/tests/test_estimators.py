"""The estimators as scikit-learn users drive them: several threads on one estimator,
importances for feature selection, interrupting and watching a fit, early stopping's best
round, infinities and unseen categories, wide sparse matrices."""
import os
import threading

import numpy as np
import pandas as pd
import pytest

import grove as g

SRC = os.environ.get("GROVE_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(SRC, "examples", "data")


def load(name, part):
    df = pd.read_csv(os.path.join(DATA, "%s_%s.csv" % (name, part)), float_precision="round_trip")
    return df.drop(columns="label"), df["label"]


@pytest.fixture(scope="module")
def cancer():
    Xtr, ytr = load("breast_cancer", "train")
    Xte, yte = load("breast_cancer", "test")
    return Xtr.values, ytr.values, Xte.values, yte.values


def test_predict_on_six_threads_while_another_refits(cancer):
    # predict must keep the model it reads alive: a refit in another thread replaces (and
    # frees) the estimator's previous model while predictions still read its schema
    Xtr, ytr, Xte, _ = cancer
    est = g.RandomForestClassifier(n_estimators=3, max_depth=3, n_jobs=1, random_state=0)
    est.fit(Xtr, ytr)
    iterations = int(os.environ.get("GROVE_RACE_ITERATIONS", "200"))
    stop = threading.Event()
    errors, refits = [], [0]

    def refit():
        seed = 1
        while not stop.is_set():
            try:
                est.set_params(random_state=seed).fit(Xtr, ytr)
            except Exception as e:  # pragma: no cover - the failure being tested
                errors.append(e)
                return
            seed += 1
            refits[0] += 1

    def predict():
        try:
            for _ in range(iterations):
                p = est.predict_proba(Xte)
                assert p.shape == (len(Xte), 2)
                assert np.allclose(p.sum(axis=1), 1.0)
                assert set(np.unique(est.predict(Xte))) <= set(est.classes_)
        except Exception as e:  # pragma: no cover - the failure being tested
            errors.append(e)

    fitter = threading.Thread(target=refit)
    fitter.start()
    workers = [threading.Thread(target=predict) for _ in range(6)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    stop.set()
    fitter.join()
    assert not errors, errors[:3]
    assert refits[0] > 0


def test_csr_as_wide_as_the_limit():
    # 4,294,967,295 columns (docs/limits.md), three of them stored: fit and predict follow the
    # stored values (before, Dataset looped in Python over every column, and past 2^31 - 1
    # columns the library ran out of memory)
    import time
    import scipy.sparse as sp
    n, width = 50, 2**32 - 1
    y = np.arange(n) % 2
    rows = np.repeat(np.arange(n), 3)
    cols = np.tile(np.array([0, 5, width - 1], dtype=np.int64), n)
    vals = np.column_stack([np.arange(n), np.ones(n), 2.0 * y - 1]).ravel()
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, width))
    t = time.perf_counter()
    est = g.DecisionTreeClassifier(max_depth=2).fit(X, y)
    np.testing.assert_array_equal(est.predict(X), y)
    assert time.perf_counter() - t < 10
    assert est.n_features_in_ == width
    assert est._model.n_columns() == width
    assert list(est._model.feature_columns()) == [0, 5, width - 1]


def test_feature_importances_of_boosting_and_linear_models(cancer):
    import json
    from sklearn.feature_selection import SelectFromModel
    Xtr, ytr, _, _ = cancer
    p = Xtr.shape[1]
    # AdaBoost of stumps: each round's importances are one-hot on its feature, weighted by alpha
    ada = g.AdaBoostClassifier(n_estimators=12).fit(Xtr, ytr)
    doc = json.loads(ada.model_bytes())["model"]
    want = np.zeros(p)
    for a, member in zip(doc["alpha"], doc["members"]):
        want[int(member["feature"].split()[0])] += abs(a)
    np.testing.assert_allclose(ada.feature_importances_, want / want.sum(), rtol=1e-12)
    # gbdt: XGBoost's default, the mean gain per split, normalized
    gb = g.GradientBoostingClassifier(n_estimators=10, max_depth=3).fit(Xtr, ytr)
    gain = gb._model.importance("gain")
    np.testing.assert_allclose(gb.feature_importances_, gain / gain.sum(), rtol=1e-12)
    # linear models: |coef| on the standardized features, summed over the classes' rows
    for lin in (g.LogisticRegression(), g.PerceptronClassifier()):
        lin.fit(Xtr, ytr)
        coef = np.abs(np.asarray(json.loads(lin.model_bytes())["model"]["coef"])).reshape(-1, p)
        np.testing.assert_allclose(lin.feature_importances_, coef.sum(0) / coef.sum(), rtol=1e-12)
    y01 = (ytr == ytr[0]).astype(np.float64)
    for est in (g.AdaBoostRegressor(n_estimators=5), g.GradientBoostingRegressor(n_estimators=5),
                ada, gb, g.LogisticRegression()):
        fi = est.fit(Xtr, y01).feature_importances_
        assert fi.shape == (p,) and abs(fi.sum() - 1) < 1e-9 and np.all(fi >= 0)
        kept = SelectFromModel(est, prefit=True).transform(Xtr)
        assert 0 < kept.shape[1] < p
    # a model without a natural importance has no attribute (hasattr is False)
    assert not hasattr(g.AdaBoostClassifier(base=g.LogisticRegression(), n_estimators=3)
                       .fit(Xtr, ytr), "feature_importances_")


def test_best_iteration_and_score_after_early_stopping(cancer):
    Xtr, ytr, Xte, yte = cancer
    gb = g.GradientBoostingClassifier(n_estimators=300, learning_rate=0.5, early_stopping_rounds=5)
    gb.fit(Xtr, ytr, eval_set=[(Xte, yte)])
    loss = gb.log_["valid_logloss"]
    assert gb.best_iteration == int(np.argmin(loss)) == gb._model.n_rounds - 1
    assert gb.best_score == loss.min()
    assert len(loss) > gb.best_iteration + 1          # it did run past the best round
    ada = g.AdaBoostClassifier(n_estimators=100, early_stopping_rounds=3)
    ada.fit(Xtr, ytr, eval_set=[(Xte, yte)])
    assert ada.best_score == ada.log_["valid_error"][ada.best_iteration]
    # without early stopping there is no best round
    assert not hasattr(g.GradientBoostingClassifier(n_estimators=3).fit(Xtr, ytr), "best_iteration")
    # the error names the Python argument, not the CLI's option
    with pytest.raises(ValueError, match=r"eval_set") as e:
        g.GradientBoostingClassifier(early_stopping_rounds=5).fit(Xtr, ytr)
    assert "--valid" not in str(e.value)
    with pytest.raises(ValueError, match=r"eval_set"):
        g.AdaBoostClassifier(early_stopping_rounds=5).fit(Xtr, ytr)


def test_infinities_are_missing_like_the_cli(cancer):
    import scipy.sparse as sp
    Xtr, ytr, Xte, _ = cancer
    Xinf, Xnan = Xtr.copy(), Xtr.copy()
    Xinf[::7, 3] = np.inf
    Xinf[1::7, 5] = -np.inf
    Xnan[::7, 3] = np.nan
    Xnan[1::7, 5] = np.nan
    for est in (g.GradientBoostingClassifier(n_estimators=5), g.DecisionTreeClassifier()):
        a = est.fit(Xinf, ytr).model_bytes()
        assert np.isinf(Xinf).sum() > 0                # the caller's array is untouched
        assert a == est.fit(Xnan, ytr).model_bytes()
        np.testing.assert_array_equal(est.predict_proba(Xinf), est.predict_proba(Xnan))
    m = g.DecisionTreeClassifier().fit(sp.csr_matrix(Xinf), ytr)
    np.testing.assert_array_equal(m.predict(sp.csr_matrix(Xinf)), m.predict(Xnan))
    # learners without missing values refuse infinities as they refuse NaN
    with pytest.raises(ValueError, match="infinity"):
        g.LogisticRegression().fit(Xinf, ytr)


def test_unseen_pandas_categories_warn():
    X = pd.DataFrame({"colour": pd.Series(["red", "blue", "red", "green"] * 10),
                      "x": np.arange(40.0)})
    y = np.arange(40) % 2
    m = g.DecisionTreeClassifier().fit(X, y)
    Xn = X.copy()
    Xn.loc[[0, 3], "colour"] = "purple"
    with pytest.warns(UserWarning, match=r"2 values of unseen categories treated as missing "
                                         r"\(first: column 'colour': 'purple'\)"):
        p = m.predict(Xn)
    assert len(p) == len(Xn)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.predict(X)                                   # known categories: no warning


def test_readme_install_works_on_an_externally_managed_python(tmp_path):
    # python/README.md's commands, as written, on a copy of the package (GROVE_LIB bundles the
    # library under test instead of building one)
    import re
    import shutil
    import subprocess
    import sys
    readme = open(os.path.join(SRC, "python", "README.md")).read()
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    cmds = [line.split("  #")[0].strip() for line in block.splitlines()
            if re.match(r"\S*python3? -m (venv|pip) ", line)]
    assert any("venv --system-site-packages" in c for c in cmds), cmds
    assert any("pip install --no-index --no-build-isolation ./python" in c for c in cmds), cmds
    assert "--break-system-packages" in readme and "externally-managed-environment" in readme
    try:
        import venv  # noqa: F401
        import ensurepip  # noqa: F401
    except ImportError:
        pytest.skip("python3-venv is not installed")
    lib = os.environ.get("GROVE_LIB") or os.path.join(SRC, "build", "libgrove.so")
    shutil.copytree(os.path.join(SRC, "python"), tmp_path / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    shutil.copytree(os.path.join(SRC, "include"), tmp_path / "include")
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), GROVE_LIB=lib, PIP_NO_INPUT="1")
    env.pop("PYTHONPATH", None)
    for c in cmds:
        c = c.replace("/usr/bin/python3", sys.executable)
        subprocess.run(c, shell=True, cwd=tmp_path, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    out = subprocess.run([str(home / "grove-env" / "bin" / "python"), "-c",
                          "import grove, sklearn; print(grove.__file__)"],
                         cwd=str(home), env=env, check=True, capture_output=True, text=True)
    assert out.stdout.startswith(str(home / "grove-env"))


_INTERRUPTED_FIT = r"""
import signal, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import grove as g
rng = np.random.default_rng(0)
X = rng.normal(size=(20000, 20))
y = (X[:, 0] + rng.normal(size=20000) > 0).astype(int)
est = g.%s
signalled = []
def on_sigint(signum, frame):  # Python's own handler, timed
    signalled.append(time.perf_counter())
    signal.default_int_handler(signum, frame)
signal.signal(signal.SIGINT, on_sigint)
try:
    print("fitting", flush=True)
    est.fit(X, y)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted fitted=%%s after %%.3f s" %% (hasattr(est, "_model"),
                                                 time.perf_counter() - signalled[0]), flush=True)
"""


@pytest.mark.parametrize("est", ["GradientBoostingClassifier(n_estimators=100000)",
                                 "RandomForestClassifier(n_estimators=100000, n_jobs=2)",
                                 "AdaBoostClassifier(n_estimators=100000)"])
def test_ctrl_c_stops_fit_within_a_second(est):
    import signal
    import subprocess
    import sys
    import time
    proc = subprocess.Popen([sys.executable, "-c", _INTERRUPTED_FIT % est,
                             os.path.join(SRC, "python")], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "fitting"
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    words = out.split()
    assert words[:2] == ["interrupted", "fitted=False"], out
    # from Python's SIGINT handler to the KeyboardInterrupt out of fit, the library stopped:
    # under a millisecond measured (before: the whole fit, 24.8 s on a long one)
    assert float(words[3]) < 1.0, out


def test_verbose_prints_each_round_live(cancer, capsys):
    Xtr, ytr, Xte, yte = cancer
    est = g.GradientBoostingClassifier(n_estimators=12)
    est.fit(Xtr, ytr, eval_set=[(Xte, yte)], verbose=5)
    lines = capsys.readouterr().out.splitlines()
    loss = est.log_["valid_logloss"]
    assert lines == ["[%d]\tvalidation_0-logloss:%.5f" % (t, loss[t]) for t in (0, 5, 10, 11)]
    g.AdaBoostClassifier(n_estimators=4).fit(Xtr, ytr, verbose=True)
    lines = capsys.readouterr().out.splitlines()
    assert [l.split("\t")[0] for l in lines] == ["[0]", "[1]", "[2]", "[3]"]
    assert all(l.split("\t")[1].startswith("train-error:") for l in lines)
    est.fit(Xtr, ytr)                                  # quiet by default
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("make", [lambda: g.RandomForestClassifier(),
                                  lambda: g.RandomForestClassifier(max_samples=0.5),
                                  lambda: g.ExtraTreesClassifier(),
                                  lambda: g.RandomForestRegressor()])
def test_rows_of_weight_zero_take_no_part_in_the_draws(cancer, make):
    # rows of weight 0 interleaved among the others (their order kept): the same model as
    # without them, at scikit-learn's default size (before, they shifted every bootstrap draw).
    # The features take few distinct values and the extra rows reuse them, so that the bins,
    # which every row's value shapes, are the same with and without the extra rows.
    Xtr, ytr, Xte, _ = cancer
    scale = Xtr.std(axis=0) / 4
    Xtr, Xte = np.round(Xtr / scale), np.round(Xte / scale)
    if isinstance(make(), g.RandomForestRegressor):
        ytr = (ytr == ytr[0]).astype(np.float64)
    rng = np.random.default_rng(3)
    n_extra = 120
    X2 = np.empty((len(Xtr) + n_extra, Xtr.shape[1]))
    extra = np.sort(rng.choice(len(X2), n_extra, replace=False))
    keep = np.setdiff1d(np.arange(len(X2)), extra)
    X2[keep] = Xtr
    X2[extra] = Xtr[rng.integers(0, len(Xtr), size=(n_extra, Xtr.shape[1])),
                    np.arange(Xtr.shape[1])]
    y2 = np.empty(len(X2), dtype=ytr.dtype)
    y2[keep], y2[extra] = ytr, ytr[rng.integers(0, len(ytr), n_extra)]
    w2 = np.ones(len(X2))
    w2[extra] = 0
    a, b = make().fit(Xtr, ytr), make().fit(X2, y2, sample_weight=w2)
    pa = a.predict_proba(Xte) if hasattr(a, "predict_proba") else a.predict(Xte)
    pb = b.predict_proba(Xte) if hasattr(b, "predict_proba") else b.predict(Xte)
    np.testing.assert_array_equal(pa, pb)
