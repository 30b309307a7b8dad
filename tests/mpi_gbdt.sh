#!/usr/bin/env bash
# Data-parallel gbdt (label mpi; docs/distributed.md): `mpirun -np N grove train` must write the
# same model file, byte for byte, for N = 1, 2, 3 and 4 ranks, whether the ranks cut one CSV file
# (byte ranges at line starts) or read one file each ({rank} in the path); and that model must
# be the one-process model, byte for byte (one process rounds g and h to the same grid and takes
# the same exact sums).  Cases: logistic with validation-file early stopping,
# squared with per-tree and per-node column sampling, softmax over 10 classes, and a bin sample
# smaller than the data (the sampled rows gathered from their ranks), subsample < 1, the
# absolute, huber, quantile, poisson and exponential objectives (exact distributed medians and
# quantiles, line search),
# train_metric (logloss-type sums and the AUC) with early stopping at one process's best round,
# sample weights with missing values (binary, 10 classes, regression),
# and --log's file (the same bytes for 1-4 ranks); LIBSVM files cut into byte ranges or read
# as {rank} files (features widened to the whole file's, zero-based when any part is, sparse
# parts made dense), and a LIBSVM part that fails.  Then a shard that fails
# to parse: every rank exits 2, the message names the rank, the file and its own line, and no
# model is written.  GROVE_MPIRUN: the launcher with its options (from ctest).
source "$(dirname "$0")/lib_mpi.sh"
D=$SRC/examples/data

run_case logistic "$D/breast_cancer_train.csv" -a gbdt -r 40 --valid "$D/breast_cancer_test.csv" \
  --set early_stopping_rounds=5 --set learning_rate=0.5
run_case squared "$D/boston_housing_train.csv" -a gbdt -r 15 --set colsample_bytree=0.7 \
  --set colsample_bynode=0.5 --set max_depth=4
run_case softmax "$D/digits_train.csv" -a gbdt -r 4 --set max_depth=3
# subsample: each row's draw keyed by its global row number (stream GV_STREAM_GBDT_ROWS)
run_case subsample "$D/breast_cancer_train.csv" -a gbdt -r 20 --set subsample=0.6 \
  --set learning_rate=0.5 --set colsample_bytree=0.8
# objectives whose leaves or base are medians (absolute: each leaf's weighted median of the
# residuals, huber: the label median) or a line search (exponential): exact over the ranks
run_case absolute "$D/boston_housing_train.csv" -a gbdt -r 15 --set objective=absolute \
  --set subsample=0.7 --valid "$D/boston_housing_test.csv"
run_case huber "$D/boston_housing_train.csv" -a gbdt -r 15 --set objective=huber --set max_depth=4
run_case exponential "$D/breast_cancer_train.csv" -a gbdt -r 15 --set objective=exponential \
  --set colsample_bynode=0.5
# quantile: leaves refit to weighted alpha-quantiles over all ranks' rows, the base the labels';
# poisson: a log link, its log-likelihood summed exactly (train_metric)
run_case quantile "$D/boston_housing_train.csv" -a gbdt -r 12 --set objective=quantile \
  --set quantile_alpha=0.8 --set subsample=0.7
run_case poisson "$D/boston_housing_train.csv" -a gbdt -r 12 --set objective=poisson \
  --set train_metric=true --set max_depth=4
# monotone and interaction constraints: the nodes' bounds from the global totals
run_case constraints "$D/boston_housing_train.csv" -a gbdt -r 12 --set max_depth=4 \
  --set monotone_constraints=rm:1,lstat:-1,crim:-1 --set 'interaction_constraints=[[rm,lstat,crim],[nox,dis,age]]'
run_case constraints_leafwise "$D/breast_cancer_train.csv" -a gbdt -r 12 --set growth=bestfirst \
  --set max_leaves=10 --set monotone_constraints=0:1,1:-1
# the training metric (train_metric, --log): sums exact over the ranks, the AUC over all rows
run_case train_auc "$D/breast_cancer_train.csv" -a gbdt -r 30 --set train_metric=true \
  --set eval_metric=auc --valid "$D/breast_cancer_test.csv" --set early_stopping_rounds=3 \
  --set learning_rate=0.5
run_case train_mlogloss "$D/iris_train.csv" -a gbdt -r 20 --set train_metric=true \
  --valid "$D/iris_test.csv" --set early_stopping_rounds=2
for np in $RANKS; do
  expect_exit 0 "${MPIRUN[@]}" -np $np "$GROVE" train "$D/boston_housing_train.csv" -q -j 1 -a gbdt \
    -r 10 --set objective=huber --valid "$D/boston_housing_test.csv" --log "$TMP/log.$np" \
    -o "$TMP/logged.$np" || break
  checks=$((checks + 1))
  cmp -s "$TMP/log.1" "$TMP/log.$np" || fail "--log: $np ranks wrote another log than 1 rank"
done
checks=$((checks + 1))
[[ $(wc -l < "$TMP/log.1") -eq 11 && $(head -1 "$TMP/log.1") == t,train_mae,valid_mae ]] ||
  fail "--log: not 10 rounds of train_mae and valid_mae: $(head -2 "$TMP/log.1")"
# early stopping on the validation file every rank reads: the same best round as one process
for name in logistic train_auc train_mlogloss; do
  checks=$((checks + 1))
  a=$(grep -o 'kept the best round [0-9]*' "$TMP/$name.plain") b=$(grep -o 'kept the best round [0-9]*' "$TMP/$name.1")
  [[ -n $a && $a == "$b" ]] || fail "$name: early stopping: one process '$a', ranks '$b'"
done
# sample weights (not binary fractions) and missing values
# (absolute: weighted medians of the leaves' residuals)
with_missing_and_weights "$D/breast_cancer_train.csv" "$TMP/bc_wm.csv"
with_missing_and_weights "$D/iris_train.csv" "$TMP/iris_wm.csv"
with_missing_and_weights "$D/boston_housing_train.csv" "$TMP/boston_wm.csv"
run_case weighted_missing "$TMP/bc_wm.csv" -a gbdt -r 8 --weight w
run_case weighted_missing_softmax "$TMP/iris_wm.csv" -a gbdt -r 8 --weight w
run_case weighted_missing_absolute "$TMP/boston_wm.csv" -a gbdt -r 8 --weight w \
  --set objective=absolute --set subsample=0.8
run_case sampled "$D/twonorm_test.csv" -a gbdt -r 10 --set bin_sample=700 --set max_bins=32

# {rank} files: breast_cancer_train.csv cut by hand into 3 files of consecutive rows is the
# byte-range cut's model
{ head -1 "$D/breast_cancer_train.csv" > "$TMP/h"; tail -n +2 "$D/breast_cancer_train.csv" > "$TMP/body"; }
split -n l/3 -d -a 1 "$TMP/body" "$TMP/part"
for r in 0 1 2; do cat "$TMP/h" "$TMP/part$r" > "$TMP/shard$r.csv"; done
expect_exit 0 "${MPIRUN[@]}" -np 3 "$GROVE" train "$TMP/shard{rank}.csv" -q -j 1 -a gbdt -r 40 \
  --valid "$D/breast_cancer_test.csv" --set early_stopping_rounds=5 --set learning_rate=0.5 \
  -o "$TMP/files.3"
checks=$((checks + 1))
cmp -s "$TMP/logistic.1" "$TMP/files.3" || fail "{rank} files wrote another model"

# LIBSVM, one file cut into byte ranges at line starts: agaricus (one-hot, 126 columns) with
# index 500 on line 3000 and index 0 on line 6000 (one process: zero-based, 501 columns, so few
# cells are set that only the 119 columns holding a value are features, compact; the parts
# see other columns, other widths, and only the last one index 0), breast cancer with index 40
# set only on line 1 (the other parts end at index 30: every part gets f1..f40) and with a
# zero-based row near the end (only the last part sees index 0: f0..f40)
awk 'NR == 3000 { $0 = $0 " 500:1" } NR == 6000 { $1 = $1 " 0:1" } 1' "$D/agaricus.txt.train" > "$TMP/sparse.libsvm"
run_case svm_sparse "$TMP/sparse.libsvm" -a gbdt -r 5 --set max_depth=4
checks=$((checks + 1))
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["schema"]
ids = [int(t) for t in str(s.get("feature_ids", "")).split()]
ok = ids and int(s["n_columns"]) == 501 and [f["name"] for f in s["features"]] == ["f%d" % i for i in ids]
sys.exit(0 if ok else 1)' "$TMP/svm_sparse.3" ||
  fail "svm_sparse: the ranks'' schema has no compact zero-based features"
awk 'NR == 1 { $0 = $0 " 40:2.5" } 1' "$D/breast_cancer.libsvm" > "$TMP/wide.libsvm"
run_case svm_wide "$TMP/wide.libsvm" -a gbdt -r 10
awk 'NR == 1 { $0 = $0 " 40:2.5" } NR == 560 { $1 = $1 " 0:1" } 1' "$D/breast_cancer.libsvm" > "$TMP/zero.libsvm"
run_case svm_zero "$TMP/zero.libsvm" -a gbdt -r 10
# {rank} LIBSVM files: the byte-range cut's model
split -n l/3 -d -a 1 "$TMP/wide.libsvm" "$TMP/svm"
for r in 0 1 2; do mv "$TMP/svm$r" "$TMP/svm$r.libsvm"; done
expect_exit 0 "${MPIRUN[@]}" -np 3 "$GROVE" train "$TMP/svm{rank}.libsvm" -q -j 1 -a gbdt -r 10 \
  -o "$TMP/svmfiles.3"
checks=$((checks + 1))
cmp -s "$TMP/svm_wide.1" "$TMP/svmfiles.3" || fail "{rank} LIBSVM files wrote another model"
# a bad token in the last part: the file's own line and token
awk 'NR == 500 { $3 = "2:x" } 1' "$D/breast_cancer.libsvm" > "$TMP/bad.libsvm"
if expect_exit 2 "${MPIRUN[@]}" -np 3 "$GROVE" train "$TMP/bad.libsvm" -a gbdt -r 5 -o "$TMP/bad.model"; then
  expect_in "$TMP/err" "grove: rank 2: $TMP/bad.libsvm:500:3:"
fi
checks=$((checks + 1))
[[ ! -e "$TMP/bad.model" ]] || fail "a model was written after a failed LIBSVM shard"

# a row with one field too many in the last rank's share: line 390 of the file, the line a
# single process names too
awk 'NR == 390 { $0 = $0 ",7" } 1' "$D/breast_cancer_train.csv" > "$TMP/bad.csv"
if expect_exit 2 "${MPIRUN[@]}" -np 3 "$GROVE" train "$TMP/bad.csv" -a gbdt -r 5 -o "$TMP/bad.model"; then
  expect_in "$TMP/err" "grove: rank 2: $TMP/bad.csv:390:32: expected 31 fields, found 32"
  checks=$((checks + 1))
  [[ $(grep -c "bad.csv:390:" "$TMP/err") -eq 1 ]] || fail "the error is not said once"
fi
checks=$((checks + 1))
[[ ! -e "$TMP/bad.model" ]] || fail "a model was written after a failed shard"
expect_exit 2 "$GROVE" train "$TMP/bad.csv" -a gbdt -r 5 -o "$TMP/bad.model"
expect_in "$TMP/err" "grove: $TMP/bad.csv:390:32: expected 31 fields, found 32"
# a word in a numeric column of rank 1's share: one process reads the column as categorical;
# ranks share rank 0's schema (numeric), so rank 1 fails naming the line
awk -F, 'NR == 200 { $3 = "abc" } 1' OFS=, "$D/breast_cancer_train.csv" > "$TMP/word.csv"
if expect_exit 2 "${MPIRUN[@]}" -np 3 "$GROVE" train "$TMP/word.csv" -a gbdt -r 5 -o "$TMP/bad.model"; then
  expect_in "$TMP/err" "grove: rank 1: $TMP/word.csv:200:"
fi
checks=$((checks + 1))
[[ ! -e "$TMP/bad.model" ]] || fail "a model was written after a failed shard"
# quantized gradients are a one-process path: refused by name under mpirun, not ignored
expect_exit 1 "${MPIRUN[@]}" -np 2 "$GROVE" train "$D/breast_cancer_train.csv" -a gbdt -r 3 \
  --set quantized_bits=4 -o "$TMP/q.model"
expect_in "$TMP/err" "quantized_bits: not supported in data-parallel training"
finish
