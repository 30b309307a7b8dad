#!/usr/bin/python3
"""`grove eval`'s per-class precision, recall, F1 and their macro and weighted averages against
scikit-learn's precision_recall_fscore_support (zero_division=0) on the same predictions.

Truth nobody here chose: scikit-learn computes the report from the true labels and the labels
`grove predict` wrote; grove computes it from its own confusion matrix.  Three models: a
3-class stump (one class never predicted: its precision is 0 by zero_division), a binary
forest, and a 7-class tree on glass (classes absent from the test file).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from sklearn.metrics import precision_recall_fscore_support

import fixtures
from fixtures import GROVE, DATA, check


def close(a, b):
    return abs(a - b) <= 1e-12


def labels(path, column="label"):
    with open(path) as f:
        return [r[column] for r in csv.DictReader(f)]


with tempfile.TemporaryDirectory() as tmp:
    for name, algo in (("iris", ["--algo", "stump"]), ("breast_cancer", ["--algo", "forest", "-r", "5"]),
                       ("glass", ["--algo", "tree", "--set", "max_depth=3"])):
        train = os.path.join(DATA, name + "_train.csv")
        test = os.path.join(DATA, name + "_test.csv")
        model = os.path.join(tmp, name + ".model")
        pred = os.path.join(tmp, name + ".csv")
        subprocess.run([GROVE, "train", train, "-o", model, "-q", "--seed", "1"] + algo, check=True)
        subprocess.run([GROVE, "predict", model, test, "-o", pred, "-q"], check=True)
        ev = json.loads(subprocess.run([GROVE, "eval", model, test, "--json", "-q"], check=True,
                                       capture_output=True, text=True).stdout)
        info = json.loads(subprocess.run([GROVE, "info", model, "--json"], check=True,
                                         capture_output=True, text=True).stdout)
        classes = info["classes"]
        y_true, y_pred = labels(test), labels(pred)
        # per class, in the model's class order (every class, present or not)
        p, r, f, s = precision_recall_fscore_support(y_true, y_pred, labels=classes,
                                                     zero_division=0)
        check(len(ev["classes"]) == len(classes), f"{name}: {len(ev['classes'])} classes")
        for c, row in enumerate(ev["classes"]):
            check(close(row["precision"], p[c]) and close(row["recall"], r[c]) and
                  close(row["f1"], f[c]) and row["support"] == s[c],
                  f"{name} class {classes[c]}: grove {row}, sklearn {p[c], r[c], f[c], s[c]}")
        # the averages over the labels present (classification_report's set)
        for avg in ("macro", "weighted"):
            p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average=avg,
                                                         zero_division=0)
            got = (ev[avg + "_precision"], ev[avg + "_recall"], ev[avg + "_f1"])
            check(all(close(a, b) for a, b in zip(got, (p, r, f))),
                  f"{name} {avg}: grove {got}, sklearn {(p, r, f)}")
        print(f"{name}: {len(classes)} classes, macro F1 {ev['macro_f1']:.4f}, "
              f"weighted F1 {ev['weighted_f1']:.4f}")
        if name == "iris":
            check(any(row["precision"] == 0 and row["support"] > 0 for row in ev["classes"]),
                  "iris stump: expected a class that is never predicted")

sys.exit(fixtures.finish("py_sklearn_eval"))
