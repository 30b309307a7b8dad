#!/usr/bin/env bash
# The benchmark matrix, in one command: grove against XGBoost, scikit-learn and
# ranger, run the way a user runs each tool -- one process trains from the CSV file and saves
# a model file, a second one loads it, predicts class probabilities for the test CSV and
# writes them to a CSV file -- on 2 threads, in the same run.
#
# Cells (workload x dataset; CELLS overrides, e.g. CELLS="gbdt-d6:1m forest:fashion"):
#   gbdt-d6   gradient boosting, depth 6 level by level, learning rate 0.1, 255 bins, lambda 1
#             (grove; XGBoost hist; LightGBM if found)                   on 1m, 100k, fashion
#   gbdt-63L  63 leaves best first, at least 20 rows per leaf (grove; XGBoost lossguide;
#             scikit-learn HistGradientBoosting; LightGBM if found)      on 1m, 100k, fashion
#   forest    random forest, unpruned trees, sqrt(F) features per node (grove; scikit-learn;
#             ranger)                                                    on 100k, fashion
#   bagging   bagged unpruned trees (grove --base tree; scikit-learn BaggingClassifier)  100k
#   adaboost  AdaBoost (SAMME) with stumps (grove; scikit-learn)        on 100k
# Datasets: 1m = 1,000,000 x 28 train rows of bench/common/gen_binary.py (seed 1) with
# 200,000 test rows (seed 2); 100k = its first 100,000 rows with 20,000 test rows; fashion =
# fashion-MNIST 60,000 x 784, 10 classes, 10,000 test rows (FASHION_DIR, default /work/data,
# else fetched by ../shared/data/get-datasets.sh).
# Sizes: gbdt ROUNDS (100; FASHION_ROUNDS on fashion, 20: XGBoost needs ~7 s a round there),
# forest TREES (100), bagging MEMBERS (50), adaboost ADA_ROUNDS (200).
# SMALL=1: a look in a few minutes -- 50,000 / 10,000 rows instead of 1m / 100k, the 10,000-row
# fashion-MNIST subset, 10 rounds, 20 trees, 10 members, 50 AdaBoost rounds.
#
# Columns: train_s = the fit as each tool reports it (grove: bin + grow, from its CLI; peers:
# fit, incl. XGBoost's DMatrix); whole_s = wall time of the train process plus the predict
# process (reading CSV, training, saving; loading, predicting, writing the CSV); cpu_s = their
# user + system CPU time (steadier than wall time on a shared machine); pred_rows/s =
# test rows / wall time of the predict process; peak_MB = the larger maximum RSS of the two
# processes (/usr/bin/time); quality = test AUC (two classes) or accuracy (fashion), computed
# by score.py from each tool's CSV; load = the 1-minute load average after the tool ran (other
# work on the machine inflates wall times); train_cpu_s = user + system CPU time of the train
# process alone (reading the CSV, training, saving: the fair train figure on a loaded machine).  Ratio rows: peer / grove for times and memory (> 1: grove
# faster or smaller), grove / peer for prediction rows/s, grove - peer for quality.
# Results go to bench/out/matrix/results.tsv and a markdown table, matrix.md.
#
#   bench/matrix/run.sh                       # the full matrix (about 30 minutes on 2 cores)
#   SMALL=1 bench/matrix/run.sh               # a few minutes
#   PEERS=none GROVE=/path/to/old/grove bench/matrix/run.sh   # grove alone, another binary
#   GROVE_BEFORE=/path/to/old/grove bench/matrix/run.sh  # adds a grove-before row per cell (its
#                                             # ratios: before / now, > 1 = faster now; BEFORE_LABEL
#                                             # names it in the header, e.g. a commit;
#                                             # GROVE_LABEL names GROVE, default: HEAD)
#   GVB=0 bench/matrix/run.sh                 # without the grove-gvb rows (grove again, the model
#                                             # file in the binary encoding: model.gvb)
#   QUANT=0 bench/matrix/run.sh               # without the grove-q4 rows of the gbdt cells (grove
#                                             # again with quantized_bits=QUANT, default 4: Shi et
#                                             # al.'s quantized gradients, integer histograms)
#   SHARED=1 bench/matrix/run.sh              # OMP_WAIT_POLICY=passive (a machine shared with other work)
#   PEERS="xgboost" CELLS="gbdt-d6:1m" bench/matrix/run.sh
#   MATRIX_OUT=bench/out/run2 bench/matrix/run.sh  # results elsewhere (two runs side by side)
#   REPS=3 CELLS="gbdt-d6:1m" bench/matrix/run.sh   # each cell's tools REPS times, in turn (grove,
#                                             # peers, grove, peers, ...): the table shows each
#                                             # column's median, and each target's ratio per round
#                                             # (grove and peer of the same round), median and range
#   LIGHTGBM=/path/to/lightgbm bench/matrix/run.sh    # adds LightGBM's CLI to the gbdt cells (optional:
#                                             # also found on PATH; without one the rows are left
#                                             # out; README.md says how to build it outside the repo)
set -euo pipefail
# SHARED=1: idle OpenMP threads sleep (on a machine shared with other work, spinning threads
# steal its cores); by default every tool runs with its OpenMP runtime's own policy, as a user's does
[[ ${SHARED:-0} == 1 ]] && export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$ROOT/bench/out/matrix           # data files, shared by every run
OUT=$(realpath -m "${MATRIX_OUT:-$DATA}")  # results, model, predictions of this run
PY=/usr/bin/python3
T=${THREADS:-2}
SMALL=${SMALL:-0}
REPS=${REPS:-1}
GVB=${GVB:-1}
QUANT=${QUANT:-4}
PEERS=${PEERS:-"xgboost sklearn ranger lightgbm"}
BUILD=${BUILD:-$ROOT/build}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
source "$ROOT/bench/matrix/cells.sh"
CELLS=${CELLS:-"gbdt-d6:1m gbdt-63L:1m gbdt-d6:fashion gbdt-63L:fashion forest:fashion forest:100k
                adaboost:100k bagging:100k gbdt-d6:100k gbdt-63L:100k"}
"$ROOT/scripts/deps.sh" --bench
mkdir -p "$OUT" "$DATA"
if [[ -z ${GROVE:-} ]]; then
  nice -n 5 cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  nice -n 5 cmake --build "$BUILD" -j"$T" --target grove_cli >/dev/null
  GROVE=$BUILD/grove
fi
HAVE_RANGER=0
if [[ $PEERS == *ranger* ]] && Rscript -e 'suppressMessages(library(ranger))' >/dev/null 2>&1; then
  HAVE_RANGER=1
fi

# LightGBM: an optional peer, only where its CLI is found (LIGHTGBM=/path, else on PATH)
LIGHTGBM=${LIGHTGBM:-$(command -v lightgbm || true)}
if [[ $PEERS == *lightgbm* && -n $LIGHTGBM && ! -x $LIGHTGBM ]]; then
  echo "LIGHTGBM=$LIGHTGBM is not an executable: the lightgbm rows are left out"; LIGHTGBM=
fi
export LIGHTGBM

matrix_data

# one tool on one cell: train process, predict process, score; appends a line to results.tsv
# run_tool NAME CELL TRAIN TEST N TRAIN-COMMAND... -- PREDICT-COMMAND...
run_tool() {
  local name=$1 cell=$2 tr=$3 te=$4 n_test
  shift 4
  local train_cmd=() pred_cmd=()
  while [[ $1 != -- ]]; do train_cmd+=("$1"); shift; done
  shift
  pred_cmd=("$@")
  if ! /usr/bin/time -f "%e %M %U %S" -o "$OUT/time_train.txt" "${train_cmd[@]}" >"$OUT/train_out.txt" 2>"$OUT/train_err.txt"; then
    echo "$cell $name: training failed:"; tail -n 5 "$OUT/train_err.txt"; return 0
  fi
  local fit
  if [[ $name == grove* ]]; then fit=$(sed -n 's/.*train \([0-9.]*\) s[;,].*/\1/p' "$OUT/train_out.txt")
  else fit=$(tail -n 1 "$OUT/train_out.txt"); fi
  read -r t_train kb_train u_train s_train <"$OUT/time_train.txt"
  if ! /usr/bin/time -f "%e %M %U %S" -o "$OUT/time_pred.txt" "${pred_cmd[@]}" >"$OUT/pred_out.txt" 2>"$OUT/pred_err.txt"; then
    echo "$cell $name: prediction failed:"; tail -n 5 "$OUT/pred_err.txt"; return 0
  fi
  read -r t_pred kb_pred u_pred s_pred <"$OUT/time_pred.txt"
  n_test=$(($(wc -l <"$OUT/pred.csv") - 1))
  local q; q=$("$PY" "$ROOT/bench/matrix/score.py" "$te" "$OUT/pred.csv")
  local kb=$((kb_train > kb_pred ? kb_train : kb_pred))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cell" "$name" "$fit" \
    "$("$PY" -c "print('%.2f' % ($t_train + $t_pred))")" \
    "$("$PY" -c "print('%.2f' % ($u_train + $s_train + $u_pred + $s_pred))")" \
    "$("$PY" -c "print('%.0f' % ($n_test / max($t_pred, 0.01)))")" "$((kb / 1024))" "$q" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$("$PY" -c "print('%.2f' % ($u_train + $s_train))")" "$rep" |
    tee -a "$OUT/results.tsv"
  rm -f "$OUT/model" "$OUT/model.ubj" "$OUT/model.gvb" "$OUT/pred.csv"
}

: >"$OUT/results.tsv"
printf '# %s, %s, %s threads; SMALL=%s%s; grove %s%s%s; load %s at the start\n' \
  "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores" "$T" "$SMALL" \
  "$([[ $REPS != 1 ]] && echo "; $REPS rounds a cell")" \
  "${GROVE_LABEL:-$(git -C "$ROOT" log -1 --format=%h)}" "${GROVE_BEFORE:+, grove-before ${BEFORE_LABEL:-$GROVE_BEFORE}}" \
  "$([[ $PEERS == *lightgbm* && -n $LIGHTGBM ]] && echo ", LightGBM CLI $LIGHTGBM")" \
  "$(cut -d' ' -f1 /proc/loadavg)" | tee "$OUT/header.txt"
printf 'cell\ttool\ttrain_s\twhole_s\tcpu_s\tpred_rows/s\tpeak_MB\tquality\tload\ttrain_cpu_s\tround\n'
for cell in $CELLS; do
  matrix_cell "$cell" || exit 1
  for rep in $(seq "$REPS"); do
    run_tool grove "$cell" "$tr" "$te" "$GROVE" train "$tr" -o "$OUT/model" "${g[@]}" --threads "$T" --seed 1 \
      -- "$GROVE" predict "$OUT/model" "$te" --proba -o "$OUT/pred.csv" --threads "$T"
    if [[ $GVB == 1 ]]; then  # the same, the model saved and loaded in the binary encoding
      run_tool grove-gvb "$cell" "$tr" "$te" "$GROVE" train "$tr" -o "$OUT/model.gvb" "${g[@]}" --threads "$T" --seed 1 \
        -- "$GROVE" predict "$OUT/model.gvb" "$te" --proba -o "$OUT/pred.csv" --threads "$T"
    fi
    if [[ $QUANT != 0 && $wl == gbdt-* ]]; then  # the same with quantized gradients
      run_tool "grove-q$QUANT" "$cell" "$tr" "$te" "$GROVE" train "$tr" -o "$OUT/model" "${g[@]}" \
        --set quantized_bits="$QUANT" --threads "$T" --seed 1 \
        -- "$GROVE" predict "$OUT/model" "$te" --proba -o "$OUT/pred.csv" --threads "$T"
    fi
    if [[ -n ${GROVE_BEFORE:-} ]]; then
      run_tool grove-before "$cell" "$tr" "$te" "$GROVE_BEFORE" train "$tr" -o "$OUT/model" "${g[@]}" \
        --threads "$T" --seed 1 -- "$GROVE_BEFORE" predict "$OUT/model" "$te" --proba -o "$OUT/pred.csv" --threads "$T"
    fi
    for p in $peers; do
      [[ " $PEERS " == *" $p "* ]] || continue
      if [[ $p == ranger ]]; then
        [[ $HAVE_RANGER == 1 ]] || continue
        run_tool ranger "$cell" "$tr" "$te" Rscript "$ROOT/bench/matrix/ranger.R" train "$tr" "$OUT/model" "$n" "$T" \
          -- Rscript "$ROOT/bench/matrix/ranger.R" predict "$OUT/model" "$te" "$OUT/pred.csv" "$T"
      elif [[ $p == lightgbm ]]; then
        [[ -n $LIGHTGBM ]] || continue
        run_tool lightgbm "$cell" "$tr" "$te" "$ROOT/bench/matrix/lightgbm.sh" train "$wl" "$tr" "$OUT/model" "$n" "$T" \
          -- "$ROOT/bench/matrix/lightgbm.sh" predict "$OUT/model" "$te" "$OUT/pred.csv" "$T"
      else
        m=$OUT/model; [[ $p == xgboost ]] && m=$OUT/model.ubj
        run_tool "$p" "$cell" "$tr" "$te" env OMP_NUM_THREADS="$T" "$PY" "$ROOT/bench/matrix/peer.py" train "$p" "$wl" "$tr" "$m" "$n" "$T" \
          -- env OMP_NUM_THREADS="$T" "$PY" "$ROOT/bench/matrix/peer.py" predict "$p" "$m" "$te" "$OUT/pred.csv" "$T"
      fi
    done
  done
done
"$PY" "$ROOT/bench/matrix/table.py" "$OUT/results.tsv" "$OUT/header.txt" | tee "$OUT/matrix.md"
