#!/usr/bin/env bash
# Gradient boosting: grove's gbdt against XGBoost (tree_method=hist) and scikit-learn's
# HistGradientBoostingClassifier on identical files and settings: 100 rounds, learning rate 0.1,
# 255 bins, lambda 1, 2 threads; the trees as each peer grows them: against XGBoost depth 6 level
# by level (row "grove"), against scikit-learn 63 leaves best first with at least 20 rows and a
# hessian sum of 0.001 per leaf, its defaults (row "grove-63L").
#   binary:  1,000,000 x 28 train rows from bench/common/gen_binary.py (seed 1), 200,000 test
#            rows (seed 2); metric: test AUC
#   fashion: fashion-MNIST, 60,000 x 784, 10 classes (softmax), 10,000 test rows; metric: accuracy
# Prints per tool: training time (grove: bin + grow, as its CLI reports; XGBoost: DMatrix + train),
# whole-process time and peak memory (/usr/bin/time: load + train, and the peers' imports),
# the test metric, prediction throughput (rows/s over the test rows, 2 threads, data in memory),
# and peer / grove ratios (> 1: grove faster / smaller).
#
#   bench/gbdt/run.sh                               # everything
#   DATASETS=binary ROUNDS=20 bench/gbdt/run.sh      # a quick look
#   FASHION_DIR=/work/data bench/gbdt/run.sh         # where fashion_mnist_{train,test}.csv.gz are
#                                                   # (default bench/out/datasets, fetched by
#                                                   # ../shared/data/get-datasets.sh when missing)
#   BUILD=build-gbdt PEERS="xgboost" bench/gbdt/run.sh
set -euo pipefail
# Idle OpenMP threads sleep instead of spinning (all tools use libgomp): on a shared or small
# machine spinning workers steal the cores the busy threads need (measured here: grove 2
# threads, 10 rounds, 12.4 s active vs 4.9 s passive on a 2-core box with load 4).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out
PY=/usr/bin/python3
ROUNDS=${ROUNDS:-100}
THREADS=${THREADS:-2}
DATASETS=${DATASETS:-"binary fashion"}
PEERS=${PEERS:-"xgboost sklearn"}
BUILD=${BUILD:-$ROOT/build}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
"$ROOT/scripts/deps.sh" --bench
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
G=$BUILD/grove
PB=$OUT/gbdt_predict_bench
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -I"$ROOT/include" "$ROOT/bench/gbdt/predict_bench.c" \
  "$BUILD/libgrove.a" -ljansson -lz -lm -o "$PB"

if [[ $DATASETS == *binary* && ! -s $OUT/bin1m_train.csv ]]; then
  "$PY" "$ROOT/bench/common/gen_binary.py" "$OUT/bin1m_train.csv" 1000000 1
  "$PY" "$ROOT/bench/common/gen_binary.py" "$OUT/bin1m_test.csv" 200000 2
fi
FASHION_DIR=${FASHION_DIR:-$OUT/datasets}
if [[ $DATASETS == *fashion* && ! -s $FASHION_DIR/fashion_mnist_train.csv.gz ]]; then
  bash "$ROOT/../shared/data/get-datasets.sh" "$FASHION_DIR"
fi

printf '%-8s %-13s %9s %9s %8s %9s %12s\n' dataset tool train_s total_s peak_MB metric pred_rows/s
for ds in $DATASETS; do
  if [[ $ds == binary ]]; then
    tr=$OUT/bin1m_train.csv; te=$OUT/bin1m_test.csv; mname=auc
  else
    tr=$FASHION_DIR/fashion_mnist_train.csv.gz; te=$FASHION_DIR/fashion_mnist_test.csv.gz; mname=accuracy
  fi
  # grove with the peer's tree shape: XGBoost grows depth 6 level by level, scikit-learn 63
  # leaves best first (unlimited depth, at least 20 rows per leaf, a hessian sum of 0.001 per
  # child: its defaults)
  for peer in $PEERS; do
    if [[ $peer == sklearn ]]; then
      shape=(--set growth=bestfirst --set max_leaves=63 --set max_depth=0 --set min_samples_leaf=20
             --set min_child_weight=0.001); gname=grove-63L
    else
      shape=(--set max_depth=6); gname=grove
    fi
    /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$G" train "$tr" -o "$OUT/gbdt.model" --algo gbdt \
      --rounds "$ROUNDS" --set learning_rate=0.1 "${shape[@]}" --set max_bins=255 \
      --set base_score=0.5 --threads "$THREADS" >"$OUT/grove.txt"
    g_train=$(sed -n 's/.*train \([0-9.]*\) s;.*/\1/p' "$OUT/grove.txt")
    read -r g_total g_kb <"$OUT/time.txt"
    g_metric=$("$G" eval "$OUT/gbdt.model" "$te" --json | sed "s/.*\"$mname\":\([0-9.]*\).*/\1/")
    g_pred=$("$PB" "$OUT/gbdt.model" "$te" "$THREADS" 3 | awk '{print $1}')
    printf '%-8s %-13s %9.2f %9.2f %8.0f %9.5f %12.0f\n' "$ds" "$gname" "$g_train" "$g_total" "$((g_kb / 1024))" "$g_metric" "$g_pred"
    OMP_NUM_THREADS=$THREADS /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$PY" "$ROOT/bench/gbdt/peers.py" \
      "$peer" "$tr" "$te" "$ROUNDS" "$THREADS" >"$OUT/peer.txt"
    read -r p_load p_train p_metric p_pred <"$OUT/peer.txt"
    read -r p_total p_kb <"$OUT/time.txt"
    printf '%-8s %-13s %9.2f %9.2f %8.0f %9.5f %12.0f   (pandas load %.2f s)\n' "$ds" "$peer" "$p_train" "$p_total" "$((p_kb / 1024))" "$p_metric" "$p_pred" "$p_load"
    "$PY" -c "print('%-8s %-13s %8.2fx %8.2fx %7.2fx %+9.5f %11.2fx' % ('$ds', '$peer/$gname', $p_train / $g_train, $p_total / $g_total, $p_kb / $g_kb, $g_metric - $p_metric, $g_pred / $p_pred))"
  done
done
echo "(ratios: peer time or memory divided by grove's, so > 1 means grove is faster/smaller;"
echo " metric: grove minus peer; prediction: grove rows/s divided by the peer's)"
