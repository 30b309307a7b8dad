#!/usr/bin/env bash
# The Python package against the CLI and XGBoost on 1M x 28 rows (bench/python/bench.py).
#   bench/python/run.sh [ROWS] [REPS]      (defaults 1000000 3; data cached in bench/out/)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROWS=${1:-1000000}
REPS=${2:-3}
OUT=$ROOT/bench/out
mkdir -p "$OUT"
DATA=$OUT/binary_$ROWS.csv
[[ -f $DATA ]] || /usr/bin/python3 "$ROOT/bench/common/gen_binary.py" "$DATA" "$ROWS" 1
cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$ROOT/build" -j"$(nproc)" >/dev/null
echo "machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%F)"
OMP_WAIT_POLICY=passive /usr/bin/python3 "$ROOT/bench/python/bench.py" "$DATA" "$REPS"
