"""The trees as text and tables (get_dump, dump_model, trees_to_dataframe): node counts and leaf
values checked against the model's own predictions -- a row's leaves summed along its paths plus
base_score are gbdt's margin, a tree's leaf is its predict_proba -- with and without pandas."""
import csv
import io
import json
import os
import sys

import numpy as np
import pytest

import grove as g

SRC = os.environ.get("GROVE_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(SRC, "examples", "data")


def load(name):
    with open(os.path.join(DATA, name)) as f:
        rows = list(csv.reader(f))
    j = rows[0].index("label")
    X = np.array([[float(v) for k, v in enumerate(r) if k != j] for r in rows[1:]])
    return X, np.array([r[j] for r in rows[1:]]), [c for c in rows[0] if c != "label"]


@pytest.fixture(scope="module")
def cancer():
    X, y, _ = load("breast_cancer_train.csv")
    X = X.copy()
    X[::9, 2] = np.nan  # missing values take the trees' missing branches
    return X, y


@pytest.fixture(params=["pandas", "fallback"])
def frames(request, monkeypatch):
    """trees_to_dataframe with pandas, and with `import pandas` failing."""
    if request.param == "fallback":
        monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    else:
        pytest.importorskip("pandas")
    return request.param


def columns(table):
    """Column name -> numpy array, for a DataFrame or the fallback's dict."""
    return {k: np.asarray(table[k]) for k in table.keys()}


def walk(cols, X):
    """The sum of the leaf values each row of X reaches, per tree (float32 thresholds, as the
    trees compare), from the table's Tree, ID, Feature, Split, Yes, No, Missing, Value."""
    ids = {k: i for i, k in enumerate(cols["ID"])}
    n_trees = int(cols["Tree"].max()) + 1
    out = np.zeros((X.shape[0], n_trees))
    x32 = X.astype(np.float32)
    for t in range(n_trees):
        for r in range(X.shape[0]):
            i = ids["%d-0" % t]
            while cols["Feature"][i] != "Leaf":
                f = int(cols["Feature"][i][1:])  # features named f0, f1, ...
                v = x32[r, f]
                nxt = (cols["Missing"][i] if np.isnan(v)
                       else cols["Yes"][i] if v <= np.float32(cols["Split"][i]) else cols["No"][i])
                i = ids[nxt]
            out[r, t] = cols["Value"][i]
    return out


def test_gbdt_margin_from_the_table(cancer, frames):
    X, y = cancer
    clf = g.GradientBoostingClassifier(n_estimators=12, max_depth=3, random_state=0).fit(X, y)
    table = clf.trees_to_dataframe()
    if frames == "fallback":
        assert isinstance(table, dict)
        assert all(isinstance(v, np.ndarray) for v in table.values())
    else:
        import pandas
        assert isinstance(table, pandas.DataFrame)
    cols = columns(table)
    assert list(table.keys())[:4] == ["Tree", "Node", "ID", "Feature"]
    assert cols["Value"].dtype == np.float64
    # one tree per round, each with its leaves and splits
    assert sorted(set(cols["Tree"])) == list(range(12))
    leaves = cols["Feature"] == "Leaf"
    assert np.all(np.isnan(cols["Split"][leaves])) and not np.any(np.isnan(cols["Value"][leaves]))
    assert np.all(np.isnan(cols["Value"][~leaves]))
    # the margin: base_score + the leaves along the row's paths, as the model scores the row
    base = json.loads(clf._fitted().dump("json"))["base_score"][0]
    margin = base + walk(cols, X).sum(axis=1)
    p1 = clf.predict_proba(X)[:, 1]
    np.testing.assert_allclose(margin, np.log(p1 / (1 - p1)), rtol=1e-9, atol=1e-9)


def test_tree_leaves_are_its_probabilities(frames):
    X, y, _ = load("iris.csv")
    clf = g.DecisionTreeClassifier(max_depth=3).fit(X, y)
    cols = columns(clf.trees_to_dataframe())
    leaves = cols["Feature"] == "Leaf"
    # node count: every node once; a binary tree has one leaf more than splits
    assert leaves.sum() == (~leaves).sum() + 1
    assert cols["Value"].dtype == object  # three class probabilities a leaf: "p0;p1;p2"
    ids = {k: i for i, k in enumerate(cols["ID"])}
    proba = clf.predict_proba(X)
    x32 = X.astype(np.float32)
    for r in range(X.shape[0]):
        i = ids["0-0"]
        while cols["Feature"][i] != "Leaf":
            f = int(cols["Feature"][i][1:])
            i = ids[cols["Yes"][i] if x32[r, f] <= np.float32(cols["Split"][i]) else cols["No"][i]]
        np.testing.assert_array_equal([float(v) for v in cols["Value"][i].split(";")], proba[r])
    # the predicted class of each leaf
    assert set(cols["Class"][leaves]) <= {"setosa", "versicolor", "virginica"}


def test_get_dump_and_dump_model(cancer, tmp_path):
    X, y = cancer
    ada = g.AdaBoostClassifier(n_estimators=5, random_state=0).fit(X, y)
    text = ada.get_dump()
    assert len(text) == 5 and all(t.startswith("booster[") for t in text)
    assert "alpha=" in text[0] and "gain=" in text[0]
    bare = ada.get_dump(with_stats=False)
    assert "gain=" not in "".join(bare) and "cover=" not in "".join(bare)
    assert [t.count("\n") for t in bare] == [t.count("\n") for t in text]
    js = [json.loads(t) for t in ada.get_dump(dump_format="json")]
    assert [t["member"] for t in js] == list(range(5))
    assert all(t["root"]["children"] for t in js)
    nodes = len(columns(ada.trees_to_dataframe())["ID"])
    assert nodes == sum(t["n_nodes"] for t in js)
    path = tmp_path / "dump.txt"
    ada.dump_model(str(path))
    assert path.read_text() == ada._fitted().dump("text")
    buf = io.StringIO()
    ada.dump_model(buf, dump_format="csv")
    assert buf.getvalue().splitlines()[0].startswith("Tree,Node,ID,Feature,Split")
    with pytest.raises(ValueError):
        ada.get_dump(dump_format="xml")


def test_linear_members_print_coefficients():
    X, y, _ = load("iris.csv")
    lr = g.LogisticRegression().fit(X, y)
    (entry,) = lr.get_dump()
    assert "intercept=" in entry and "coef[2]=" in entry
    assert len(columns(lr.trees_to_dataframe())["Tree"]) == 0  # no trees, no rows
