#!/usr/bin/env bash
# Boosting through the CLI: --algo/--base/--set base.*, --log columns and bounds, --valid and
# early stopping, predict --rounds (staged), grove margins, every algorithm runs and evaluates,
# and their error paths exit with the documented codes.
source "$(dirname "$0")/lib_cli.sh"
tw=$DATA/twonorm_train.csv; twt=$DATA/twonorm_test.csv

expect_exit 0 "$GROVE" train "$tw" -o "$TMP/ada" --algo adaboost --rounds 30 --log "$TMP/log.csv" --valid "$twt" -q
[[ $(head -1 "$TMP/log.csv") == "t,epsilon,gamma,alpha,Z,train_error,prod_Z,bound,valid_error" ]] || fail "log header: $(head -1 "$TMP/log.csv")"
[[ $(wc -l <"$TMP/log.csv") -eq 31 ]] || fail "log rows: $(wc -l <"$TMP/log.csv")"
# every round: training error <= prod Z <= exp(-2 sum gamma^2); alpha = 1/2 ln((1-eps)/eps)
awk -F, 'NR > 1 { if ($6 > $7 * (1 + 1e-12) || $7 > $8 * (1 + 1e-12)) bad++
                  a = 0.5 * log((1 - $2) / $2); if ((a - $4) ^ 2 > 1e-20) bad++ }
         END { exit bad > 0 }' "$TMP/log.csv" || fail "bound or alpha violated in the log"
# without --valid, no valid_error column
expect_exit 0 "$GROVE" train "$tw" -o "$TMP/ada2" --algo adaboost --rounds 5 --log "$TMP/log2.csv" -q
[[ $(head -1 "$TMP/log2.csv") == "t,epsilon,gamma,alpha,Z,train_error,prod_Z,bound" ]] || fail "log header without valid"
# --log on a model without rounds: usage-level error, no log written
expect_exit 1 "$GROVE" train "$tw" -o "$TMP/tree" --log "$TMP/none.csv" -q
expect_in "$TMP/err" "per-round log exists for the AdaBoost family"
[[ -e "$TMP/none.csv" || -e "$TMP/tree" ]] && fail "a log or model was written despite the error"
expect_exit 0 "$GROVE" train "$tw" -o "$TMP/tree" -q

# staged prediction: --rounds 10 of a 30-round model = a 10-round model
expect_exit 0 "$GROVE" train "$tw" -o "$TMP/ada10" --algo adaboost --rounds 10 -q
expect_exit 0 "$GROVE" predict "$TMP/ada" "$twt" --rounds 10 --proba -o "$TMP/p30_10.csv"
expect_exit 0 "$GROVE" predict "$TMP/ada10" "$twt" --proba -o "$TMP/p10.csv"
cmp -s "$TMP/p30_10.csv" "$TMP/p10.csv" || fail "staged prediction differs from the 10-round model"
expect_exit 1 "$GROVE" predict "$TMP/ada" "$twt" --rounds 31
expect_in "$TMP/err" "rounds: must be in [1, 30]"
expect_exit 1 "$GROVE" predict "$TMP/tree" "$twt" --rounds 3
expect_in "$TMP/err" "has no rounds"

# margins: CSV of rows, then the cumulative distribution; min margin > 0 iff no training error
expect_exit 0 "$GROVE" margins "$TMP/ada" "$tw"
expect_in "$TMP/out" "row,label,margin"
expect_in "$TMP/out" "theta,cdf"
expect_in "$TMP/err" "minimum margin"
expect_exit 0 "$GROVE" margins "$TMP/ada" "$tw" --cdf-only
[[ $(tail -1 "$TMP/out" | cut -d, -f2) == 1 ]] || fail "cdf does not end at 1"
expect_exit 1 "$GROVE" margins "$TMP/tree" "$tw"
expect_in "$TMP/err" "margins are defined for voting ensembles"

# early stopping on --valid
expect_exit 0 "$GROVE" train "$DATA/sonar_train.csv" -o "$TMP/es" --algo adaboost --rounds 500 --valid "$DATA/sonar_test.csv" --set early_stopping_rounds=10
expect_in "$TMP/out" "rounds:"
r=$(sed -n 's/^rounds: \([0-9]*\).*/\1/p' "$TMP/out"); [[ $r -lt 500 ]] || fail "early stopping did not stop ($r rounds)"
expect_exit 1 "$GROVE" train "$tw" -o "$TMP/x" --algo adaboost --set early_stopping_rounds=3 -q
expect_in "$TMP/err" "needs validation data"

# every algorithm, any base learner
for a in adaboost.m1 samme samme.r adaboost.m2; do
  expect_exit 0 "$GROVE" train "$DATA/iris_train.csv" -o "$TMP/$a" --algo $a --base tree --set base.max_depth=2 --rounds 20 -q
  expect_exit 0 "$GROVE" eval "$TMP/$a" "$DATA/iris_test.csv" --json
  expect_in "$TMP/out" '"accuracy":'
done
for b in perceptron logistic id3; do
  expect_exit 0 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/b-$b" --algo adaboost --base $b --rounds 10 -q
  expect_exit 0 "$GROVE" eval "$TMP/b-$b" "$DATA/breast_cancer_test.csv"
done
expect_exit 0 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/rs" --algo adaboost --set boost.mode=resample --set boost.sample_size=200 --rounds 20 -q
expect_exit 0 "$GROVE" train "$DATA/boston_housing_train.csv" -o "$TMP/r2" --algo adaboost.r2 --base tree --set base.max_depth=3 --set boost.loss=square --rounds 20 -q
expect_exit 0 "$GROVE" eval "$TMP/r2" "$DATA/boston_housing_test.csv" --json
expect_in "$TMP/out" '"rmse":'
expect_exit 0 "$GROVE" train "$tw" -o "$TMP/fb" --algo filter-boost --set filter.depth=2 -q
expect_exit 0 "$GROVE" info "$TMP/fb" --json
expect_in "$TMP/out" '"base_learners":9'
expect_exit 0 "$GROVE" train "$twt" -o "$TMP/cb" --algo confidence-boost --set confidence.epsilon=0.3 -q
expect_exit 2 "$GROVE" train "$tw" -o "$TMP/cb2" --algo confidence-boost -q
expect_in "$TMP/err" "rows in all; the data has 300"

# wrong task / parameters: exit 1 with the parameter named
expect_exit 1 "$GROVE" train "$DATA/iris_train.csv" -o "$TMP/x" --algo adaboost -q
expect_in "$TMP/err" "adaboost is for two classes"
expect_exit 1 "$GROVE" train "$tw" -o "$TMP/x" --algo adaboost.r2 -q
expect_in "$TMP/err" "adaboost.r2 is for regression"
expect_exit 1 "$GROVE" train "$tw" -o "$TMP/x" --algo adaboost --set base.max_depth=-2 -q
expect_in "$TMP/err" "base: max_depth: must be an integer"
expect_exit 1 "$GROVE" train "$tw" -o "$TMP/x" --algo adaboost --base nonesuch -q
expect_in "$TMP/err" "base: unknown learner 'nonesuch'"
# determinism: 1 vs 2 threads, resampling included
for mode in reweight resample; do
  expect_exit 0 "$GROVE" train "$tw" -o "$TMP/d1" --algo adaboost --set boost.mode=$mode --rounds 20 -j 1 -q
  expect_exit 0 "$GROVE" train "$tw" -o "$TMP/d2" --algo adaboost --set boost.mode=$mode --rounds 20 -j 2 -q
  cmp -s "$TMP/d1" "$TMP/d2" || fail "$mode: 1 vs 2 threads differ"
done
finish
