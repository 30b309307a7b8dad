#!/usr/bin/env bash
# Data-parallel gbdt on one machine (docs/distributed.md): time and peak memory per rank of
# `grove train` on 1M x 28 (bench/common/gen_binary.py, seed 1) for 1 rank x 2 threads, 2 ranks
# x 1 thread and 1 rank x 1 thread (wall, user and system CPU seconds, peak RSS, per rank), and
# the bytes a rank sends per tree; the models of the runs over MPI are compared byte for byte.
# 2x1yield: 2 ranks x 1 thread with Open MPI's mpi_yield_when_idle (a rank waiting in a
# collective yields its core instead of polling: on a shared machine the other work runs).
# usage: bench/dist/run.sh [OUT_DIR] (default bench/out); ROWS (1000000), ROUNDS (20), DEPTH (6),
# REPEAT (2)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-bench/out}
ROWS=${ROWS:-1000000}
ROUNDS=${ROUNDS:-20}
DEPTH=${DEPTH:-6}
G=${GROVE:-build/grove}
MPI=(mpirun --oversubscribe --allow-run-as-root --mca btl self,vader)
mkdir -p "$OUT"
DATA=$OUT/dist_${ROWS}.csv
[[ -s $DATA ]] || /usr/bin/python3 bench/common/gen_binary.py "$DATA" "$ROWS" 1
ARGS=(-a gbdt -r "$ROUNDS" --set max_depth="$DEPTH" --set learning_rate=0.1)
T=/usr/bin/time
printf 'setup\tpass\trank\twall_s\tuser_s\tsys_s\tload_s\ttrain_s\tpeak_MB\tbytes_sent\n' > "$OUT/dist.tsv"
run() { # SETUP NP THREADS [MPI OPTIONS...]
  local setup=$1 np=$2 j=$3
  shift 3
  local pre=()
  [[ $np -gt 0 ]] && pre=("${MPI[@]}" "$@" -np "$np")
  # each rank's wall time and peak RSS, in a file named by its rank
  "${pre[@]}" bash -c 'exec '"$T"' -f "%e %U %S %M" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"' "$OUT/dist_time" \
    "$G" train "$DATA" "${ARGS[@]}" -j "$j" -o "$OUT/dist_$setup.model" > "$OUT/dist_$setup.log" 2>&1 ||
    { cat "$OUT/dist_$setup.log"; exit 1; }
  local load train bytes
  load=$(sed -n 's/^load \([0-9.]*\) s, train \([0-9.]*\) s.*/\1/p' "$OUT/dist_$setup.log")
  train=$(sed -n 's/^load \([0-9.]*\) s, train \([0-9.]*\) s.*/\2/p' "$OUT/dist_$setup.log")
  bytes=$(sed -n 's/.*rank 0 sent \([0-9]*\) bytes.*/\1/p' "$OUT/dist_$setup.log")
  for f in "$OUT"/dist_time.*; do
    local r=${f##*.}
    read -r wall user sys kb < <(tail -1 "$f")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n' "$setup" "$pass" "${r:-0}" "$wall" "$user" "$sys" "$load" "$train" $((kb / 1024)) "${bytes:-0}" >> "$OUT/dist.tsv"
  done
  rm -f "$OUT"/dist_time.*
}
# REPEAT passes (default 2), interleaved: the machine is shared, so compare within a pass
for pass in $(seq "${REPEAT:-2}"); do
  run 1x2 0 2
  run 2x1 2 1
  run 2x1yield 2 1 --mca mpi_yield_when_idle 1
  run mpi1x1 1 1
  run 1x1 0 1
done
cmp "$OUT/dist_2x1.model" "$OUT/dist_mpi1x1.model" && echo "2 ranks and 1 rank over MPI: the same model file"
column -t "$OUT/dist.tsv"
