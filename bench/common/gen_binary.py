#!/usr/bin/python3
"""A fixed generator of HIGGS-shaped binary classification data for grove's benchmarks.

usage: gen_binary.py OUT.csv N_ROWS SEED

28 numeric features (7 groups of: a log-normal "momentum", a normal "eta", a uniform "phi",
a 0/1/2 "tag"), rounded to 7 significant digits; label 1 with probability sigmoid(s(x)) where
s mixes linear terms, products and thresholds (so trees and boosting have something to find, and
the Bayes error is well above 0).  Deterministic: numpy's default_rng(SEED), written in blocks.
"""
import sys

import numpy as np


def block(rng, m):
    x = np.empty((m, 28))
    x[:, 0::4] = rng.lognormal(0.0, 0.5, (m, 7))
    x[:, 1::4] = rng.normal(0.0, 1.0, (m, 7))
    x[:, 2::4] = rng.uniform(-1.74, 1.74, (m, 7))
    x[:, 3::4] = rng.integers(0, 3, (m, 7)) * 1.0868
    s = (1.2 * (x[:, 0] - 1.1) - 0.8 * x[:, 1] * x[:, 5] + 1.5 * (x[:, 4] > 1.3)
         - 1.0 * (np.abs(x[:, 2]) > 1.0) + 0.6 * x[:, 3] * (x[:, 8] - 1.1)
         + 0.9 * np.sin(2 * x[:, 6]) + 0.7 * (x[:, 12] + x[:, 16] > 2.4) - 0.5 * x[:, 21] ** 2
         + 0.4 * x[:, 24] - 0.3)
    y = (rng.uniform(size=m) < 1 / (1 + np.exp(-2 * s))).astype(int)
    return x, y


def main():
    path, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        f.write("label," + ",".join("f%d" % k for k in range(1, 29)) + "\n")
        for start in range(0, n, 100000):
            x, y = block(rng, min(100000, n - start))
            rows = np.column_stack([y, x])
            np.savetxt(f, rows, fmt=["%d"] + ["%.7g"] * 28, delimiter=",")


if __name__ == "__main__":
    main()
