"""fixtures.py -- what the Python checks of tests/ (py_*.py) share: where the grove binary and the
bundled data are, running grove, reading a data set, and counting checks.

The checks run as scripts (ctest: `python3 tests/py_NAME.py` from the source root, with GROVE and
GROVE_SRC set), so this module is found beside them; it uses only the standard library and numpy.
"""
import csv
import os
import subprocess
import sys

GROVE = os.environ.get("GROVE", "build/grove")
SRC = os.environ.get("GROVE_SRC", ".")
DATA = os.path.join(SRC, "examples", "data")

checks = 0
failures = 0


def check(cond, what):
    """Counts a check; prints FAIL: WHAT on stderr when cond is false."""
    global checks, failures
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what, file=sys.stderr)


def finish(name):
    """Prints 'NAME: N checks, F failed' and returns the exit status (1 when any failed)."""
    print(f"{name}: {checks} checks, {failures} failed")
    return 1 if failures else 0


def grove(*args):
    """Runs `grove ARGS...`; returns its stdout, raises RuntimeError with its stderr on failure."""
    r = subprocess.run([GROVE, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"grove {' '.join(args)} failed: {r.stderr}")
    return r.stdout


def load(path, numeric_label=False, header=False):
    """A CSV whose first column is the label: X (floats; '', 'NA' and '?' are NaN) and y (strings,
    or floats with numeric_label); with header=True, (header, X, y)."""
    import numpy as np
    with open(path) as f:
        rows = list(csv.reader(f))
    head, rows = rows[0], rows[1:]
    y = [float(r[0]) if numeric_label else r[0] for r in rows]
    X = np.array([[float(v) if v not in ("", "NA", "?") else np.nan for v in r[1:]] for r in rows])
    if numeric_label:
        y = np.array(y)
    return (head, X, y) if header else (X, y)
