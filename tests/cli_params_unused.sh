#!/usr/bin/env bash
# Unused parameters: train, cv and biasvar warn about every parameter the algorithm
# did not read, with a hint where a parameter of the same name was read one level up or down
# (max_depth -> base.max_depth) or one with the same last word (learning_rate ->
# boost.learning_rate); --strict makes it an error and writes nothing.
# The truth checked: a parameter reported unused really changes nothing (the predictions with
# and without it are identical), and its hinted counterpart does change the model.
source "$(dirname "$0")/lib_cli.sh"

train=$DATA/breast_cancer_train.csv
test=$DATA/breast_cancer_test.csv
pred() { "$GROVE" predict "$1" "$test" -o "$2" -q || fail "predict $1"; }

# --algo adaboost --base tree --set max_depth=3: the trees ignore it (it is base.max_depth)
expect_exit 0 "$GROVE" train "$train" -o "$TMP/a.model" --algo adaboost --base tree -r 5 --set max_depth=3
expect_in "$TMP/err" "warning: parameter 'max_depth' is not used by --algo adaboost (did you mean base.max_depth?)"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/a0.model" --algo adaboost --base tree -r 5 -q
pred "$TMP/a.model" "$TMP/a.csv"
pred "$TMP/a0.model" "$TMP/a0.csv"
cmp -s "$TMP/a.csv" "$TMP/a0.csv" || fail "max_depth was reported unused but changed adaboost's predictions"
# the hinted key is read: no warning, and it changes the model
expect_exit 0 "$GROVE" train "$train" -o "$TMP/b.model" --algo adaboost --base tree -r 5 --set base.max_depth=1
[[ -s "$TMP/err" ]] && fail "base.max_depth with --base tree warned: $(cat "$TMP/err")"
pred "$TMP/b.model" "$TMP/b.csv"
cmp -s "$TMP/b.csv" "$TMP/a0.csv" && fail "base.max_depth=1 did not change adaboost's trees"

# --algo tree --set base.max_depth=3: no base learner; the hint is max_depth
expect_exit 0 "$GROVE" train "$train" -o "$TMP/t.model" --set base.max_depth=3
expect_in "$TMP/err" "parameter 'base.max_depth' is not used by --algo tree (did you mean max_depth?)"
# a forest reads neither learning_rate nor early_stopping_rounds (no hint exists for either)
expect_exit 0 "$GROVE" train "$train" -o "$TMP/f.model" --algo forest -r 5 --set learning_rate=0.1 --set early_stopping_rounds=3
expect_in "$TMP/err" "parameter 'learning_rate' is not used by --algo forest"
expect_in "$TMP/err" "parameter 'early_stopping_rounds' is not used by --algo forest"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/f0.model" --algo forest -r 5 -q
pred "$TMP/f.model" "$TMP/f.csv"
pred "$TMP/f0.model" "$TMP/f0.csv"
cmp -s "$TMP/f.csv" "$TMP/f0.csv" || fail "learning_rate was reported unused but changed the forest"
# adaboost's shrinkage is boost.learning_rate
expect_exit 0 "$GROVE" train "$train" -o "$TMP/l.model" --algo adaboost -r 5 --set learning_rate=0.5
expect_in "$TMP/err" "parameter 'learning_rate' is not used by --algo adaboost (did you mean boost.learning_rate?)"
# --rounds means nothing to a single tree
expect_exit 0 "$GROVE" train "$train" -o "$TMP/r.model" -r 7
expect_in "$TMP/err" "parameter 'rounds' is not used by --algo tree"
# parameters every algorithm reads (data options, seed, threads) never warn
expect_exit 0 "$GROVE" train "$train" -o "$TMP/s.model" --seed 3 -j 1 --label label --set max_bins=64
[[ -s "$TMP/err" ]] && fail "always-read parameters warned: $(cat "$TMP/err")"
# --log sets gbdt's train_metric itself: that is not the user's parameter
expect_exit 0 "$GROVE" train "$train" -o "$TMP/lg.model" --algo adaboost -r 3 --log "$TMP/log.csv"
[[ -s "$TMP/err" ]] && fail "--log made train_metric warn: $(cat "$TMP/err")"
# -q hides the summary, not the warnings
expect_exit 0 "$GROVE" train "$train" -o "$TMP/q.model" -r 7 -q
expect_in "$TMP/err" "warning: parameter 'rounds' is not used by --algo tree"

# --strict: an error (exit 1), the old model left intact
cp "$TMP/t.model" "$TMP/keep.model"
expect_exit 1 "$GROVE" train "$train" -o "$TMP/keep.model" --set base.max_depth=2 --strict
expect_in "$TMP/err" "error: parameter 'base.max_depth' is not used by --algo tree (did you mean max_depth?)"
expect_in "$TMP/err" "--strict: 1 unused parameter, nothing written"
cmp -s "$TMP/keep.model" "$TMP/t.model" || fail "--strict failure replaced the model"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/ok.model" --set max_depth=2 --strict -q

# cv and biasvar train too
expect_exit 0 "$GROVE" cv "$train" -k 3 --algo bagging -r 3 --set learning_rate=0.1
expect_in "$TMP/err" "cv: warning: parameter 'learning_rate' is not used by --algo bagging"
expect_exit 1 "$GROVE" cv "$train" -k 3 --algo bagging -r 3 --set learning_rate=0.1 --strict
expect_exit 0 "$GROVE" biasvar "$train" -R 2 --set rounds=4
expect_in "$TMP/err" "biasvar: warning: parameter 'rounds' is not used by --algo tree"
finish
