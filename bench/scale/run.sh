#!/usr/bin/env bash
# Scale: gbdt and a depth-limited forest on 1M, 3M and 10M rows x 28 features from
# one generated CSV each (bench/common/gen_binary.py, seed 1; the 10M file is ~2.5 GB), grove's
# CLI against XGBoost on the same file, as whole processes under /usr/bin/time: wall seconds and
# peak resident memory.  XGBoost reads the CSV two ways (xgb.py): "usual" (pandas frame, then a
# DMatrix: what most users write) and "frugal" (float32 chunks streamed into a QuantileDMatrix:
# its most memory-careful in-memory way).  Time per tree at each size shows whether any step grows faster
# than the rows (a log-log plot: bench/scale/plot.py writes docs/scale.svg).
#   bench/scale/run.sh                      SIZES="1000000 3000000 10000000" ROUNDS=20 TREES=20
#   SIZES=100000 bench/scale/run.sh         # a quick look
#   TOOLS="grove xgboost-usual" bench/scale/run.sh      # a subset of grove xgboost-usual xgboost-frugal
#   APPEND=1 SIZES=1000000 TOOLS=xgboost-frugal ...     # add rows to bench/out/scale.tsv instead of starting it
# Columns: wall seconds, peak RSS, and CPU seconds (user + system): on a shared machine the CPU time
# is the steadier measure of the work done, so the plot and the slopes use it.
set -euo pipefail
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out
SIZES=${SIZES:-"1000000 3000000 10000000"}
ROUNDS=${ROUNDS:-20}
TREES=${TREES:-20}
DEPTH=${DEPTH:-6}
FDEPTH=${FDEPTH:-10}
BUILD=${BUILD:-$ROOT/build}
TOOLS=${TOOLS:-"grove xgboost-usual xgboost-frugal"}
want() { [[ " $TOOLS " == *" $1 "* ]]; }
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
G=$BUILD/grove
RES=$OUT/scale.tsv
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load $(cut -d' ' -f1 /proc/loadavg), $(date -u '+%F %H:%M UTC'), grove $(git -C "$ROOT" rev-parse --short HEAD)"
[[ -n ${APPEND:-} && -f $RES ]] || echo -e "rows\tjob\ttool\twall_s\tpeak_mb\ttrees\tcpu_s" > "$RES"
# run ROWS JOB TOOL TREES CMD...: whole process under /usr/bin/time; appends wall, peak RSS and CPU to $RES
run() {
  local rows=$1 job=$2 tool=$3 trees=$4; shift 4
  local t; t=$(mktemp)
  want "$tool" || return 0
  /usr/bin/time -f "%e %M %U %S" -o "$t" "$@" >/dev/null 2>"$t.err" || { cat "$t.err" >&2; exit 1; }
  read -r wall kb user sys < <(tail -1 "$t")
  printf "%s\t%s\t%s\t%s\t%d\t%s\t%.2f\n" "$rows" "$job" "$tool" "$wall" $((kb / 1024)) "$trees" \
    "$(echo "$user + $sys" | bc)" | tee -a "$RES"
  rm -f "$t" "$t.err"
}
for n in $SIZES; do
  data=$OUT/binary_$n.csv
  [[ -f $data ]] || /usr/bin/python3 "$ROOT/bench/common/gen_binary.py" "$data" "$n" 1
  m=$(mktemp -d)
  run "$n" gbdt grove "$ROUNDS" "$G" train "$data" -o "$m/g.model" -q --algo gbdt \
      --rounds "$ROUNDS" --set max_depth="$DEPTH" --threads 2
  for how in usual frugal; do
    run "$n" gbdt "xgboost-$how" "$ROUNDS" /usr/bin/python3 "$ROOT/bench/scale/xgb.py" "$data" \
        gbdt "$ROUNDS" "$DEPTH" "$how"
  done
  run "$n" forest grove "$TREES" "$G" train "$data" -o "$m/f.model" -q --algo forest \
      --rounds "$TREES" --set max_depth="$FDEPTH" --threads 2
  for how in usual frugal; do
    run "$n" forest "xgboost-$how" "$TREES" /usr/bin/python3 "$ROOT/bench/scale/xgb.py" "$data" \
        forest "$TREES" "$FDEPTH" "$how"
  done
  rm -rf "$m"
done
/usr/bin/python3 "$ROOT/bench/scale/plot.py" "$RES" "$ROOT/docs/scale.svg"
