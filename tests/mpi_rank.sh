#!/usr/bin/env bash
# Data-parallel learning to rank (label mpi; docs/distributed.md): lambdarank and rank:pairwise
# under `mpirun -np N grove train` when every query lies whole on one rank -- one CSV file per
# rank ({rank} in the path) cut at query boundaries -- must write the same model file, byte
# for byte, for N = 1, 2, 3, 4, and that model must be the one-process model, byte for byte
# (both take the gradients on the exact-sum grid of docs/distributed.md); the training NDCG
# (train_metric) and early stopping on a validation file every rank reads stop at one
# process's round.  A query cut by the ranks (one file cut into byte ranges whose boundary
# falls inside a query, or {rank} files that split one) is refused on every rank with the
# query and the two ranks named, and no model is written.
source "$(dirname "$0")/lib_mpi.sh"

# 60 training and 30 validation queries of 7 to 19 rows, 5 features, grades 0-3 (column qid)
python3 - "$TMP" <<'PY'
import random, sys
def write(path, n_queries, seed):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        f.write("qid,x0,x1,x2,x3,x4,label\n")
        for q in range(n_queries):
            for _ in range(rnd.randint(7, 19)):
                x = [round(rnd.gauss(0, 1), 4) for _ in range(5)]
                s = x[0] + 0.7 * x[1] - 0.5 * x[2] * x[3] + 0.5 * rnd.gauss(0, 1)
                y = sum(s > c for c in (-0.3, 0.6, 1.4))
                f.write("%d,%s,%d\n" % (1000 + q, ",".join(map(str, x)), y))
write(sys.argv[1] + "/rank.csv", 60, 1)
write(sys.argv[1] + "/valid.csv", 30, 2)
PY
# rank.csv cut into N files of whole queries: file r holds queries [60 r / N, 60 (r + 1) / N)
split_queries() { # N
  awk -F, -v N=$1 -v dir="$TMP" 'NR == 1 { h = $0; for (r = 0; r < N; r++) print h > (dir "/q" N "." r ".csv"); next }
    $1 != last { q++; last = $1 } { r = int((q - 1) * N / 60); print > (dir "/q" N "." r ".csv") }' "$TMP/rank.csv"
}
for np in $RANKS; do split_queries $np; done

rank_case() { # NAME ARGS...
  local name=$1; shift
  expect_exit 0 "$GROVE" train "$TMP/rank.csv" -q -j 1 --group qid "$@" -o "$TMP/$name.plain" || return
  for np in $RANKS; do
    expect_exit 0 "${MPIRUN[@]}" -np $np "$GROVE" train "$TMP/q$np.{rank}.csv" -q -j 1 --group qid \
      "$@" -o "$TMP/$name.$np" || return
    cp "$TMP/err" "$TMP/$name.err.$np"
  done
  for np in $RANKS; do
    [[ $np == 1 ]] && continue
    checks=$((checks + 1))
    cmp -s "$TMP/$name.1" "$TMP/$name.$np" || fail "$name: $np ranks wrote another model than 1 rank"
  done
  checks=$((checks + 1))
  cmp -s "$TMP/$name.plain" "$TMP/$name.1" || fail "$name: one process wrote another model than 1 rank"
  "$GROVE" predict "$TMP/$name.plain" "$TMP/rank.csv" -q -o "$TMP/p.plain" 2>/dev/null
  "$GROVE" predict "$TMP/$name.1" "$TMP/rank.csv" -q -o "$TMP/p.1" 2>/dev/null
  checks=$((checks + 1))
  paste -d, "$TMP/p.plain" "$TMP/p.1" | awk -F, 'NR > 1 { d = $1 - $2; if (d < 0) d = -d; if (d > 1e-9) bad++ }
    END { exit bad > 0 }' || fail "$name: predictions of the one-process and 1-rank models differ"
}
rank_case lambdarank -a gbdt -r 15 --set objective=lambdarank --set max_depth=4 \
  --set lambdarank_truncation=5 --set train_metric=true
rank_case pairwise -a gbdt -r 15 --set objective=rank:pairwise --set subsample=0.8 \
  --set colsample_bynode=0.6
# early stopping on the validation NDCG (every rank reads valid.csv): one process's best round
rank_case stopped -a gbdt -r 80 --set objective=lambdarank --set learning_rate=0.8 \
  --set eval_metric=ndcg@3 --valid "$TMP/valid.csv" --set early_stopping_rounds=3
a=$(grep -o 'kept the best round [0-9]*' "$TMP/stopped.plain")
for np in $RANKS; do
  checks=$((checks + 1))
  b=$(grep -o 'kept the best round [0-9]*' "$TMP/stopped.$np")
  [[ -n $a && $a == "$b" ]] || fail "early stopping: one process '$a', $np ranks '$b'"
done
# --log: the training and validation NDCG of every round, the same bytes for every rank count
for np in $RANKS; do
  expect_exit 0 "${MPIRUN[@]}" -np $np "$GROVE" train "$TMP/q$np.{rank}.csv" -q -j 1 --group qid \
    -a gbdt -r 6 --set objective=lambdarank --valid "$TMP/valid.csv" --log "$TMP/log.$np" \
    -o "$TMP/logged.$np" || break
  checks=$((checks + 1))
  cmp -s "$TMP/log.${RANKS%% *}" "$TMP/log.$np" || fail "--log: $np ranks wrote another log"
done
expect_exit 0 "$GROVE" train "$TMP/rank.csv" -q -j 1 --group qid -a gbdt -r 6 \
  --set objective=lambdarank --valid "$TMP/valid.csv" --log "$TMP/log.plain" -o "$TMP/logged.plain"
checks=$((checks + 1))
python3 - "$TMP/log.plain" "$TMP/log.1" <<'PY' || fail "--log: the ranks' NDCG is not one process's"
import sys
a, b = (open(p).read().split("\n") for p in sys.argv[1:])
assert a[0] == b[0] and a[0].startswith("t,train_ndcg"), a[0]
for u, v in zip(a[1:], b[1:]):
    for p, q in zip(u.split(","), v.split(",")):
        assert abs(float(p or 0) - float(q or 0)) <= 1e-9, (u, v)
PY

# refused: rank.csv cut into 2 byte ranges (the cut falls inside query 1029), and {rank} files
# that put a query's last rows on the next rank
if expect_exit 2 "${MPIRUN[@]}" -np 2 "$GROVE" train "$TMP/rank.csv" --group qid -a gbdt -r 3 \
    --set objective=lambdarank -o "$TMP/cut.model"; then
  expect_in "$TMP/err" "objective lambdarank over MPI: query 1029 has rows on rank 0 and on rank 1; every query must lie whole on one rank"
  checks=$((checks + 1))
  [[ $(grep -c "over MPI" "$TMP/err") -eq 1 ]] || fail "the refusal is not said once"
fi
checks=$((checks + 1))
[[ ! -e "$TMP/cut.model" ]] || fail "a model was written with a query cut by the ranks"
head -n -2 "$TMP/q2.0.csv" > "$TMP/moved.0.csv"
{ head -1 "$TMP/q2.1.csv"; tail -n 2 "$TMP/q2.0.csv"; tail -n +2 "$TMP/q2.1.csv"; } > "$TMP/moved.1.csv"
if expect_exit 2 "${MPIRUN[@]}" -np 2 "$GROVE" train "$TMP/moved.{rank}.csv" --group qid -a gbdt \
    -r 3 --set objective=rank:pairwise -o "$TMP/cut.model"; then
  expect_in "$TMP/err" "objective rank:pairwise over MPI: query 1029 has rows on rank 0 and on rank 1"
fi
# rows without query ids: refused on every rank as in one process
expect_exit 2 "${MPIRUN[@]}" -np 2 "$GROVE" train "$TMP/q2.{rank}.csv" -a gbdt -r 3 \
  --set objective=lambdarank -o "$TMP/cut.model"
expect_in "$TMP/err" "needs query groups"
finish
