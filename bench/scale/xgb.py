#!/usr/bin/python3
"""XGBoost on one of bench/scale's CSV files, read two ways.

usage: xgb.py DATA.csv gbdt|forest ROUNDS DEPTH usual|frugal
usual: pandas.read_csv into one frame, then a DMatrix (what most users write).
frugal: the file streamed in float32 chunks of 1M rows through a DataIter into a QuantileDMatrix
(XGBoost's external-memory-friendly way: the raw values are never all in memory; the file is
read twice, once for the quantile sketch and once for the bins).
gbdt: hist, depth DEPTH, 255 bins, learning rate 0.3 (grove's defaults), ROUNDS rounds.
forest: one round of ROUNDS parallel trees, depth DEPTH, bootstrap-like subsample 0.632 without
replacement (XGBoost has no bootstrap), colsample_bynode sqrt(28)/28, learning rate 1 (XGBRF).
"""
import sys

import numpy as np
import pandas as pd
import xgboost as xgb


class Chunks(xgb.DataIter):
    def __init__(self, path):
        self.path = path
        self.reader = None
        super().__init__()

    def next(self, input_data):
        if self.reader is None:
            self.reader = pd.read_csv(self.path, dtype=np.float32, chunksize=1000000)
        c = next(self.reader, None)
        if c is None:
            return 0
        input_data(data=c.iloc[:, 1:].to_numpy(), label=c.iloc[:, 0].to_numpy())
        return 1

    def reset(self):
        self.reader = None


def main():
    path, job, rounds, depth, how = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                      int(sys.argv[4]), sys.argv[5])
    if how == "frugal":
        d = xgb.QuantileDMatrix(Chunks(path), max_bin=255)
    else:
        df = pd.read_csv(path)
        y = df.pop("label")
        d = xgb.DMatrix(df, label=y, nthread=2)
        del df, y
    p = {"objective": "binary:logistic", "tree_method": "hist", "max_depth": depth,
         "max_bin": 255, "nthread": 2}
    if job == "gbdt":
        p["eta"] = 0.3
        xgb.train(p, d, rounds)
    else:
        p.update(eta=1.0, num_parallel_tree=rounds, subsample=0.632,
                 colsample_bynode=np.sqrt(28) / 28)
        xgb.train(p, d, 1)


if __name__ == "__main__":
    main()
