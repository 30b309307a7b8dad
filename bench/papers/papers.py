"""papers.py -- what the published-table scripts of bench/papers/ share (standard library only).

Each table script runs grove as a user would (the CLI, files in, files out) and prints one
markdown section: our number as mean +- standard error over repeated random splits, the paper's
number beside it, and the difference.  This module holds the pieces they all need:

  read_csv(path)            -> (header line, list of row lines), the label column's index
  split(rows, frac, seed)   -> (train rows, test rows): a uniformly random test set of
                               round(frac * n) rows, drawn with Python's Mersenne Twister seeded by
                               `seed` (so a split is reproducible from its seed alone)
  grove(*args)              -> stdout of one grove process (raises with its stderr on failure)
  mean_se(xs)               -> (mean, standard error = sd / sqrt(n), sd with n - 1)
  fmt_pct(m, se)            -> "12.3 ± 0.4"

Nothing here times anything: these are accuracy tables; speed lives in the other bench/ folders.
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

GROVE = os.environ.get("GROVE", "build/grove")


def setup(argv):
    """Reads `script GROVE_BIN DATA_DIR` (both optional) and returns (grove, data_dir)."""
    global GROVE
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    GROVE = argv[1] if len(argv) > 1 and argv[1] else os.path.join(root, "build", "grove")
    data = argv[2] if len(argv) > 2 and argv[2] else "/work/data"
    if not os.access(GROVE, os.X_OK):
        sys.exit("%s: grove binary %s not found (build it: cmake --build build)" % (argv[0], GROVE))
    if not os.path.isdir(data):
        sys.exit("%s: data folder %s not found (../shared/data/get-datasets.sh DIR)" % (argv[0], data))
    return GROVE, data


def read_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return lines[0], [l for l in lines[1:] if l]


def split(rows, frac, seed):
    rng = random.Random(seed)
    idx = list(range(len(rows)))
    rng.shuffle(idx)
    n_test = max(1, int(round(frac * len(rows))))
    test = sorted(idx[:n_test])
    train = sorted(idx[n_test:])
    return [rows[i] for i in train], [rows[i] for i in test]


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(header + "\n")
        f.write("\n".join(rows) + "\n")


def grove(*args):
    p = subprocess.run([GROVE] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("grove %s failed (%d): %s" % (" ".join(map(str, args)), p.returncode,
                                                         p.stderr.strip()))
    return p.stdout


def train(data, model, *args):
    grove("train", data, "-o", model, "--quiet", "--threads", "1", *args)


def error(model, data):
    """Test error of `model` on the labelled file `data` (grove eval --json)."""
    return json.loads(grove("eval", model, data, "--json", "--threads", "1"))["error"]


def info(model):
    return json.loads(grove("info", model, "--json"))


def cv_error(data, folds, seed, *args):
    out = json.loads(grove("cv", data, "--folds", folds, "--seed", seed, "--json", "--quiet",
                           "--threads", "1", *args))
    return out["metrics"]["error"]["mean"]


def mean_se(xs):
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return m, sd / math.sqrt(n), sd


def fmt_pct(m, se=None):
    if m is None:
        return "–"
    if se is None:
        return "%.1f" % (100 * m)
    return "%.1f ± %.1f" % (100 * m, 100 * se)


def fmt_diff(ours, paper):
    if paper is None:
        return "–"
    return "%+.1f" % (100 * ours - paper)


def tmpdir():
    return tempfile.mkdtemp(prefix="grove-papers-")
