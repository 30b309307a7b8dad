#!/usr/bin/python3
"""AdaBoost.M2 with stumps that minimize the pseudo-loss, beside the stumps grown on D_t with
gini it had before (base.criterion=gini), AdaBoost.M1 and SAMME.

usage: m2_table.py [GROVE_BIN] [DATA_DIR]      ROUNDS=300 (default)

Every public multiclass set on its fixed train/test split (get-datasets.sh): iris, wine, glass,
digits, penguins, and a 10-class fashion-MNIST subset (the first 2,000 rows of
fashion_mnist_train10k.csv for training, the first 1,000 of the test file for testing).  Stumps,
ROUNDS rounds, seed 0, one thread.  For each: test error of every algorithm, the rounds M2
actually ran (boost.min_edge stops it when the pseudo-loss reaches 1/2 - 0.001: no edge left),
and M2's training error after 10, 30, 100 and 300 rounds (from `grove train --log`), before ->
after: flat curves before, falling ones after.
"""
import csv
import gzip
import os
import sys

import papers as P


def log_train_errors(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [float(r["train_error"]) for r in rows]


def at(curve, t):
    """Training error after t rounds (the last one if training stopped before t)."""
    return curve[min(t, len(curve)) - 1] if curve else float("nan")


def main():
    grove, data = P.setup(sys.argv)
    rounds = int(os.environ.get("ROUNDS", "300"))
    tmp = P.tmpdir()
    sets = [(n, os.path.join(data, n + "_train.csv"), os.path.join(data, n + "_test.csv"))
            for n in ("iris", "wine", "glass", "digits", "penguins")]
    # fashion-MNIST, 10 classes: 2,000 training rows, 1,000 test rows
    ftr, fte = os.path.join(tmp, "fashion_train.csv"), os.path.join(tmp, "fashion_test.csv")
    with open(os.path.join(data, "fashion_mnist_train10k.csv")) as f:
        lines = f.read().splitlines()
    P.write_csv(ftr, lines[0], lines[1:2001])
    with gzip.open(os.path.join(data, "fashion_mnist_test.csv.gz"), "rt") as f:
        lines = f.read().splitlines()
    P.write_csv(fte, lines[0], lines[1:1001])
    sets.append(("fashion-MNIST 2k", ftr, fte))
    algos = [("M1", ["--algo", "adaboost.m1"]), ("SAMME", ["--algo", "samme"]),
             ("M2 before (gini stumps)", ["--algo", "adaboost.m2", "--set", "base.criterion=gini"]),
             ("M2 (pseudo-loss stumps)", ["--algo", "adaboost.m2"])]
    print("## AdaBoost.M2 with pseudo-loss stumps, against M1, SAMME and M2's former learner\n")
    print("Stumps, %d rounds, each set's fixed train/test split; test error %% (rounds run when "
          "training stopped early). Last two columns: M2's training error %% after 10 / 30 / "
          "100 / %d rounds, before -> after.\n" % (rounds, rounds))
    print("| data | K | " + " | ".join(a for a, _ in algos) +
          " | M2 training error before | after |")
    print("|---|---|" + "---|" * len(algos) + "---|---|")
    for name, tr, te in sets:
        k = len(set(l.split(",")[0] for l in open(tr).read().splitlines()[1:]))
        cells, curves = [], {}
        for a, args in algos:
            model, log = os.path.join(tmp, "m.model"), os.path.join(tmp, "m.log")
            P.train(tr, model, "--base", "stump", "--rounds", rounds, "--seed", 0, "--log", log,
                    *args)
            err = P.error(model, te)
            ran = P.info(model)["model"].get("rounds", rounds)
            cells.append("%.1f%s" % (100 * err, "" if ran == rounds else " (%s)" % ran))
            curves[a] = log_train_errors(log)
        marks = [10, 30, 100, rounds]
        before = curves[algos[2][0]]
        after = curves[algos[3][0]]
        fmt = lambda c: " / ".join("%.1f" % (100 * at(c, t)) for t in marks)
        print("| %s | %d | %s | %s | %s |" % (name, k, " | ".join(cells), fmt(before), fmt(after)))
    print("\nBefore, M2's members were grown on D_t with gini and only then given the plausibilities "
          "that minimize the pseudo-loss: once the easy structure is used, no gini split has an "
          "edge under the pseudo-loss, the training error freezes and the pseudo-loss creeps to "
          "1/2 (boost.min_edge now stops it, with the reason in `grove info`). The pseudo-loss "
          "criterion picks each split for the pseudo-loss itself (Freund & Schapire 1996/1997), "
          "so the training error keeps falling. Regenerate: `bench/papers/run.sh` (or "
          "`ONLY=m2_table bench/papers/run.sh`).")


if __name__ == "__main__":
    main()
