#!/usr/bin/env bash
# Peak memory of training a forest and saving it, as a user runs it, against scikit-learn:
#   grove train --algo forest --rounds TREES --threads THREADS TRAIN -o MODEL$EXT (one process:
#   read the CSV, train, save the model file) against a python process doing the same with
#   scikit-learn (pandas.read_csv, RandomForestClassifier(n_estimators=TREES, n_jobs=THREADS).fit,
#   joblib.dump).  Prints wall seconds, CPU seconds (user + system), peak RSS (MB, /usr/bin/time
#   %M) and the model file's size for each, and the ratios.
#
#   N_TRAIN=1000000 bench/predict/mem.sh        # defaults: N_TRAIN=100000 TREES=100 THREADS=2
#   EXT=.json bench/predict/mem.sh              # the model file's extension (default .gvb)
#   PEER=0 bench/predict/mem.sh                 # grove only
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out
PY=/usr/bin/python3
N_TRAIN=${N_TRAIN:-100000}
TREES=${TREES:-100}
THREADS=${THREADS:-2}
EXT=${EXT:-.gvb}
PEER=${PEER:-1}
BUILD=${BUILD:-$ROOT/build}
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 --target grove_cli >/dev/null
train=$OUT/bin${N_TRAIN}_train.csv
[[ -s $train ]] || "$PY" "$ROOT/bench/common/gen_binary.py" "$train" "$N_TRAIN" 1

run() { # NAME FILE CMD...: one line of wall, CPU, peak MB and the file's size
  local name=$1 file=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$OUT/mem_time.txt" "$@" >/dev/null 2>"$OUT/mem_err.txt" ||
    { cat "$OUT/mem_err.txt" >&2; return 1; }
  read -r w u s k <"$OUT/mem_time.txt"
  awk -v n="$name" -v w="$w" -v c="$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" -v k="$k" \
      -v f="$(stat -c %s "$file")" 'BEGIN {printf "%-13s %8.1f %8.1f %9.0f %9.0f\n", n, w, c, k / 1024, f / 1048576}'
}
printf '%-13s %8s %8s %9s %9s\n' tool wall_s cpu_s peak_MB file_MB
gm=$OUT/mem_forest_${N_TRAIN}$EXT
run grove "$gm" "$BUILD/grove" train --algo forest --rounds "$TREES" --threads "$THREADS" --seed 1 "$train" -o "$gm"
if [[ $PEER == 1 ]]; then
  pm=$OUT/mem_forest_${N_TRAIN}.joblib
  run scikit-learn "$pm" "$PY" -c '
import sys, joblib, numpy as np, pandas as pd
from sklearn.ensemble import RandomForestClassifier
train, path, trees, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
a = pd.read_csv(train)
X, y = a.iloc[:, 1:].to_numpy(np.float32), a.iloc[:, 0].to_numpy()
m = RandomForestClassifier(n_estimators=trees, n_jobs=threads, random_state=1).fit(X, y)
joblib.dump(m, path)' "$train" "$pm" "$TREES" "$THREADS"
fi
echo "(N_TRAIN=$N_TRAIN rows x 28, $TREES trees, $THREADS threads; grove's model file $EXT)"
