#!/usr/bin/python3
"""Makes the real-LightGBM fixtures of tests/py_lightgbm_convert.py (run by hand, never in CI:
CI has no LightGBM).

usage: python3 tests/data/convert/lightgbm/make_fixtures.py LIGHTGBM_CLI

For each of binary, multiclass (3 classes), regression and regression_zero (zero_as_missing),
writes here NAME_train.csv (only to train; not kept) and NAME_test.csv (150 rows), trains
LightGBM with its CLI (NAME.conf, kept) into NAME.txt, and has the same CLI predict the test
rows three times: NAME.pred (task=predict: probabilities or values), NAME.raw
(predict_raw_score=true) and NAME.contrib (predict_contrib=true).  Data (numpy default_rng,
seeded): 8 numeric features x0..x7 rounded to 4 decimals, 12 % of x0 and x1 missing ("nan"),
x2 a third exact zeros; two categorical columns, c0 with 12 categories (bitset splits) and c1
with 3 (LightGBM's one-vs-rest splits), 5 % missing; the label a noisy function of all of them.
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["x%d" % j for j in range(8)] + ["c0", "c1"]


def gen(n, seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 8)), 4)
    X[rng.random(n) < 1 / 3, 2] = 0.0
    c0 = rng.integers(0, 12, n).astype(float)
    c1 = rng.integers(0, 3, n).astype(float)
    eff0 = np.array([0.9, -0.4, 0.2, 1.1, -1.0, 0.0, 0.5, -0.7, 0.3, 0.8, -0.2, -1.2])
    s = (X[:, 0] - 0.8 * X[:, 1] + 0.6 * (X[:, 2] == 0) + 0.5 * X[:, 3] * X[:, 4]
         + eff0[c0.astype(int)] + 0.6 * (c1 == 1) + 0.5 * rng.normal(size=n))
    for j in (0, 1):
        X[rng.random(n) < 0.12, j] = np.nan
    c0[rng.random(n) < 0.05] = np.nan
    c1[rng.random(n) < 0.05] = np.nan
    return np.column_stack([X, c0, c1]), s


def write(path, X, y):
    with open(path, "w") as f:
        f.write("label," + ",".join(NAMES) + "\n")
        for yi, row in zip(y, X):
            cells = ["nan" if np.isnan(v) else ("%d" % v if j >= 8 else "%.4f" % v)
                     for j, v in enumerate(row)]
            f.write(("%d" % yi if float(yi).is_integer() else "%.6f" % yi) + "," + ",".join(cells) + "\n")


CASES = {
    "binary": ("objective=binary\nnum_iterations=30\nnum_leaves=12\n", lambda s: (s > 0.3) * 1),
    "multiclass": ("objective=multiclass\nnum_class=3\nnum_iterations=12\nnum_leaves=8\n",
                   lambda s: np.digitize(s, [-0.5, 0.8])),
    "regression": ("objective=regression\nnum_iterations=30\nnum_leaves=12\n", lambda s: 2 * s + 1),
    "regression_zero": ("objective=regression\nnum_iterations=20\nnum_leaves=10\n"
                        "zero_as_missing=true\n", lambda s: 2 * s + 1),
}


def main():
    cli = sys.argv[1]
    for name, (conf, label) in CASES.items():
        Xtr, s = gen(3000, 11)
        Xte, st = gen(150, 12)
        tr, te = os.path.join(HERE, name + "_train.csv"), os.path.join(HERE, name + "_test.csv")
        write(tr, Xtr, label(s))
        write(te, Xte, label(st))
        common = ("header=true\nlabel_column=name:label\ncategorical_feature=name:c0,c1\n"
                  "num_threads=1\ndeterministic=true\nseed=1\nverbose=-1\n")
        cpath = os.path.join(HERE, name + ".conf")
        with open(cpath, "w") as f:
            f.write("task=train\ndata=%s_train.csv\noutput_model=%s.txt\nlearning_rate=0.2\n"
                    "min_data_in_leaf=20\nmin_data_per_group=20\ncat_smooth=5\n%s%s"
                    % (name, name, conf, common))
        subprocess.run([cli, "config=" + name + ".conf"], cwd=HERE, check=True)
        for out, extra in (("pred", ""), ("raw", "predict_raw_score=true"),
                           ("contrib", "predict_contrib=true")):
            subprocess.run([cli, "task=predict", "data=%s_test.csv" % name, "header=true",
                            "input_model=%s.txt" % name, "output_result=%s.%s" % (name, out),
                            "num_threads=1", "verbose=-1"] + ([extra] if extra else []),
                           cwd=HERE, check=True)
        os.remove(tr)


if __name__ == "__main__":
    main()
