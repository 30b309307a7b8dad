#!/usr/bin/env bash
# Where each workload of the benchmark matrix (bench/matrix/run.sh) spends its time: runs grove's
# train process and predict process of every cell once under `perf record -g` (cpu-clock
# samples, PERF_FREQ per CPU second, default 499) and charges every sample to a phase -- CSV
# read + parse, binning, gradients and boosting updates, histogram build, split scan, partition
# + node stats, quality summary, prediction, output formatting, model save/load, memory, file
# I/O, OpenMP runtime -- by the source file of the code that ran (bench/matrix/phases.py: grove
# is built Release with -g in build-prof/, the same code as build/, and each sampled instruction
# is looked up with addr2line, inlined functions included; a kernel sample is charged to the
# instruction that entered the kernel).  Writes one section per workload (phase table for the
# train and the predict process, then the top functions) to bench/out/matrix/profile.md.
# The same cells, sizes and data files as run.sh (CELLS, SMALL, ROUNDS, ... mean the same);
# GROVE picks another binary (it needs -g for phases by file).
#
#   bench/matrix/profile.sh                            # every cell at full size (~15 min)
#   SMALL=1 bench/matrix/profile.sh                    # a few minutes
#   CELLS="gbdt-63L:fashion" bench/matrix/profile.sh
#
# perf comes from Debian's linux-perf (scripts/deps.sh --bench); run as root or with
# kernel.perf_event_paranoid <= 1.
set -euo pipefail
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$ROOT/bench/out/matrix
OUT=${MATRIX_OUT:-$DATA}
PROF=$OUT/profile
PY=/usr/bin/python3
T=${THREADS:-2}
SMALL=${SMALL:-0}
FREQ=${PERF_FREQ:-499}
BUILD=${BUILD:-$ROOT/build-prof}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
source "$ROOT/bench/matrix/cells.sh"
CELLS=${CELLS:-"gbdt-d6:1m gbdt-63L:1m gbdt-d6:fashion gbdt-63L:fashion forest:fashion forest:100k
                adaboost:100k bagging:100k gbdt-d6:100k gbdt-63L:100k"}
"$ROOT/scripts/deps.sh" --bench
command -v perf >/dev/null || { echo "profile.sh: perf is missing (apt-get install linux-perf)"; exit 1; }
mkdir -p "$OUT" "$PROF"
if [[ -z ${GROVE:-} ]]; then
  nice -n 5 cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g >/dev/null
  nice -n 5 cmake --build "$BUILD" -j"$T" --target grove_cli >/dev/null
  GROVE=$BUILD/grove
fi
matrix_data

# profile_run NAME COMMAND...: perf record of one process, its samples per phase and function
# (phases.py collapse) to $PROF/NAME.tsv and its CPU seconds (user + sys) to $PROF/NAME.time
profile_run() {
  local name=$1; shift
  /usr/bin/time -f "%U %S" -o "$PROF/$name.time" \
    perf record -q -g -F "$FREQ" -o "$PROF/$name.data" -- "$@" >"$PROF/$name.out" 2>"$PROF/$name.err"
  perf script -i "$PROF/$name.data" -F ip,sym,symoff,dso 2>/dev/null |
    "$PY" "$ROOT/bench/matrix/phases.py" collapse "$GROVE" >"$PROF/$name.tsv"
}

printf '# %s, %s, %s threads; SMALL=%s; %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores" "$T" "$SMALL" \
  "$(git -C "$ROOT" log -1 --format='%h %s' | cut -c1-72)" >"$PROF/header.txt"
done_cells=()
for cell in $CELLS; do
  matrix_cell "$cell" || exit 1
  name=${cell/:/_}
  echo "profile: $cell"
  profile_run "$name.train" "$GROVE" train "$tr" -o "$PROF/model" "${g[@]}" --threads "$T" --seed 1
  profile_run "$name.predict" "$GROVE" predict "$PROF/model" "$te" --proba -o "$PROF/pred.csv" --threads "$T"
  rm -f "$PROF/model" "$PROF/pred.csv" "$PROF/$name".*.data
  done_cells+=("$cell")
done
"$PY" "$ROOT/bench/matrix/phases.py" report "$PROF" "${done_cells[@]}" | tee "$OUT/profile.md"
