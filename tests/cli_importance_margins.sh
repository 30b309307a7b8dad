#!/usr/bin/env bash
# Importances and margins for every model that has them.
# Truths: permuting a constant column changes no prediction, so its permutation importance is
# exactly 0 for any model; a gbdt's gain and cover are 0 exactly for features no split uses;
# (gain and cover against XGBoost's get_score: tests/py_xgboost_gbdt.py).  A voting ensemble
# classifies a row correctly iff its margin is > 0; a hard vote of T members has margins that
# are multiples of 1/T; a soft vote's margin is p_y - max_{k != y} p_k of `predict --proba`.
source "$(dirname "$0")/lib_cli.sh"

train=$DATA/breast_cancer_train.csv
test=$DATA/breast_cancer_test.csv
# a constant column added to both files
awk -F, 'BEGIN{OFS=","} {print $0, (NR == 1 ? "const" : 7)}' "$train" >"$TMP/train.csv"
awk -F, 'BEGIN{OFS=","} {print $0, (NR == 1 ? "const" : 7)}' "$test" >"$TMP/test.csv"

# ---- permutation importance on data, for any model ----
for algo in logistic mlp gbdt stacking "adaboost --base tree" perceptron; do
  expect_exit 0 "$GROVE" train "$TMP/train.csv" -o "$TMP/m" --algo $algo -r 3 --set mlp.epochs=5 -q
  expect_exit 0 "$GROVE" importance "$TMP/m" "$TMP/test.csv" --csv
  expect_in "$TMP/out" "permutation"
  v=$(awk -F, 'NR > 1 && $1 == "const" {print $NF}' "$TMP/out")
  [[ $v == 0 ]] || fail "$algo: permutation importance of a constant column is '$v', not 0"
  awk -F, 'NR > 1 && $NF != 0 {n++} END {exit !(n > 0)}' "$TMP/out" || fail "$algo: every permutation importance is 0"
done
# without data, a model that carries none says what to do
expect_exit 0 "$GROVE" train "$train" -o "$TMP/lr" --algo logistic -q
expect_exit 1 "$GROVE" importance "$TMP/lr"
expect_in "$TMP/err" "carries no importances; give labelled DATA for permutation importances"

# ---- gbdt: gain and cover ----
expect_exit 0 "$GROVE" train "$TMP/train.csv" -o "$TMP/g" --algo gbdt -r 3 --set max_depth=2 -q
expect_exit 0 "$GROVE" importance "$TMP/g" --csv
[[ $(head -1 "$TMP/out") == "feature,gain,cover" ]] || fail "gbdt importance header: $(head -1 "$TMP/out")"
used=$(awk -F, 'NR > 1 && $2 > 0 {n++} END {print n + 0}' "$TMP/out")
[[ $used -ge 1 && $used -le 9 ]] || fail "3 trees of depth 2 split on $used features (1..9 possible)"
awk -F, 'NR > 1 && (($2 > 0) != ($3 > 0)) {exit 1}' "$TMP/out" || fail "a feature has gain without cover or cover without gain"
awk -F, '$1 == "const" && ($2 != 0 || $3 != 0) {exit 1}' "$TMP/out" || fail "the constant column has gain or cover"

# ---- margins of bagging, forests and voting ----
for algo in "bagging --base tree" forest extra-trees voting; do
  expect_exit 0 "$GROVE" train "$train" -o "$TMP/v" --algo $algo -r 7 --seed 3 -q
  expect_exit 0 "$GROVE" margins "$TMP/v" "$test" -q
  expect_in "$TMP/out" "row,label,margin"
  sed -n '2,/^$/p' "$TMP/out" | sed '/^$/d' >"$TMP/margins.csv"
  "$GROVE" predict "$TMP/v" "$test" --proba -o "$TMP/pred.csv" -q
  # correct iff margin > 0 (a tie has margin 0 and goes to the lowest class: skipped)
  paste -d, "$TMP/margins.csv" <(tail -n +2 "$TMP/pred.csv" | cut -d, -f1) |
    awk -F, -v what="$algo" '$3 != 0 && (($3 > 0) != ($2 == $4)) {print "FAIL: " what ": row " $1 " margin " $3 " but predicted " $4 " for " $2; bad = 1} END {exit bad}' >&2 ||
    fail "$algo: a margin disagrees with the prediction"
done
# hard vote of 7: multiples of 1/7; soft vote: p_y - max other of predict --proba
expect_exit 0 "$GROVE" train "$train" -o "$TMP/b" --algo bagging --base tree -r 7 --seed 3 -q
"$GROVE" margins "$TMP/b" "$test" -q | sed -n '2,/^$/p' | sed '/^$/d' |
  awk -F, '{x = $3 * 7; if (x - int(x + (x < 0 ? -0.5 : 0.5)) > 1e-9 || int(x + (x < 0 ? -0.5 : 0.5)) - x > 1e-9) bad = 1} END {exit bad}' ||
  fail "bagging (hard vote of 7): a margin is not a multiple of 1/7"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/f" --algo forest -r 7 --seed 3 -q
"$GROVE" margins "$TMP/f" "$test" -q | sed -n '2,/^$/p' | sed '/^$/d' >"$TMP/fm.csv"
"$GROVE" predict "$TMP/f" "$test" --proba -o "$TMP/fp.csv" -q
hdr=$(head -1 "$TMP/fp.csv")
paste -d, "$TMP/fm.csv" <(tail -n +2 "$TMP/fp.csv") |
  awk -F, -v hdr="$hdr" 'BEGIN {n = split(hdr, h, ","); for (c = 2; c <= n; c++) cls[c] = substr(h[c], 3)}
    {y = $2; py = 0; other = -1
     for (c = 2; c <= n; c++) { p = $(4 + c - 1); if (cls[c] == y) py = p; else if (p > other) other = p }
     d = py - other - $3; if (d > 1e-12 || d < -1e-12) {print "FAIL: row " $1 ": margin " $3 " vs " py - other; bad = 1}}
    END {exit bad}' >&2 || fail "forest (soft vote): margins differ from p_y - max other of predict --proba"
expect_exit 1 "$GROVE" margins "$TMP/lr" "$test"
expect_in "$TMP/err" "margins are defined for voting ensembles"
finish
