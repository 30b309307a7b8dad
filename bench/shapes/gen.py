#!/usr/bin/python3
"""Generated data of any shape for bench/shapes/run.sh: dense, sparse, with missing values or
categorical columns; two classes, seven classes or regression.

usage: gen.py KIND ROWS COLS TASK SEED OUT
KIND: dense | missing (20 % of values missing, written 'nan') | cat (a quarter of the columns
categorical, integer codes, 5-500 levels each; the rest dense) | sparse (LIBSVM, 1 % non-zero).
TASK: bin | mc7 | reg.  The signal s(x) is fixed by (KIND, COLS), not by SEED, so the train file
(seed 1) and the test file (seed 2) share it: 12 informative columns in linear terms, thresholds,
products and a sine; in 'cat', every categorical column adds a random effect per level.  bin:
label 1 with probability sigmoid(2 s); mc7: argmax over 7 such scores plus Gumbel noise; reg:
s plus normal noise (sd 0.5).  The label is the first column (CSV) or field (LIBSVM).
Deterministic: numpy's default_rng, written in blocks of 50,000 rows.
"""
import sys

import numpy as np


class Signal:
    def __init__(self, kind, cols, task):
        r = np.random.default_rng(1000003 * cols + len(kind))
        k = 7 if task == "mc7" else 1
        self.cols, self.kind, self.task, self.k = cols, kind, task, k
        self.cat = sorted(r.choice(cols, cols // 4, replace=False)) if kind == "cat" else []
        num = [j for j in range(cols) if j not in set(self.cat)]
        self.inf = [r.choice(num, min(12, len(num)), replace=False) for _ in range(k)]
        self.w = [r.normal(0, 1, 12) for _ in range(k)]
        self.levels = {j: int(r.integers(5, 501)) for j in self.cat}
        self.effect = [{j: r.normal(0, 0.6, self.levels[j]) for j in self.cat[:8]} for _ in range(k)]

    def score(self, x, c):
        f, w = self.inf[c], self.w[c]
        v = lambda i: x[:, f[i % len(f)]]
        s = (w[0] * v(0) + w[1] * v(1) + w[2] * (v(2) > 0.5) + w[3] * v(3) * v(4)
             + w[4] * np.sin(2 * v(5)) + w[5] * (v(6) + v(7) > 0.8) + w[6] * np.abs(v(8))
             + w[7] * v(9) ** 2 / 2 + w[8] * (v(10) < -0.3) + w[9] * v(11))
        for j, e in self.effect[c].items():
            s += e[x[:, j].astype(int)]
        return np.nan_to_num(s)

    def block(self, r, m):
        x = r.normal(0, 1, (m, self.cols))
        for j in self.cat:
            x[:, j] = r.integers(0, self.levels[j], m)
        if self.task == "bin":
            y = (r.uniform(size=m) < 1 / (1 + np.exp(-2 * self.score(x, 0)))).astype(float)
        elif self.task == "mc7":
            y = np.argmax(np.column_stack([self.score(x, c) for c in range(7)])
                          + r.gumbel(size=(m, 7)), axis=1).astype(float)
        else:
            y = self.score(x, 0) + r.normal(0, 0.5, m)
        if self.kind == "missing":
            x[r.uniform(size=x.shape) < 0.2] = np.nan
        return x, y


def sparse_block(r, m, cols, task, w):
    nnz = r.binomial(cols, 0.01, m)
    rows, s = [], np.zeros(m)
    for i in range(m):
        idx = np.unique(r.integers(0, cols, nnz[i]))
        val = np.round(r.exponential(1.0, len(idx)), 4)
        s[i] = np.dot(w[idx], val) - 0.3
        rows.append((idx, val))
    y = (r.uniform(size=m) < 1 / (1 + np.exp(-2 * s))).astype(int) if task == "bin" else s
    return rows, y


def main():
    kind, n, cols, task, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
    r = np.random.default_rng(seed)
    with open(out, "w") as f:
        if kind == "sparse":
            w = np.random.default_rng(cols).normal(0, 1, cols) * (np.random.default_rng(cols + 1).uniform(size=cols) < 0.05) * 3
            for start in range(0, n, 50000):
                rows, y = sparse_block(r, min(50000, n - start), cols, task, w)
                f.write("".join(("%d" % y[i] if task == "bin" else "%.6g" % y[i]) + "".join(
                    " %d:%g" % (j + 1, v) for j, v in zip(*rows[i])) + "\n" for i in range(len(rows))))
            return
        sig = Signal(kind, cols, task)
        f.write("label," + ",".join("f%d" % j for j in range(cols)) + "\n")
        fmt = ["%.6g" if task == "reg" else "%d"] + ["%d" if j in set(sig.cat) else "%.5g" for j in range(cols)]
        for start in range(0, n, 50000):
            x, y = sig.block(r, min(50000, n - start))
            np.savetxt(f, np.column_stack([y, x]), fmt=fmt, delimiter=",")


if __name__ == "__main__":
    main()
