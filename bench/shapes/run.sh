#!/usr/bin/env bash
# The shape matrix: grove against XGBoost (hist depth 6; lossguide 63 leaves) and LightGBM's CLI
# (63 leaves) on generated data of many shapes -- widths, rows, classes, regression, sparse,
# missing values, categorical columns -- at 1 and 2 threads, each tool run the way a user runs it
# (one process reads the file, trains and saves a model; a second loads it and writes
# predictions), the tools of a cell in turn for REPS rounds.
#
# Cells are KIND:ROWS:COLS:TASK (gen.py): KIND dense | missing | cat | sparse; TASK bin | mc7 | reg.
# Workloads: d6 (depth 6, level by level; grove vs XGBoost hist), 63L (63 leaves best first,
# at least 20 rows a leaf; grove vs XGBoost lossguide and LightGBM) and rf (random forests of
# RF_TREES (100) trees, max_features sqrt, grove vs scikit-learn; classification cells of at most
# 100 columns).  Common settings: ROUNDS
# (100) rounds, learning rate 0.1, 255 bins, L2 1.
#
#   bench/shapes/run.sh                         # the whole matrix (hours on 2 cores)
#   SMALL=1 bench/shapes/run.sh                 # rows / 10, 20 rounds, 1 round a cell: a look
#   CELLS="dense:100000:100:bin" WORKLOADS=d6 THREADS=1 REPS=5 bench/shapes/run.sh
#   LIGHTGBM=/path/to/lightgbm bench/shapes/run.sh   # LightGBM's CLI (bench/matrix/README.md
#                                               # says how to build it outside the repository)
# Results: bench/out/shapes/results.tsv (one line a tool, cell, thread count and round) and
# shapes.md (table.py: the median ratio and its range over rounds, memory and quality beside).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(realpath -m "${SHAPES_OUT:-$ROOT/bench/out/shapes}")
DATA=$ROOT/bench/out/shapes-data
PY=/usr/bin/python3
SMALL=${SMALL:-0}
REPS=${REPS:-$([[ $SMALL == 1 ]] && echo 1 || echo 3)}
ROUNDS=${ROUNDS:-$([[ $SMALL == 1 ]] && echo 20 || echo 100)}
THREADS=${THREADS:-"1 2"}
WORKLOADS=${WORKLOADS:-"d6 63L rf"}
RF_TREES=${RF_TREES:-$([[ $SMALL == 1 ]] && echo 20 || echo 100)}
CELLS=${CELLS:-"dense:100000:10:bin dense:100000:50:bin dense:100000:100:bin dense:100000:300:bin
  dense:100000:1000:bin dense:1000000:10:bin dense:1000000:50:bin dense:1000000:100:bin
  dense:100000:50:mc7 dense:1000000:20:mc7 dense:100000:50:reg dense:1000000:20:reg
  sparse:100000:10000:bin missing:100000:50:bin cat:100000:40:bin"}
LIGHTGBM=${LIGHTGBM:-$(command -v lightgbm || true)}
export LIGHTGBM
"$ROOT/scripts/deps.sh" --bench
if [[ -z ${GROVE:-} ]]; then
  cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$ROOT/build" -j2 --target grove_cli >/dev/null
  GROVE=$ROOT/build/grove
fi
mkdir -p "$OUT" "$DATA"

# run_tool NAME TRAIN-COMMAND... -- PREDICT-COMMAND...: one line of results.tsv
run_tool() {
  local name=$1; shift
  local train_cmd=() pred_cmd=()
  while [[ $1 != -- ]]; do train_cmd+=("$1"); shift; done
  shift; pred_cmd=("$@")
  if ! /usr/bin/time -f "%e %M" -o "$OUT/t1" "${train_cmd[@]}" >"$OUT/train_out" 2>"$OUT/train_err"; then
    echo "$cell $wl $t $name: training failed:"; tail -n 5 "$OUT/train_err"; return 0
  fi
  local fit
  if [[ $name == grove ]]; then fit=$(sed -n 's/.*train \([0-9.]*\) s[;,].*/\1/p' "$OUT/train_out")
  else fit=$(tail -n 1 "$OUT/train_out"); fi
  if ! /usr/bin/time -f "%e %M" -o "$OUT/t2" "${pred_cmd[@]}" >/dev/null 2>"$OUT/pred_err"; then
    echo "$cell $wl $t $name: prediction failed:"; tail -n 5 "$OUT/pred_err"; return 0
  fi
  read -r w1 m1 <"$OUT/t1"; read -r w2 m2 <"$OUT/t2"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%d\t%s\t%s\n' "$cell" "$wl" "$t" "$name" "$rep" "$fit" \
    "$(echo "$w1 + $w2" | bc)" $(((m1 > m2 ? m1 : m2) / 1024)) \
    "$("$PY" "$ROOT/bench/shapes/score.py" "$task" "$te" "$OUT/pred.csv")" \
    "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/results.tsv"
  rm -f "$OUT/model" "$OUT/model.json" "$OUT/model.pkl" "$OUT/pred.csv"
}

printf '# %s, %s, %s cores; grove %s; ROUNDS=%s REPS=%s SMALL=%s%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)" "$(nproc)" "$(git -C "$ROOT" log -1 --format=%h)" \
  "$ROUNDS" "$REPS" "$SMALL" "${LIGHTGBM:+; LightGBM CLI $LIGHTGBM}" >"$OUT/header.txt"
: >"$OUT/results.tsv"
for cell in $CELLS; do
  IFS=: read -r kind rows cols task <<<"$cell"
  [[ $SMALL == 1 ]] && rows=$((rows / 10))
  ext=csv; [[ $kind == sparse ]] && ext=svm
  tr=$DATA/$kind-$rows-$cols-$task-train.$ext; te=$DATA/$kind-$rows-$cols-$task-test.$ext
  [[ -s $tr ]] || "$PY" "$ROOT/bench/shapes/gen.py" "$kind" "$rows" "$cols" "$task" 1 "$tr"
  [[ -s $te ]] || "$PY" "$ROOT/bench/shapes/gen.py" "$kind" $((rows / 5)) "$cols" "$task" 2 "$te"
  cats=; gcat=(); lcat=
  if [[ $kind == cat ]]; then  # the categorical columns, as gen.py writes them (integer codes)
    cats=$("$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/shapes'); import gen
s = gen.Signal('cat', $cols, '$task'); print(','.join('%d:%d' % (j, s.levels[j]) for j in s.cat))")
    lcat=$(echo "$cats" | sed 's/:[0-9]*//g')
    gcat=(--set categorical="$(echo "$lcat" | sed 's/[0-9][0-9]*/f&/g')"); lcat="categorical_feature=$lcat"
  fi
  gtask=(); [[ $task == reg ]] && gtask=(--set objective=squared)
  proba=(--proba); [[ $task == reg ]] && proba=()
  for wl in $WORKLOADS; do
    if [[ $wl == rf ]]; then
      [[ $task == reg || $cols -gt 100 ]] && continue
      for t in $THREADS; do
        for rep in $(seq "$REPS"); do
          run_tool grove "$GROVE" train "$tr" -o "$OUT/model" --algo forest --rounds "$RF_TREES" \
            --set max_features=sqrt "${gcat[@]}" --threads "$t" --seed 1 \
            -- "$GROVE" predict "$OUT/model" "$te" --proba -o "$OUT/pred.csv" --threads "$t"
          run_tool sklearn "$PY" "$ROOT/bench/shapes/peer.py" train rf "$task" "$tr" "$OUT/model" "$RF_TREES" "$t" \
            -- "$PY" "$ROOT/bench/shapes/peer.py" predict "$task" "$OUT/model" "$te" "$OUT/pred.csv" "$t"
        done
      done
      continue
    fi
    if [[ $wl == d6 ]]; then g=(--set max_depth=6)
    else g=(--set growth=bestfirst --set max_leaves=63 --set max_depth=0 --set min_samples_leaf=20
            --set min_child_weight=0.001); fi
    for t in $THREADS; do
      for rep in $(seq "$REPS"); do
        run_tool grove "$GROVE" train "$tr" -o "$OUT/model" --algo gbdt --rounds "$ROUNDS" \
          --set learning_rate=0.1 --set max_bins=255 "${g[@]}" "${gcat[@]}" "${gtask[@]}" --threads "$t" --seed 1 \
          -- "$GROVE" predict "$OUT/model" "$te" "${proba[@]}" -o "$OUT/pred.csv" --threads "$t"
        run_tool xgboost "$PY" "$ROOT/bench/shapes/peer.py" train "$wl" "$task" "$tr" "$OUT/model" "$ROUNDS" "$t" "$cats" \
          -- "$PY" "$ROOT/bench/shapes/peer.py" predict "$task" "$OUT/model" "$te" "$OUT/pred.csv" "$t" "$cats"
        if [[ $wl == 63L && -n $LIGHTGBM ]]; then
          LGB_TASK=$task LGB_PARAMS=$lcat run_tool lightgbm "$ROOT/bench/matrix/lightgbm.sh" train gbdt-63L "$tr" "$OUT/model" "$ROUNDS" "$t" \
            -- "$ROOT/bench/matrix/lightgbm.sh" predict "$OUT/model" "$te" "$OUT/pred.csv" "$t"
        fi
      done
    done
  done
done
"$PY" "$ROOT/bench/shapes/table.py" "$OUT/results.tsv" "$OUT/header.txt" | tee "$OUT/shapes.md"
