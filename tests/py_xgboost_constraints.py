#!/usr/bin/python3
"""grove's gbdt monotone and interaction constraints, and the same constraints in XGBoost 1.7.

Generated data (seeded): 3000 training rows, 1000 test rows, 5 features uniform on [-1, 1],
y = 2 x0 - 1.5 x1 + sin(3 x2) + x3 x4 + noise (regression), and y > 0 after more noise
(binary).  Both growths: depth-wise (max_depth 4) and leaf-wise (growth=bestfirst,
max_leaves 15, max_depth 0; XGBoost grow_policy=lossguide).  Checks:
  monotone_constraints=(1,-1,0,0,0): on a grid of 25 values of x0 (and of x1) over 100 held-out
    rows, every row's prediction does not decrease along x0 and does not increase along x1;
    the same constraints by name (x0:1,x1:-1) give the same model;
  interaction_constraints=[[0,1],[2,3,4]]: no root-to-leaf path of any tree uses features of
    both groups (read from the model file);
  against XGBoost 1.7 (tree_method=hist, 255 bins, 60 rounds, eta 0.1, lambda 1, the same
    constraints): grove's test RMSE (regression) or log loss (binary) at most 3 % above
    XGBoost's -- the same rules (bounds from mid = (w_l + w_r) / 2, values clipped, gains at
    the clipped values), the runs differing by cut points;
  errors: a wrong number of directions names both counts; a direction out of {-1, 0, 1} and an
    unknown feature name the parameter and the position;
  the Python estimators take a tuple, a dict by column name and a list of lists.
Prints the table.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import xgboost as xgb

import fixtures
from fixtures import GROVE, check, grove

tmp = tempfile.mkdtemp()
ROUNDS, ETA = 60, 0.1
NTR, NTE, NF = 3000, 1000, 5
MONO = "(1,-1,0,0,0)"
INTER = "[[0,1],[2,3,4]]"

rng = np.random.default_rng(7)


def make(n):
    X = rng.uniform(-1, 1, (n, NF))
    f = 2 * X[:, 0] - 1.5 * X[:, 1] + np.sin(3 * X[:, 2]) + X[:, 3] * X[:, 4]
    return X, f


def write_csv(path, X, y):
    with open(path, "w") as fh:
        fh.write("label," + ",".join(f"x{j}" for j in range(X.shape[1])) + "\n")
        for i in range(len(y)):
            fh.write(repr(float(y[i])) + "," + ",".join(repr(float(v)) for v in X[i]) + "\n")


def grove_predict(model, path, binary):
    if binary:
        out = grove("predict", model, path, "--proba", "-q").splitlines()
        head = out[0].split(",")
        j = head.index("p_1")
        return np.array([float(r.split(",")[j]) for r in out[1:]])
    out = grove("predict", model, path, "-q").splitlines()
    return np.array([float(v) for v in out[1:]])


Xtr, ftr = make(NTR)
Xte, fte = make(NTE)
ytr_reg = ftr + 0.3 * rng.normal(size=NTR)
yte_reg = fte + 0.3 * rng.normal(size=NTE)
ytr_bin = (ftr + 0.5 * rng.normal(size=NTR) > 0).astype(float)
yte_bin = (fte + 0.5 * rng.normal(size=NTE) > 0).astype(float)

# the grid: 100 held-out rows, each with x0 (then x1) set to 25 values
GRID = np.linspace(-1, 1, 25)
base = Xte[:100]
grid_rows = []
for f in (0, 1):
    for i in range(len(base)):
        for v in GRID:
            r = base[i].copy()
            r[f] = v
            grid_rows.append(r)
grid_rows = np.array(grid_rows)
grid_path = os.path.join(tmp, "grid.csv")
write_csv(grid_path, grid_rows, np.zeros(len(grid_rows)))

GROWTHS = {
    "depthwise": (["max_depth=4"], {"max_depth": 4}),
    "leafwise": (["growth=bestfirst", "max_leaves=15", "max_depth=0"],
                 {"grow_policy": "lossguide", "max_leaves": 15, "max_depth": 0}),
}


def train(task, growth, extra, path):
    sets = GROWTHS[growth][0] + [f"learning_rate={ETA}", "lambda=1", "max_bins=255"] + extra
    if task == "binary":
        sets.append("task=classification")
    args = ["train", path, "-o", os.path.join(tmp, "m.grove"), "--algo", "gbdt", "--rounds",
            str(ROUNDS), "-q"]
    for s in sets:
        args += ["--set", s]
    grove(*args)
    return os.path.join(tmp, "m.grove")


def paths_groups(model_path):
    """For every root-to-leaf path of every tree: the set of features it splits on."""
    m = json.load(open(model_path))
    out = []
    for t in m["model"]["trees"]:
        feat = [int(v) for v in t["feature"].split()]
        left = [int(v) for v in t["left"].split()]
        right = [int(v) for v in t["right"].split()]
        stack = [(0, frozenset())]
        while stack:
            n, used = stack.pop()
            if feat[n] < 0:
                out.append(used)
                continue
            u = used | {feat[n]}
            stack.append((left[n], u))
            stack.append((right[n], u))
    return out


def xgb_fit(task, growth, Xtr, ytr, Xte, mono, inter):
    p = {"tree_method": "hist", "max_bin": 255, "eta": ETA, "lambda": 1, "nthread": 1,
         "objective": "binary:logistic" if task == "binary" else "reg:squarederror",
         "base_score": float(np.mean(ytr)) if task != "binary" else 0.5}
    p.update(GROWTHS[growth][1])
    if mono:
        p["monotone_constraints"] = MONO
    if inter:
        p["interaction_constraints"] = INTER
    b = xgb.train(p, xgb.DMatrix(Xtr, label=ytr), ROUNDS)
    return b.predict(xgb.DMatrix(Xte)), b


def quality(task, y, p):
    if task == "binary":
        p = np.clip(p, 1e-15, 1 - 1e-15)
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    return float(np.sqrt(np.mean((y - p) ** 2)))


rows = []
for task in ("regression", "binary"):
    ytr = ytr_reg if task == "regression" else ytr_bin
    yte = yte_reg if task == "regression" else yte_bin
    tr_path = os.path.join(tmp, f"tr_{task}.csv")
    te_path = os.path.join(tmp, f"te_{task}.csv")
    write_csv(tr_path, Xtr, ytr)
    write_csv(te_path, Xte, yte)
    binary = task == "binary"
    for growth in GROWTHS:
        # monotone
        m = train(task, growth, [f"monotone_constraints={MONO}"], tr_path)
        g = grove_predict(m, grid_path, binary).reshape(2, len(base), len(GRID))
        d0 = np.diff(g[0], axis=1)
        d1 = np.diff(g[1], axis=1)
        check(d0.min() >= -1e-12, f"{task} {growth}: increasing along x0 (min step {d0.min()})")
        check(d1.max() <= 1e-12, f"{task} {growth}: decreasing along x1 (max step {d1.max()})")
        check(np.ptp(g[0], axis=1).max() > 0, f"{task} {growth}: x0 is used")
        trees_pos = json.load(open(m))["model"]
        gq = quality(task, yte, grove_predict(m, te_path, binary))
        xp, xb = xgb_fit(task, growth, Xtr, ytr, Xte, True, False)
        xq = quality(task, yte, xp)
        # XGBoost's own predictions on the grid are monotone too (the data's sanity)
        xg = xb.predict(xgb.DMatrix(grid_rows)).reshape(2, len(base), len(GRID))
        check(np.diff(xg[0], axis=1).min() >= -1e-6, f"{task} {growth}: XGBoost increasing along x0")
        check(gq <= xq * 1.03, f"{task} {growth} monotone: grove {gq:.4f} vs XGBoost {xq:.4f}")
        rows.append((task, growth, "monotone", gq, xq))
        # names give the same model
        m2 = train(task, growth, ["monotone_constraints=x0:1,x1:-1"], tr_path)
        check(json.load(open(m2))["model"] == trees_pos,
              f"{task} {growth}: monotone constraints by name give the same trees")
        # interaction
        m = train(task, growth, [f"interaction_constraints={INTER}"], tr_path)
        bad = [u for u in paths_groups(m) if not (u <= {0, 1} or u <= {2, 3, 4})]
        check(not bad, f"{task} {growth}: paths mixing groups: {bad[:3]}")
        gq = quality(task, yte, grove_predict(m, te_path, binary))
        xp, _ = xgb_fit(task, growth, Xtr, ytr, Xte, False, True)
        xq = quality(task, yte, xp)
        check(gq <= xq * 1.03, f"{task} {growth} interaction: grove {gq:.4f} vs XGBoost {xq:.4f}")
        rows.append((task, growth, "interaction", gq, xq))
        # both
        m = train(task, growth, [f"monotone_constraints={MONO}", f"interaction_constraints={INTER}"], tr_path)
        g = grove_predict(m, grid_path, binary).reshape(2, len(base), len(GRID))
        check(np.diff(g[0], axis=1).min() >= -1e-12 and np.diff(g[1], axis=1).max() <= 1e-12,
              f"{task} {growth}: monotone with interaction constraints")
        bad = [u for u in paths_groups(m) if not (u <= {0, 1} or u <= {2, 3, 4})]
        check(not bad, f"{task} {growth}: both: paths mixing groups")
        gq = quality(task, yte, grove_predict(m, te_path, binary))
        xp, _ = xgb_fit(task, growth, Xtr, ytr, Xte, True, True)
        xq = quality(task, yte, xp)
        check(gq <= xq * 1.03, f"{task} {growth} both: grove {gq:.4f} vs XGBoost {xq:.4f}")
        rows.append((task, growth, "both", gq, xq))


def train_err(*sets):
    args = [GROVE, "train", os.path.join(tmp, "tr_regression.csv"), "-o", os.path.join(tmp, "e.grove"),
            "--algo", "gbdt", "--rounds", "2", "-q"]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stderr


rc, err = train_err("monotone_constraints=1,-1,0")
check(rc != 0 and "monotone_constraints" in err and "3" in err and "5" in err,
      f"wrong length names both counts: {err!r}")
rc, err = train_err("monotone_constraints=1,2,0,0,0")
check(rc != 0 and "monotone_constraints" in err and "position 3" in err, f"bad direction: {err!r}")
rc, err = train_err("interaction_constraints=[[0,1],[x2,nope]]")
check(rc != 0 and "interaction_constraints" in err and "nope" in err and "position" in err,
      f"unknown feature: {err!r}")

# the Python estimators: a tuple, a dict by column name, a list of lists
os.environ.setdefault("GROVE_LIB", os.path.join(os.environ.get("GROVE_BIN", "build"), "libgrove.so"))
sys.path.insert(0, os.path.join(fixtures.SRC, "python"))
from grove.estimators import GradientBoostingRegressor  # noqa: E402

ytr = ytr_reg
est = GradientBoostingRegressor(n_estimators=30, max_depth=4, monotone_constraints=(1, -1, 0, 0, 0),
                                interaction_constraints=[[0, 1], [2, 3, 4]]).fit(Xtr, ytr)
pg = est.predict(grid_rows).reshape(2, len(base), len(GRID))
check(np.diff(pg[0], axis=1).min() >= -1e-12 and np.diff(pg[1], axis=1).max() <= 1e-12,
      "python: monotone along x0 and x1")
try:
    import pandas as pd
    df = pd.DataFrame(Xtr, columns=["age", "income", "a", "b", "c"])
    est2 = GradientBoostingRegressor(n_estimators=30, max_depth=4,
                                     monotone_constraints={"age": 1, "income": -1},
                                     interaction_constraints=[["age", "income"], ["a", "b", "c"]])
    est2.fit(df, ytr)
    p1 = est.predict(Xte)
    p2 = est2.predict(pd.DataFrame(Xte, columns=df.columns))
    check(np.array_equal(p1, p2), "python: constraints by column name give the same model")
except ImportError:
    pass
try:
    GradientBoostingRegressor(monotone_constraints=(1, 0)).fit(Xtr, ytr)
    check(False, "python: a wrong length is refused")
except Exception as e:  # grove's error: both counts named
    check("2 directions for 5 features" in str(e), f"python: wrong length message: {e}")

print(f"{'task':<11} {'growth':<10} {'constraint':<12} {'grove':>8} {'xgboost':>8}")
for r in rows:
    print(f"{r[0]:<11} {r[1]:<10} {r[2]:<12} {r[3]:8.4f} {r[4]:8.4f}")
sys.exit(fixtures.finish("py_xgboost_constraints"))
