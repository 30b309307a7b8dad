#!/usr/bin/env bash
# The train summary says why boosting stopped before its rounds: a perfect
# hypothesis (epsilon = 0), a first hypothesis with no edge (epsilon >= 1/2: XOR, where every
# stump errs on exactly half the weight), no edge in a later round, and early stopping
# (adaboost and gbdt).  The rounds
# printed match the model's own record (`grove info`).
source "$(dirname "$0")/lib_cli.sh"

train=$DATA/breast_cancer_train.csv
valid=$DATA/breast_cancer_test.csv
# epsilon = 0: an unlimited tree separates the training rows
expect_exit 0 "$GROVE" train "$train" -o "$TMP/p.model" --algo adaboost --base tree -r 10
expect_in "$TMP/out" "rounds: 1 of 10; stopped early: round 1: a perfect hypothesis (error 0)"
# epsilon = 1/2 in round 1: every stump on XOR is right on exactly two of the four points
printf 'x1,x2,label\n0,0,a\n0,1,b\n1,0,b\n1,1,a\n' >"$TMP/xor.csv"
expect_exit 0 "$GROVE" train "$TMP/xor.csv" -o "$TMP/x.model" --algo adaboost -r 10
expect_in "$TMP/out" "rounds: 1 of 10; stopped early: round 1: error 0.5 of the first hypothesis is not below the limit"
# no edge in a later round: XOR with one point repeated; AdaBoost's weights come back to a
# distribution on which every stump errs on exactly half (round 10 here)
printf 'x1,x2,label\n0,0,a\n0,1,b\n1,0,b\n1,1,a\n0,0,a\n' >"$TMP/xor5.csv"
expect_exit 0 "$GROVE" train "$TMP/xor5.csv" -o "$TMP/x5.model" --algo adaboost -r 10
expect_in "$TMP/out" "stopped early: round"
expect_in "$TMP/out" "is not below 1/2; the base learner has no edge on this distribution, training stopped"
# early stopping on the validation data
for algo in adaboost gbdt; do
  expect_exit 0 "$GROVE" train "$train" -o "$TMP/e.model" --algo $algo -r 200 --valid "$valid" \
    --set early_stopping_rounds=3
  expect_in "$TMP/out" "no validation improvement for 3 rounds; kept the best round"
  n=$(sed -n 's/^rounds: \([0-9]*\) of 200; stopped early.*/\1/p' "$TMP/out")
  expect_exit 0 "$GROVE" info "$TMP/e.model" --json
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["model"]; sys.exit(0 if str(m["rounds"])==sys.argv[2] and m["stop"] else 1)' "$TMP/out" "$n" \
    || fail "$algo: the summary says $n rounds, grove info does not"
done
# a run that used all its rounds says nothing more
expect_exit 0 "$GROVE" train "$train" -o "$TMP/f.model" --algo adaboost -r 5
expect_in "$TMP/out" "rounds: 5"
grep -q "stopped early" "$TMP/out" && fail "a full run reported an early stop"
# --verbose: the tree engine's plan, once, as the first tree had it; nothing with --quiet;
# `grove info` shows the plan for dense rows of the model's features
expect_exit 0 "$GROVE" train "$train" -o "$TMP/g.model" --algo gbdt -r 3 --verbose --threads 1
expect_in "$TMP/err" "grove: plan: row-major histograms (double records"
expect_in "$TMP/err" ", 1 thread; split_simd="
[[ $(grep -c "plan:" "$TMP/err") == 1 ]] || fail "--verbose printed the plan other than once"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/g.model" --algo gbdt -r 3 --set max_bins=1000 -v -j 2
expect_in "$TMP/err" "grove: plan: column-wise histograms (double records"
expect_in "$TMP/err" ", 2 threads;"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/g.model" --algo gbdt -r 3 --verbose --quiet
grep -q "plan:" "$TMP/err" && fail "--quiet printed the plan"
expect_exit 0 "$GROVE" info "$TMP/g.model"
expect_in "$TMP/out" "plan: row-major histograms"
expect_exit 0 "$GROVE" info "$TMP/f.model"
grep -q "^plan:" "$TMP/out" && fail "grove info showed a tree engine plan for adaboost"
finish
