#!/usr/bin/env bash
# AdaBoost with decision stumps, 200 rounds: grove against scikit-learn's
# AdaBoostClassifier(algorithm="SAMME", DecisionTreeClassifier(max_depth=1)) on the same files:
#   binary: 100,000 x 28 rows from bench/common/gen_binary.py (seed 1; test: 20,000 rows, seed 2)
#   fashion-MNIST: 60,000 x 784, 10 classes (grove: samme), test 10,000 rows
# grove runs with 2 threads (scikit-learn's AdaBoost has no n_jobs).  Prints training time,
# whole-process time (load + train + save), peak memory, test accuracy and grove/peer ratios;
# then CPU seconds (user + sys), the comparable numbers on a loaded machine: grove_train alone
# (grove_train_cpu.py, 1 and 2 threads) against scikit-learn's fit, and whole processes.
#   OLD=/path/to/an/older/build  also times that build's grove and libgrove.so (before/after)
#
#   bench/adaboost/run.sh                  # everything (scikit-learn on fashion-MNIST: ~10 min)
#   ROUNDS=50 DATASETS=binary bench/adaboost/run.sh
#   FASHION_DIR=/path/with/fashion_mnist_train.csv.gz  (default: bench/out/datasets, made by
#   ../shared/data/get-datasets.sh when missing)
set -euo pipefail
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} # idle OpenMP threads sleep (shared cores)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out
PY=/usr/bin/python3
ROUNDS=${ROUNDS:-200}
DATASETS=${DATASETS:-"binary fashion"}
"$ROOT/scripts/deps.sh" --bench
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$ROOT/build" -j"$(nproc)" >/dev/null
G=$ROOT/build/grove

if [[ ! -s $OUT/bin100k_train.csv ]]; then
  "$PY" "$ROOT/bench/common/gen_binary.py" "$OUT/bin100k_train.csv" 100000 1
  "$PY" "$ROOT/bench/common/gen_binary.py" "$OUT/bin100k_test.csv" 20000 2
fi
FASHION_DIR=${FASHION_DIR:-$OUT/datasets}
if [[ $DATASETS == *fashion* && ! -s $FASHION_DIR/fashion_mnist_train.csv.gz ]]; then
  bash "$ROOT/../shared/data/get-datasets.sh" "$FASHION_DIR"
fi

printf '%-9s %-13s %9s %9s %9s %8s\n' dataset tool train_s total_s peak_MB accuracy
for ds in $DATASETS; do
  if [[ $ds == binary ]]; then
    tr=$OUT/bin100k_train.csv; te=$OUT/bin100k_test.csv; algo=adaboost
  else
    tr=$FASHION_DIR/fashion_mnist_train.csv.gz; te=$FASHION_DIR/fashion_mnist_test.csv.gz; algo=samme
  fi
  /usr/bin/time -f "%e %M %U %S" -o "$OUT/time.txt" "$G" train "$tr" -o "$OUT/ada.model" --algo $algo \
    --base stump --rounds "$ROUNDS" --threads 2 >"$OUT/grove.txt"
  g_train=$(sed -n 's/.*train \([0-9.]*\) s;.*/\1/p' "$OUT/grove.txt")
  read -r g_total g_kb g_u g_s <"$OUT/time.txt"
  g_acc=$("$G" eval "$OUT/ada.model" "$te" --json | sed 's/.*"accuracy":\([0-9.]*\).*/\1/')
  /usr/bin/time -f "%e %M %U %S" -o "$OUT/time.txt" "$PY" "$ROOT/bench/adaboost/sk_adaboost.py" "$tr" "$te" "$ROUNDS" >"$OUT/sk.txt"
  read -r s_load s_train s_acc s_cpu <"$OUT/sk.txt"
  read -r s_total s_kb s_u s_s <"$OUT/time.txt"
  printf '%-9s %-13s %9.2f %9.2f %9.0f %8.4f\n' "$ds" grove "$g_train" "$g_total" "$((g_kb / 1024))" "$g_acc"
  printf '%-9s %-13s %9.2f %9.2f %9.0f %8.4f   (training CPU time %.2f s)\n' "$ds" scikit-learn "$s_train" "$s_total" "$((s_kb / 1024))" "$s_acc" "$s_cpu"
  "$PY" -c "print('%-9s %-13s %8.1fx %8.1fx %8.2fx %+8.4f' % ('$ds', 'peer / grove', $s_train / $g_train, $s_total / $g_total, $s_kb / $g_kb, $g_acc - $s_acc))"
  # CPU seconds: grove_train alone at 1 and 2 threads, the whole train process (2 threads)
  cpu_rows() { # label libdir grove-binary
    local t1 t2 w u s
    read -r t1 w < <(GROVE_LIB=$2/libgrove.so "$PY" "$ROOT/bench/adaboost/grove_train_cpu.py" "$tr" $algo "$ROUNDS" 1)
    read -r t2 w < <(GROVE_LIB=$2/libgrove.so "$PY" "$ROOT/bench/adaboost/grove_train_cpu.py" "$tr" $algo "$ROUNDS" 2)
    /usr/bin/time -f "%U %S" -o "$OUT/time.txt" "$3" train "$tr" -o "$OUT/ada_cpu.model" --algo $algo \
      --base stump --rounds "$ROUNDS" --threads 2 -q
    read -r u s <"$OUT/time.txt"
    "$PY" -c "print('%-9s %-13s %9.3f %9.3f %9.2f   fit/train1 %6.1fx  whole %6.1fx' % ('$ds', '$1', $t1, $t2, $u + $s, $s_cpu / $t1, ($s_u + $s_s) / ($u + $s)))"
  }
  printf '%-9s %-13s %9s %9s %9s   (CPU s; ratios: scikit-learn / grove)\n' dataset tool train1_cpu train2_cpu whole_cpu
  "$PY" -c "print('%-9s %-13s %9.3f %9s %9.2f' % ('$ds', 'scikit-learn', $s_cpu, '-', $s_u + $s_s))"
  cpu_rows grove "$ROOT/build" "$G"
  [[ -n ${OLD:-} ]] && cpu_rows grove-OLD "$OLD" "$OLD/grove"
done
echo "(ratios: scikit-learn time or memory divided by grove's; accuracy: grove minus scikit-learn)"
