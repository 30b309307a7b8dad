#!/usr/bin/python3
"""grove's gbdt objectives poisson, tweedie, gamma and quantile against XGBoost 1.7 (and
scikit-learn for quantiles other than the median, which XGBoost 1.7 does not have).

Generated data (seeded) with the objective's own distribution: 4000 training rows, 3000 test
rows, 6 features.  Both libraries: 60 rounds, learning rate 0.1, depth 4, lambda 1,
min_child_weight 1, 255 bins, the initial score the training label mean (log link: its log;
XGBoost 1.7 does not estimate it).  Quality is the test set's mean deviance (Poisson, gamma),
the Tweedie negative log-likelihood or the pinball loss, computed here by the same formula on
both libraries' predictions.  Tolerances:
  poisson, gamma, tweedie: grove's loss at most 2 % above XGBoost's (same gradients and
    hessians, same trees up to binning: the runs differ only by cut points);
  quantile 0.5: pinball loss at most 3 % above XGBoost's reg:absoluteerror (both refit leaves
    to the residuals' median);
  quantile 0.1 / 0.9: pinball loss at most 5 % above scikit-learn's GradientBoostingRegressor
    (loss="quantile", exact splits), and the share of test labels below the prediction within
    0.04 of alpha.
Also: the training log's metric (poisson-nloglik, tweedie-nloglik, gamma-deviance, quantile)
equals the formula on grove's own training predictions; labels out of an objective's domain
are refused with the row named.  Prints the table.
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import xgboost as xgb
from sklearn.ensemble import GradientBoostingRegressor

import fixtures
from fixtures import GROVE, check, grove

tmp = tempfile.mkdtemp()
ROUNDS, ETA, DEPTH = 60, 0.1, 4
NTR, NTE, NF = 4000, 3000, 6


def write_csv(path, X, y):
    with open(path, "w") as f:
        f.write("label," + ",".join(f"x{j}" for j in range(X.shape[1])) + "\n")
        for i in range(len(y)):
            f.write(repr(float(y[i])) + "," + ",".join(repr(float(v)) for v in X[i]) + "\n")


def grove_predict(model, path):
    out = grove("predict", model, path, "-q").splitlines()
    return np.array([float(v) for v in out[1:]])


def lgamma1(y):
    return np.array([math.lgamma(v + 1) for v in y])


def poisson_dev(y, mu):
    return float(np.mean(mu - y * np.log(mu) + lgamma1(y)))


def gamma_dev(y, mu):
    return float(np.mean(2 * (y / mu - np.log(y / mu) - 1)))


def tweedie_nll(y, mu, rho):
    return float(np.mean(-y * mu ** (1 - rho) / (1 - rho) + mu ** (2 - rho) / (2 - rho)))


def pinball(y, q, a):
    return float(np.mean(np.where(y >= q, a * (y - q), (1 - a) * (q - y))))


rng = np.random.RandomState(11)
X = rng.uniform(-1, 1, size=(NTR + NTE, NF))
eta_true = 0.8 * X[:, 0] - 0.6 * X[:, 1] + 0.5 * X[:, 2] * X[:, 3] + 0.3 * np.sin(3 * X[:, 4])
mu_true = np.exp(eta_true)


def draw(kind):
    if kind == "poisson":
        return rng.poisson(2.0 * mu_true).astype(float)
    if kind == "gamma":
        return rng.gamma(2.0, mu_true / 2.0)
    if kind == "tweedie":  # compound Poisson-gamma: a count of gamma claims (many zeros)
        n = rng.poisson(0.8 * mu_true)
        return np.array([rng.gamma(2.0, 1.5, k).sum() if k else 0.0 for k in n])
    return 2.0 * eta_true + rng.standard_t(3, size=len(eta_true))  # quantiles: heavy tails


def run(kind, y, extra, xparams, quality, metric_name):
    """Trains grove and XGBoost (xparams None: no XGBoost run) on rows [0, NTR); returns
    (grove's test quality, grove's test predictions, the training log's last metric, grove's
    training predictions)."""
    Xtr, Xte, ytr = X[:NTR], X[NTR:], y[:NTR]
    tr, te = os.path.join(tmp, kind + "_train.csv"), os.path.join(tmp, kind + "_test.csv")
    write_csv(tr, Xtr, ytr)
    write_csv(te, Xte, y[NTR:])
    model = os.path.join(tmp, kind + ".model")
    grove("train", tr, "-o", model, "--algo", "gbdt", "--rounds", str(ROUNDS), "--set",
          f"learning_rate={ETA}", "--set", f"max_depth={DEPTH}", "--set", "lambda=1",
          "--set", "min_child_weight=1", "--set", "task=regression", "--set",
          "train_metric=true", "--threads", "2", "-q", *extra)
    gte = grove_predict(model, te)
    gtr = grove_predict(model, tr)
    xs = None
    if xparams is not None:
        params = {"tree_method": "hist", "max_bin": 255, "max_depth": DEPTH, "eta": ETA,
                  "lambda": 1, "min_child_weight": 1, "nthread": 2}
        params.update(xparams)
        bst = xgb.train(params, xgb.DMatrix(Xtr, label=ytr), ROUNDS)
        xs = quality(y[NTR:], bst.predict(xgb.DMatrix(Xte)))
    return quality(y[NTR:], gte), gte, model, gtr, xs


def train_log_last(model, metric):
    """The training log's last value of train_METRIC (grove info --json's summary)."""
    info = grove("info", model, "--json")
    key = f'"final_train_{metric}":'
    check(key in info, f"grove info lists {key}")
    return float(info.split(key)[1].split(",")[0].split("}")[0]) if key in info else math.nan


print(f"{'objective':<16}{'quality':<18}{'grove':>10}{'reference':>10}")
rows = []

# ---- poisson ----------------------------------------------------------------------------
y = draw("poisson")
m = float(np.mean(y[:NTR]))
gs, gte, model, gtr, xs = run("poisson", y, ["--set", "objective=poisson", "--set",
                              f"base_score={m!r}"],
                              {"objective": "count:poisson", "base_score": m},
                              poisson_dev, "poisson-nloglik")
rows.append(("poisson", "poisson deviance", gs, xs))
check(gs <= 1.02 * xs, f"poisson: test nloglik {gs} vs XGBoost {xs}")
lv = train_log_last(model, "poisson-nloglik")
check(abs(lv - poisson_dev(y[:NTR], gtr)) <= 1e-6 * abs(lv),
      f"poisson: the log's train poisson-nloglik {lv} vs the formula {poisson_dev(y[:NTR], gtr)}")
check(bool(np.all(gte > 0)), "poisson: predictions are means (> 0)")

# ---- gamma --------------------------------------------------------------------------------
y = draw("gamma")
m = float(np.mean(y[:NTR]))
gs, gte, model, gtr, xs = run("gamma", y, ["--set", "objective=gamma", "--set",
                              f"base_score={m!r}"], {"objective": "reg:gamma", "base_score": m},
                              gamma_dev, "gamma-deviance")
rows.append(("gamma", "gamma deviance", gs, xs))
check(gs <= 1.02 * xs, f"gamma: test deviance {gs} vs XGBoost {xs}")
lv = train_log_last(model, "gamma-deviance")
check(abs(lv - gamma_dev(y[:NTR], gtr)) <= 1e-6 * abs(lv),
      f"gamma: the log's train gamma-deviance {lv} vs the formula {gamma_dev(y[:NTR], gtr)}")

# ---- tweedie ------------------------------------------------------------------------------
y = draw("tweedie")
m = float(np.mean(y[:NTR]))
RHO = 1.4
gs, gte, model, gtr, xs = run("tweedie", y, ["--set", "objective=tweedie", "--set",
                              f"tweedie_variance_power={RHO}", "--set", f"base_score={m!r}"],
                              {"objective": "reg:tweedie", "tweedie_variance_power": RHO,
                               "base_score": m},
                              lambda a, b: tweedie_nll(a, b, RHO), "tweedie-nloglik")
rows.append((f"tweedie {RHO}", "tweedie nloglik", gs, xs))
check(gs <= xs + 0.02 * abs(xs), f"tweedie: test nloglik {gs} vs XGBoost {xs}")
lv = train_log_last(model, "tweedie-nloglik")
want = tweedie_nll(y[:NTR], gtr, RHO)
check(abs(lv - want) <= 1e-6 * abs(lv), f"tweedie: the log's train tweedie-nloglik {lv} vs {want}")

# ---- quantile -----------------------------------------------------------------------------
y = draw("quantile")
for a in (0.5, 0.1, 0.9):
    q0 = float(np.quantile(y[:NTR], a))
    quality = (lambda yy, pp, a=a: pinball(yy, pp, a))
    xp = {"objective": "reg:absoluteerror", "base_score": q0} if a == 0.5 else None
    gs, gte, model, gtr, xs = run(f"quantile{a}", y, ["--set", "objective=quantile", "--set",
                                  f"quantile_alpha={a}"], xp, quality, "quantile")
    if xs is None:
        sk = GradientBoostingRegressor(loss="quantile", alpha=a, n_estimators=ROUNDS,
                                       learning_rate=ETA, max_depth=DEPTH, random_state=0)
        sk.fit(X[:NTR], y[:NTR])
        xs = quality(y[NTR:], sk.predict(X[NTR:]))
        ref = "scikit-learn"
        check(gs <= 1.05 * xs, f"quantile {a}: test pinball {gs} vs scikit-learn {xs}")
    else:
        ref = "XGBoost"
        check(gs <= 1.03 * xs, f"quantile {a}: test pinball {gs} vs XGBoost absoluteerror {xs}")
    cover = float(np.mean(y[NTR:] <= gte))
    check(abs(cover - a) <= 0.04, f"quantile {a}: {cover:.3f} of the test labels below")
    lv = train_log_last(model, "quantile")
    want = pinball(y[:NTR], gtr, a)
    check(abs(lv - want) <= 1e-6 * max(1, abs(lv)), f"quantile {a}: the log's {lv} vs {want}")
    rows.append((f"quantile {a}", f"pinball ({ref})", gs, xs))

for r in rows:
    print(f"{r[0]:<16}{r[1]:<18}{r[2]:>10.4f}{r[3]:>10.4f}")

# ---- labels out of the domain ---------------------------------------------------------------
bad = os.path.join(tmp, "negative.csv")
write_csv(bad, X[:50], np.concatenate([np.ones(20), [-1.0], np.ones(29)]))
for obj, rowno in (("poisson", 21), ("gamma", 21)):
    r = subprocess.run([GROVE, "train", bad, "-o", os.path.join(tmp, "bad.model"), "--algo",
                        "gbdt", "--set", f"objective={obj}", "--set", "task=regression", "-q"],
                       capture_output=True, text=True)
    check(r.returncode != 0 and f"row {rowno}" in r.stderr and obj in r.stderr,
          f"{obj} on a negative label: exit {r.returncode}, {r.stderr.strip()}")

sys.exit(fixtures.finish("py_xgboost_objectives"))
