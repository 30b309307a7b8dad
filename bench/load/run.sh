#!/usr/bin/env bash
# Load benchmark: grove's CSV loader against pandas.read_csv, numpy.loadtxt and xgboost's
# DMatrix (built from the pandas frame) on a HIGGS-shaped file: ROWS x 28 numeric features with
# 7 significant digits and a 0/1 label in the first column (~250 MB for 1,000,000 rows).
#
#   bench/load/run.sh            # ROWS=1000000; GROVE_BUILD=build (libgrove.a is built there
#                                # if missing); LOADTXT_LIMIT=120 seconds
#
# The file is generated once, deterministically (numpy seed 20240601), into bench/out/ (git-
# ignored).  Every loader reads it from the page cache (one untimed warm-up read first).  grove
# is timed as the best of 3 loads per thread count, pandas and DMatrix as the best of 2, and
# numpy.loadtxt once (abandoned past LOADTXT_LIMIT seconds).  Uses Debian's /usr/bin/python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out
BUILD=${GROVE_BUILD:-$ROOT/build}
PY=/usr/bin/python3
ROWS=${ROWS:-1000000}
LOADTXT_LIMIT=${LOADTXT_LIMIT:-120}
CSV=$OUT/higgs_like_$ROWS.csv
mkdir -p "$OUT"

if [[ ! -s $CSV ]]; then
  echo "generating $CSV ..."
  "$PY" - "$CSV" "$ROWS" <<'PY'
import sys
import numpy as np
path, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(20240601)
with open(path, "w") as f:
    f.write("label," + ",".join("f%d" % k for k in range(1, 29)) + "\n")
    for start in range(0, n, 100000):
        m = min(100000, n - start)
        y = rng.integers(0, 2, m)
        # HIGGS-like columns: positive skewed momenta, symmetric angles, 0/1/2 tags
        x = np.empty((m, 28))
        x[:, 0::4] = rng.lognormal(0.0, 0.5, (m, 7))
        x[:, 1::4] = rng.normal(0.0, 1.0, (m, 7))
        x[:, 2::4] = rng.uniform(-1.74, 1.74, (m, 7))
        x[:, 3::4] = rng.integers(0, 3, (m, 7)) * 1.0868
        x += y[:, None] * 0.05
        block = np.column_stack([y, x])
        np.savetxt(f, block, fmt=["%d"] + ["%.7g"] * 28, delimiter=",")
PY
fi
ls -l "$CSV" | awk '{printf "file: %s (%.0f MB)\n", $NF, $5 / 1e6}'

if [[ ! -f $BUILD/libgrove.a ]]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD" --target grove_static -j >/dev/null
fi
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$ROOT/include" "$ROOT/bench/load/load_csv.c" \
  "$BUILD/libgrove.a" -fopenmp -ljansson -lz -lm -o "$OUT/load_csv"

cat "$CSV" >/dev/null # warm the page cache
CORES=$(nproc)
G1=$("$OUT/load_csv" "$CSV" 1 3)
GN=$("$OUT/load_csv" "$CSV" 0 3)
echo "$G1"
echo "$GN"

"$PY" - "$CSV" "$LOADTXT_LIMIT" "$CORES" "$G1" "$GN" <<'PY'
import multiprocessing as mp, sys, time
import numpy as np, pandas as pd
path, limit, cores = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
best = lambda line: float(line.split("best=")[1].split()[0])
g1, gn = best(sys.argv[4]), best(sys.argv[5])

def loadtxt(q):
    t = time.perf_counter()
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    q.put((time.perf_counter() - t, a.shape))

def best_of(n, fn):
    best, out = float("inf"), None
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out

rows = []
t_pandas, df = best_of(2, lambda: pd.read_csv(path))
rows.append(("pandas.read_csv (float64)", t_pandas))
t32, _ = best_of(2, lambda: pd.read_csv(path, dtype=np.float32))
rows.append(("pandas.read_csv (dtype=float32)", t32))
try:
    import xgboost as xgb
    t_dm, _ = best_of(2, lambda: xgb.DMatrix(df.iloc[:, 1:], label=df.iloc[:, 0], nthread=cores))
    rows.append(("xgboost.DMatrix from the frame (after read_csv)", t_dm))
    rows.append(("read_csv + xgboost.DMatrix", t_pandas + t_dm))
except ImportError:
    rows.append(("xgboost (not installed)", float("nan")))
del df
q = mp.Queue()
p = mp.Process(target=loadtxt, args=(q,))
p.start()
p.join(limit)
if p.is_alive():
    p.terminate()
    rows.append(("numpy.loadtxt (float32)", float("inf")))
else:
    rows.append(("numpy.loadtxt (float32)", q.get()[0]))

print()
print("%-50s %10s %12s" % ("loader", "seconds", "x grove(%d)" % cores))
print("%-50s %10.2f %12.2f" % ("grove_dataset_load, threads=%d" % cores, gn, 1.0))
print("%-50s %10.2f %12.2f" % ("grove_dataset_load, threads=1", g1, g1 / gn))
for name, s in rows:
    shown = ("> %.0f (gave up)" % limit) if s == float("inf") else "%.2f" % s
    ratio = "" if s != s or s == float("inf") else "%.1f" % (s / gn)
    print("%-50s %10s %12s" % (name, shown, ratio))
PY
