#!/usr/bin/env bash
# Random forest, 100 trees, 2 threads: grove --algo forest against scikit-learn's
# RandomForestClassifier(n_estimators=100, n_jobs=2) and ranger (num.threads=2; skipped when
# `Rscript -e 'library(ranger)'` fails -- `apt-get install r-cran-ranger`) on the same files:
#   binary: N_TRAIN x 28 rows from bench/common/gen_binary.py (seed 1; test N_TEST rows, seed 2)
#           (default 100,000 / 20,000; the matrix's size is N_TRAIN=1000000 N_TEST=200000)
#   fashion-MNIST: 60,000 x 784, 10 classes, test 10,000 rows (FASHION_DIR)
# All defaults (unpruned trees, max_features sqrt, bootstrap).  Prints training time,
# whole-process time (load + train + save for grove), peak memory (/usr/bin/time %M), test
# accuracy and peer/grove ratios.
#
#   bench/forest/run.sh
#   N_TRAIN=1000000 N_TEST=200000 DATASETS=binary bench/forest/run.sh
#   FASHION_DIR=/work/data bench/forest/run.sh      # where fashion_mnist_{train,test}.csv.gz are
#                                                  # (default bench/out/datasets, fetched by
#                                                  # ../shared/data/get-datasets.sh when missing)
#   PEERS=ranger DATASETS=binary bench/forest/run.sh     # peers: "sklearn ranger" (default)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out
PY=/usr/bin/python3
TREES=${TREES:-100}
N_TRAIN=${N_TRAIN:-100000}
N_TEST=${N_TEST:-20000}
DATASETS=${DATASETS:-"binary fashion"}
PEERS=${PEERS:-"sklearn ranger"}
BUILD=${BUILD:-$ROOT/build}
"$ROOT/scripts/deps.sh" --bench
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
G=$BUILD/grove
HAVE_RANGER=0
if command -v Rscript >/dev/null && Rscript -e 'suppressMessages(library(ranger))' >/dev/null 2>&1; then
  HAVE_RANGER=1
else
  echo "(ranger not installed: skipped; apt-get install r-cran-ranger)"
fi

bin_train=$OUT/bin${N_TRAIN}_train.csv; bin_test=$OUT/bin${N_TEST}_test.csv
if [[ $DATASETS == *binary* && ! -s $bin_train ]]; then
  "$PY" "$ROOT/bench/common/gen_binary.py" "$bin_train" "$N_TRAIN" 1
fi
if [[ $DATASETS == *binary* && ! -s $bin_test ]]; then
  "$PY" "$ROOT/bench/common/gen_binary.py" "$bin_test" "$N_TEST" 2
fi
FASHION_DIR=${FASHION_DIR:-$OUT/datasets}
if [[ $DATASETS == *fashion* && ! -s $FASHION_DIR/fashion_mnist_train.csv.gz ]]; then
  bash "$ROOT/../shared/data/get-datasets.sh" "$FASHION_DIR"
fi

row() { printf '%-9s %-13s %9.2f %9.2f %9.0f %8.4f\n' "$@"; }
printf '%-9s %-13s %9s %9s %9s %8s\n' dataset tool train_s total_s peak_MB accuracy
for ds in $DATASETS; do
  if [[ $ds == binary ]]; then
    tr=$bin_train; te=$bin_test
  else
    tr=$FASHION_DIR/fashion_mnist_train.csv.gz; te=$FASHION_DIR/fashion_mnist_test.csv.gz
  fi
  /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$G" train "$tr" -o "$OUT/forest.model" --algo forest \
    --rounds "$TREES" --threads 2 --seed 1 >"$OUT/grove.txt"
  g_train=$(sed -n 's/.*train \([0-9.]*\) s;.*/\1/p' "$OUT/grove.txt")
  read -r g_total g_kb <"$OUT/time.txt"
  g_acc=$("$G" eval "$OUT/forest.model" "$te" --threads 2 --json | sed 's/.*"accuracy":\([0-9.]*\).*/\1/')
  g_oob=$(sed -n 's/^out-of-bag error \([0-9.e-]*\) .*/\1/p' "$OUT/grove.txt")
  rm -f "$OUT/forest.model"
  row "$ds" grove "$g_train" "$g_total" "$((g_kb / 1024))" "$g_acc"
  echo "          (grove OOB error $g_oob, test error $("$PY" -c "print(round(1 - $g_acc, 4))"))"
  if [[ $PEERS == *sklearn* ]]; then
  /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$PY" "$ROOT/bench/forest/sk_forest.py" "$tr" "$te" "$TREES" >"$OUT/sk.txt"
  read -r s_load s_train s_acc <"$OUT/sk.txt"
  read -r s_total s_kb <"$OUT/time.txt"
  row "$ds" scikit-learn "$s_train" "$s_total" "$((s_kb / 1024))" "$s_acc"
  "$PY" -c "print('%-9s %-13s %8.1fx %8.1fx %8.2fx %+8.4f' % ('$ds', 'sklearn/grove', $s_train / $g_train, $s_total / $g_total, $s_kb / $g_kb, $g_acc - $s_acc))"
  fi
  if [[ $HAVE_RANGER == 1 && $PEERS == *ranger* ]]; then
    /usr/bin/time -f "%e %M" -o "$OUT/time.txt" Rscript "$ROOT/bench/forest/ranger_forest.R" "$tr" "$te" "$TREES" >"$OUT/ranger.txt"
    read -r r_load r_train r_acc < <(tail -n 1 "$OUT/ranger.txt")
    read -r r_total r_kb <"$OUT/time.txt"
    row "$ds" ranger "$r_train" "$r_total" "$((r_kb / 1024))" "$r_acc"
    "$PY" -c "print('%-9s %-13s %8.1fx %8.1fx %8.2fx %+8.4f' % ('$ds', 'ranger/grove', $r_train / $g_train, $r_total / $g_total, $r_kb / $g_kb, $g_acc - $r_acc))"
  fi
done
echo "(ratios: peer time or memory divided by grove's; accuracy: grove minus peer)"
