#!/usr/bin/env bash
# Export to C: compile time and code size of the exported file for a 100-tree forest and a
# 1000-tree gbdt, in both forms (one function per tree, one node table), and prediction speed
# of the compiled export against the library's batch predictor (1 thread each, same process,
# outputs checked bit-identical).  Data: bench/common/gen_binary.py (28 numeric features).
#   bench/export/run.sh [TRAIN_ROWS=20000] [TEST_ROWS=100000]
# MODELS (default "forest gbdt") and FORMS (default "code table") choose the rows of the table.
# A compile that takes longer than COMPILE_LIMIT seconds (default 300) is stopped and shown as
# ">LIMIT" (the code form of a large forest: why `--form auto` picks the table above 20000 nodes).
# Needs a built grove (build/grove, build/libgrove.a), cc and python3 with numpy.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NTR=${1:-20000}; NTE=${2:-100000}
OUT=${OUT:-$ROOT/build/bench_export}
mkdir -p "$OUT"
G=$ROOT/build/grove
[[ -f $OUT/train.csv ]] || /usr/bin/python3 "$ROOT/bench/common/gen_binary.py" "$OUT/train.csv" "$NTR" 1
[[ -f $OUT/test.csv ]] || /usr/bin/python3 "$ROOT/bench/common/gen_binary.py" "$OUT/test.csv" "$NTE" 2
[[ -f $OUT/forest.json ]] || "$G" train "$OUT/train.csv" -o "$OUT/forest.json" --algo forest --rounds 100 -q
[[ -f $OUT/gbdt.json ]] || "$G" train "$OUT/train.csv" -o "$OUT/gbdt.json" --algo gbdt --rounds 1000 \
  --set max_depth=6 --set learning_rate=0.05 -q
CFLAGS="-std=c99 -Wall -Werror -O2"
printf '%-8s %-6s %10s %12s %10s %12s %14s %14s %8s\n' model form nodes source_KB compile_s text_KB \
  grove_rows/s export_rows/s speedup
for model in ${MODELS:-forest gbdt}; do
  for form in ${FORMS:-code table}; do
    c=$OUT/${model}_$form.c
    "$G" export "$OUT/$model.json" --lang c --form $form -o "$c"
    nodes=$(grep -o '[0-9]* tree nodes' "$c" | head -1 | cut -d' ' -f1)
    t0=$(date +%s.%N)
    if ! timeout "${COMPILE_LIMIT:-300}" cc $CFLAGS -c "$c" -o "$OUT/${model}_$form.o"; then
      printf '%-8s %-6s %10s %12.0f %10s\n' $model $form "$nodes" "$(($(stat -c %s "$c") / 1024))" \
        ">${COMPILE_LIMIT:-300}"
      continue
    fi
    t1=$(date +%s.%N)
    text=$(size "$OUT/${model}_$form.o" | awk 'NR == 2 { print $1 + $2 }')
    cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -I"$ROOT/include" "$ROOT/bench/export/bench_export.c" \
      "$OUT/${model}_$form.o" "$ROOT/build/libgrove.a" -ljansson -lz -lm -o "$OUT/bench_${model}_$form"
    read -r lib exp same < <("$OUT/bench_${model}_$form" "$OUT/$model.json" "$OUT/test.csv" 3)
    [[ $same == 1 ]] || echo "WARNING: $model $form: outputs differ from grove's" >&2
    printf '%-8s %-6s %10s %12.0f %10.1f %12.0f %14s %14s %8.2f\n' $model $form "$nodes" \
      "$(($(stat -c %s "$c") / 1024))" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$((text / 1024))" "$lib" "$exp" \
      "$(awk -v a="$lib" -v b="$exp" 'BEGIN { print b / a }')"
  done
done
