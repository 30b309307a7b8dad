#!/usr/bin/python3
"""A news20.binary-like LIBSVM file: ROWS rows x FEATURES features, about NNZ_PER_ROW stored
values per row (the real set: 19,996 x 1,355,191, 0.034% non-zero), feature ids drawn from a
Zipf-like law (a few common words, a long tail), tf-idf-like positive values normalised per row,
labels +1/-1 from a sparse linear rule on the common features plus 10% noise.
usage: gen_news20.py OUT [ROWS] [FEATURES] [NNZ_PER_ROW] [SEED]"""
import sys
import numpy as np

out = sys.argv[1]
rows = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
features = int(sys.argv[3]) if len(sys.argv) > 3 else 1355191
per_row = int(sys.argv[4]) if len(sys.argv) > 4 else 450
rng = np.random.default_rng(int(sys.argv[5]) if len(sys.argv) > 5 else 1)

w = rng.normal(size=2000)
with open(out, "w") as f:
    for i in range(rows):
        k = max(1, int(rng.poisson(per_row)))
        # Zipf-like ranks, then a fixed random permutation-free spread over the index range
        ids = np.unique(np.minimum((rng.pareto(0.6, size=k) * 50).astype(np.int64), features - 1))
        ids = (ids * 2654435761) % features  # ranks spread over the whole index range
        ids = np.unique(ids)
        vals = rng.gamma(2.0, 1.0, size=ids.size)
        vals /= np.sqrt((vals * vals).sum())
        score = float((w[ids % 2000] * vals).sum())
        y = 1 if score > 0 else -1
        if rng.random() < 0.1:
            y = -y
        f.write(str(y) + " " + " ".join("%d:%.5g" % (int(j) + 1, v) for j, v in zip(ids, vals)) + "\n")
