#!/usr/bin/env bash
# Prediction, model save and model load, as a user runs them, against scikit-learn and XGBoost
# in the same run:
#   forest: 100 trees (defaults: unpruned, sqrt features, bootstrap) trained on N_TRAIN x 28
#           (bench/common/gen_binary.py, seed 1), predicting N_TEST rows (seed 2);
#           peer: scikit-learn RandomForestClassifier(n_estimators=100, n_jobs=THREADS)
#   gbdt:   ROUNDS rounds of depth-6 trees (eta 0.1, 256 bins) on the same rows;
#           peer: XGBoost hist (max_depth 6, eta 0.1, nthread THREADS)
# Columns per model:
#   predict rows/s  in memory: grove_model_predict over the test rows (bench/gbdt/predict_bench.c,
#                   best of 3) vs the peer's predict_proba / inplace_predict on a numpy array;
#                   "cpu" columns: rows per CPU second (user + system of the process, all
#                   threads; best of 3), which moves less than wall time on a loaded machine
#   predict whole   `grove predict --proba MODEL TEST -o FILE` (load model + CSV, predict, write
#                   CSV) vs a python process doing the same (joblib / xgb load, pandas.read_csv,
#                   predict_proba, numpy.savetxt with %.17g) -- wall seconds, best of 3
#   save, load      grove: seconds to write / read the model file (load: the whole `grove info`
#                   process; save: `grove convert MODEL COPY` less that); peers:
#                   joblib.dump / joblib.load (scikit-learn), save_model / load_model (XGBoost)
# Ratios are peer time / grove time (> 1: grove faster) and grove rows/s / peer rows/s.
# OLD=DIR (a Release build directory of another grove commit, with libgrove.a and grove, built
# without MPI) adds that build's in-memory rows/s (wall, cpu) and whole predict seconds, in the
# same run, as a second line "MODEL-old" (ratios against the same peer numbers).
#
#   bench/predict/run.sh                       # N_TRAIN=100000 N_TEST=200000 THREADS=2 ROUNDS=100
#   MODELS=forest bench/predict/run.sh         # or gbdt; EXT=.json (model file extension)
#   MODELS=gbdt THREADS=1 OLD=/tmp/old/build bench/predict/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out
PY=/usr/bin/python3
N_TRAIN=${N_TRAIN:-100000}
N_TEST=${N_TEST:-200000}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-100}
MODELS=${MODELS:-"forest gbdt"}
EXT=${EXT:-.json}
# its own build, without MPI (predict_bench links libgrove.a with gcc alone)
BUILD=${BUILD:-$ROOT/build-bench}
OLD=${OLD:-}
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGROVE_MPI=OFF >/dev/null
cmake --build "$BUILD" -j2 --target grove_cli grove_static >/dev/null
G=$BUILD/grove
PB=$OUT/predict_bench
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -I"$ROOT/include" "$ROOT/bench/gbdt/predict_bench.c" \
  "$BUILD/libgrove.a" -ljansson -lz -lm -lpthread -o "$PB"
if [[ -n $OLD ]]; then
  gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -I"$ROOT/include" "$ROOT/bench/gbdt/predict_bench.c" \
    "$OLD/libgrove.a" -ljansson -lz -lm -lpthread -o "$OUT/predict_bench_old"
fi

train=$OUT/bin${N_TRAIN}_train.csv; test=$OUT/bin${N_TEST}_test.csv
[[ -s $train ]] || "$PY" "$ROOT/bench/common/gen_binary.py" "$train" "$N_TRAIN" 1
[[ -s $test ]] || "$PY" "$ROOT/bench/common/gen_binary.py" "$test" "$N_TEST" 2

best3() { # best wall seconds of 3 runs of "$@" (output discarded)
  local best=
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    best=$(echo "$s $e ${best:-1e9}" | awk '{d=$2-$1; print (d<$3)?d:$3}')
  done
  echo "$best"
}

printf '%-10s %-11s %12s %12s %7s %12s %12s %7s %10s %10s %7s %8s %8s %8s %8s\n' model peer "grove_rows/s" "peer_rows/s" ratio \
  "grove_cpu" "peer_cpu" ratio "grove_whole" "peer_whole" ratio grove_save peer_save grove_load peer_load
for model in $MODELS; do
  gm=$OUT/pred_${model}_${N_TRAIN}$EXT
  pm=$OUT/pred_${model}_${N_TRAIN}.peer
  if [[ $model == forest ]]; then
    args=(--algo forest --rounds 100)
    peer=scikit-learn
  else
    args=(--algo gbdt --rounds "$ROUNDS" --set max_depth=6 --set learning_rate=0.1)
    peer=xgboost
  fi
  # grove: train (its summary reports "save S s": write and commit), then load with `grove info`
  "$G" train "${args[@]}" --threads "$THREADS" "$train" -o "$gm" 2>"$OUT/pred_train.log" >/dev/null
  g_load=$(best3 "$G" info "$gm")
  # save: `grove convert MODEL COPY` (load + save) less the load
  g_save=$(awk -v c="$(best3 "$G" convert "$gm" "$OUT/pred_copy$EXT")" -v l="$g_load" 'BEGIN {printf "%.2f", c - l}')
  read -r g_rows g_cpu < <("$PB" "$gm" "$test" "$THREADS" 3)
  g_whole=$(best3 "$G" predict --proba --threads "$THREADS" "$gm" "$test" -o "$OUT/pred_grove.csv")
  if [[ -n $OLD ]]; then
    read -r o_rows o_cpu < <("$OUT/predict_bench_old" "$gm" "$test" "$THREADS" 3)
    o_whole=$(best3 "$OLD/grove" predict --proba --threads "$THREADS" "$gm" "$test" -o "$OUT/pred_grove_old.csv")
    cmp -s "$OUT/pred_grove.csv" "$OUT/pred_grove_old.csv" || echo "warning: $model: old and new predictions differ" >&2
  fi
  # the peer: train + save + load + in-memory predict timings, then the whole predict process
  read -r p_rows p_cpu p_save p_load < <("$PY" - "$model" "$train" "$test" "$pm" "$THREADS" "$ROUNDS" <<'PY'
import sys, time
import numpy as np, pandas as pd
model, train, test, path, threads, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
tr = pd.read_csv(train); te = pd.read_csv(test)
Xtr, ytr = tr.iloc[:, 1:].to_numpy(np.float32), tr.iloc[:, 0].to_numpy()
Xte = te.iloc[:, 1:].to_numpy(np.float32)
if model == "forest":
    import joblib
    from sklearn.ensemble import RandomForestClassifier
    m = RandomForestClassifier(n_estimators=100, n_jobs=threads, random_state=1).fit(Xtr, ytr)
    t = time.time(); joblib.dump(m, path); save = time.time() - t
    t = time.time(); m = joblib.load(path); load = time.time() - t
    m.n_jobs = threads
    best = cpu = 1e9
    for _ in range(3):
        t = time.time(); c = time.process_time(); m.predict_proba(Xte)
        best = min(best, time.time() - t); cpu = min(cpu, time.process_time() - c)
else:
    import xgboost as xgb
    d = xgb.DMatrix(Xtr, label=ytr, nthread=threads)
    b = xgb.train({"max_depth": 6, "eta": 0.1, "tree_method": "hist", "nthread": threads,
                   "objective": "binary:logistic"}, d, rounds)
    t = time.time(); b.save_model(path + ".json"); save = time.time() - t
    t = time.time(); b = xgb.Booster(model_file=path + ".json"); load = time.time() - t
    b.set_param({"nthread": threads})
    # inplace_predict: Booster.predict on a DMatrix it has seen returns its cached prediction
    best = cpu = 1e9
    for _ in range(3):
        t = time.time(); c = time.process_time(); b.inplace_predict(Xte)
        best = min(best, time.time() - t); cpu = min(cpu, time.process_time() - c)
print(f"{len(Xte) / best:.0f} {len(Xte) / cpu:.0f} {save:.3f} {load:.3f}")
PY
)
  cat >"$OUT/pred_peer_whole.py" <<'PY'
import sys
import numpy as np, pandas as pd
model, path, test, out, threads = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
X = pd.read_csv(test).iloc[:, 1:].to_numpy(np.float32)
if model == "forest":
    import joblib
    m = joblib.load(path); m.n_jobs = threads
    p = m.predict_proba(X)
else:
    import xgboost as xgb
    b = xgb.Booster(model_file=path + ".json"); b.set_param({"nthread": threads})
    p1 = b.predict(xgb.DMatrix(X, nthread=threads)); p = np.column_stack([1 - p1, p1])
np.savetxt(out, p, fmt="%.17g", delimiter=",")
PY
  p_whole=$(best3 "$PY" "$OUT/pred_peer_whole.py" "$model" "$pm" "$test" "$OUT/pred_peer.csv" "$THREADS")
  awk -v m="$model" -v peer="$peer" -v gr="$g_rows" -v pr="$p_rows" -v gc="$g_cpu" -v pc="$p_cpu" \
      -v gw="$g_whole" -v pw="$p_whole" -v gs="$g_save" -v ps="$p_save" -v gl="$g_load" -v pl="$p_load" 'BEGIN {
    printf "%-10s %-11s %12.0f %12.0f %7.2f %12.0f %12.0f %7.2f %10.2f %10.2f %7.2f %8s %8.2f %8.2f %8.2f\n",
           m, peer, gr, pr, gr / pr, gc, pc, gc / pc, gw, pw, pw / gw, gs, ps, gl, pl }'
  if [[ -n $OLD ]]; then
    awk -v m="$model-old" -v peer="$peer" -v gr="$o_rows" -v pr="$p_rows" -v gc="$o_cpu" -v pc="$p_cpu" \
        -v gw="$o_whole" -v pw="$p_whole" 'BEGIN {
      printf "%-10s %-11s %12.0f %12.0f %7.2f %12.0f %12.0f %7.2f %10.2f %10.2f %7.2f\n",
             m, peer, gr, pr, gr / pr, gc, pc, gc / pc, gw, pw, pw / gw }'
  fi
done
echo "(rows/s: in memory, $THREADS threads, $N_TEST rows; whole: wall seconds of the predict process;"
echo " ratio: grove rows/s over the peer's, and the peer's whole time over grove's; save/load in seconds;"
echo " grove_load is the whole 'grove info' process)"
