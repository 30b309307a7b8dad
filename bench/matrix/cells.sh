# The sizes, data sets and settings of the benchmark matrix, shared by run.sh and profile.sh
# (sourced; needs ROOT, DATA, PY, SMALL).  matrix_data makes the data files in DATA and sets
# FASHION_TRAIN/FASHION_TEST; matrix_cell WORKLOAD:DATA sets tr (train CSV), te (test CSV),
# n (rounds, trees or members), g (grove train's options) and peers.
if [[ $SMALL == 1 ]]; then
  ROUNDS=${ROUNDS:-10}; FASHION_ROUNDS=${FASHION_ROUNDS:-10}; TREES=${TREES:-20}
  MEMBERS=${MEMBERS:-10}; ADA_ROUNDS=${ADA_ROUNDS:-50}; N_BIG=50000; N_MID=10000
else
  ROUNDS=${ROUNDS:-100}; FASHION_ROUNDS=${FASHION_ROUNDS:-20}; TREES=${TREES:-100}
  MEMBERS=${MEMBERS:-50}; ADA_ROUNDS=${ADA_ROUNDS:-200}; N_BIG=1000000; N_MID=100000
fi

matrix_data() {
  # datasets: the 1m file and its first N_MID rows (the generator is deterministic per seed)
  gen() { [[ -s $1 ]] || "$PY" "$ROOT/bench/common/gen_binary.py" "$1" "$2" "$3"; }
  gen "$DATA/bin${N_BIG}_train.csv" "$N_BIG" 1
  gen "$DATA/bin$((N_BIG / 5))_test.csv" $((N_BIG / 5)) 2
  [[ -s $DATA/bin${N_MID}_train.csv ]] || head -n $((N_MID + 1)) "$DATA/bin${N_BIG}_train.csv" >"$DATA/bin${N_MID}_train.csv"
  [[ -s $DATA/bin$((N_MID / 5))_test.csv ]] || head -n $((N_MID / 5 + 1)) "$DATA/bin$((N_BIG / 5))_test.csv" >"$DATA/bin$((N_MID / 5))_test.csv"
  FASHION_DIR=${FASHION_DIR:-/work/data}
  if [[ ! -s $FASHION_DIR/fashion_mnist_train.csv.gz ]]; then
    FASHION_DIR=$ROOT/bench/out/datasets
    [[ -s $FASHION_DIR/fashion_mnist_train.csv.gz ]] || bash "$ROOT/../shared/data/get-datasets.sh" "$FASHION_DIR"
  fi
  if [[ $SMALL == 1 ]]; then
    if [[ ! -s $DATA/fashion10k_train.csv ]]; then
      if [[ -s $FASHION_DIR/fashion_mnist_train10k.csv ]]; then
        cp "$FASHION_DIR/fashion_mnist_train10k.csv" "$DATA/fashion10k_train.csv"
      else
        gzip -dc "$FASHION_DIR/fashion_mnist_train.csv.gz" | head -n 10001 >"$DATA/fashion10k_train.csv"
      fi
    fi
    FASHION_TRAIN=$DATA/fashion10k_train.csv
  else
    FASHION_TRAIN=$FASHION_DIR/fashion_mnist_train.csv.gz
  fi
  FASHION_TEST=$FASHION_DIR/fashion_mnist_test.csv.gz
}

matrix_cell() {
  wl=${1%%:*}; ds=${1##*:}
  case $ds in
    1m) tr=$DATA/bin${N_BIG}_train.csv; te=$DATA/bin$((N_BIG / 5))_test.csv; n=$ROUNDS ;;
    100k) tr=$DATA/bin${N_MID}_train.csv; te=$DATA/bin$((N_MID / 5))_test.csv; n=$ROUNDS ;;
    fashion) tr=$FASHION_TRAIN; te=$FASHION_TEST; n=$FASHION_ROUNDS ;;
    *) echo "unknown dataset $ds"; return 1 ;;
  esac
  case $wl in
    gbdt-d6) g=(--algo gbdt --rounds "$n" --set learning_rate=0.1 --set max_depth=6 --set max_bins=255)
             peers="xgboost lightgbm" ;;
    gbdt-63L) g=(--algo gbdt --rounds "$n" --set learning_rate=0.1 --set growth=bestfirst
                 --set max_leaves=63 --set max_depth=0 --set min_samples_leaf=20
                 --set min_child_weight=0.001 --set max_bins=255)
              peers="xgboost sklearn lightgbm" ;;
    forest) n=$TREES; g=(--algo forest --rounds "$n"); peers="sklearn ranger" ;;
    bagging) n=$MEMBERS; g=(--algo bagging --base tree --rounds "$n"); peers="sklearn" ;;
    adaboost) n=$ADA_ROUNDS; g=(--algo samme --rounds "$n"); peers="sklearn" ;;
    *) echo "unknown workload $wl"; return 1 ;;
  esac
}
