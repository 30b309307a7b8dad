#!/usr/bin/env bash
# `grove predict --contrib / --interactions`: per-feature contributions (TreeSHAP).
# Truths: a row's contributions of one group sum to the model's score (gbdt with two classes:
# logit of p_1 from --proba; a forest: its class probabilities); a feature no split reads has
# contribution 0 in every row; interaction columns of one feature sum to its contribution;
# the header names one column per feature and the bias (per class for several groups);
# models that are not sums of trees, and --rounds with --contrib, are refused by name.
source "$(dirname "$0")/lib_cli.sh"

train=$DATA/breast_cancer_train.csv
test=$DATA/breast_cancer_test.csv
awk -F, 'BEGIN{OFS=","} {print $0, (NR == 1 ? "const" : 7)}' "$train" >"$TMP/train.csv"
awk -F, 'BEGIN{OFS=","} {print $0, (NR == 1 ? "const" : 7)}' "$test" >"$TMP/test.csv"
nf=$(head -1 "$TMP/train.csv" | awk -F, '{print NF - 1}')

# ---- gbdt, two classes: one group, the margin ----
expect_exit 0 "$GROVE" train "$TMP/train.csv" -o "$TMP/g" --algo gbdt -r 20 --set max_depth=4 -q
expect_exit 0 "$GROVE" predict "$TMP/g" "$TMP/test.csv" --proba --contrib -o "$TMP/c.csv"
head -1 "$TMP/c.csv" | tr , '\n' >"$TMP/head"
[[ $(grep -c '^phi_' "$TMP/head") -eq $((nf + 1)) ]] || fail "gbdt: $(grep -c '^phi_' "$TMP/head") contribution columns, $((nf + 1)) expected"
expect_in "$TMP/head" "phi_const"
expect_in "$TMP/head" "phi_bias"
# columns: label, p_0, p_1, phi_... (nf + 1)
awk -F, -v nf="$nf" 'NR > 1 {
  s = 0; for (j = 4; j <= 4 + nf; j++) s += $j
  p = $3; m = log(p / (1 - p)); d = s - m; if (d < 0) d = -d
  if (d > 1e-9 * (1 + (m < 0 ? -m : m))) { print "row " NR - 1 ": sum " s " logit " m; bad = 1 }
  if ($(4 + nf - 1) != 0) { print "row " NR - 1 ": const has " $(4 + nf - 1); bad = 1 }
} END { exit bad }' "$TMP/c.csv" >"$TMP/bad" || fail "gbdt: contributions do not sum to the margin: $(head -3 "$TMP/bad")"
# the same with 1 and 2 threads, byte for byte
expect_exit 0 "$GROVE" predict "$TMP/g" "$TMP/test.csv" --proba --contrib -j 1 -o "$TMP/c1.csv"
cmp -s "$TMP/c.csv" "$TMP/c1.csv" || fail "gbdt: contributions differ between thread counts"

# ---- interactions: (nf + 1)^2 columns; feature a's row sums to its contribution ----
expect_exit 0 "$GROVE" predict "$TMP/g" "$TMP/test.csv" --interactions -o "$TMP/i.csv"
ncol=$(head -1 "$TMP/i.csv" | awk -F, '{print NF}')
[[ $ncol -eq $((1 + (nf + 1) * (nf + 1))) ]] || fail "interactions: $ncol columns, $((1 + (nf + 1) * (nf + 1))) expected"
expect_in "$TMP/i.csv" "phi_bias:bias"
paste -d, "$TMP/c.csv" "$TMP/i.csv" | awk -F, -v nf="$nf" 'NR > 1 {
  off = 3 + nf + 1 + 1   # label p0 p1 phi(nf+1), then the second file: label
  for (a = 0; a <= nf; a++) {
    s = 0; for (b = 0; b <= nf; b++) s += $(off + a * (nf + 1) + b + 1)
    d = s - $(4 + a); if (d < 0) d = -d
    if (d > 1e-9) { print "row " NR - 1 " feature " a ": " s " vs " $(4 + a); bad = 1 }
  }
} END { exit bad }' >"$TMP/bad" || fail "interactions do not sum to the contributions: $(head -3 "$TMP/bad")"

# ---- a forest on three classes: one group per class, summing to the probabilities ----
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/f" --algo forest -r 10 -q
expect_exit 0 "$GROVE" predict "$TMP/f" "$DATA/iris.csv" --proba --contrib -o "$TMP/f.csv"
expect_in "$TMP/f.csv" "phi_versicolor_petal_length_cm"
expect_in "$TMP/f.csv" "phi_virginica_bias"
awk -F, 'NR > 1 {
  for (c = 0; c < 3; c++) {
    s = 0; for (j = 0; j < 5; j++) s += $(5 + c * 5 + j)
    d = s - $(2 + c); if (d < 0) d = -d
    if (d > 1e-9) { print "row " NR - 1 " class " c ": " s " vs " $(2 + c); bad = 1 }
  }
} END { exit bad }' "$TMP/f.csv" >"$TMP/bad" || fail "forest: contributions do not sum to the probabilities: $(head -3 "$TMP/bad")"

# ---- grove report --data: the mean |contribution| chart, one bar per feature (at most 20) ----
expect_exit 0 "$GROVE" report "$TMP/g" --data "$TMP/test.csv" -o "$TMP/r.html" -q
expect_in "$TMP/r.html" 'id="importance-contributions"'
expect_in "$TMP/r.html" "Mean |contribution|"
# a model without contributions: the report has no such chart (and is no error)
expect_exit 0 "$GROVE" train "$train" -o "$TMP/lr" --algo logistic -q
expect_exit 0 "$GROVE" report "$TMP/lr" --data "$test" -o "$TMP/r2.html" -q
grep -q 'importance-contributions' "$TMP/r2.html" && fail "a logistic model's report has contributions"

# ---- refusals ----
expect_exit 1 "$GROVE" predict "$TMP/lr" "$test" --contrib
expect_in "$TMP/err" "contributions need a model whose score is a sum over trees"
expect_exit 1 "$GROVE" predict "$TMP/g" "$TMP/test.csv" --contrib --rounds 3
expect_in "$TMP/err" "--rounds and --contrib cannot be combined"
expect_exit 1 "$GROVE" predict "$TMP/g" "$TMP/test.csv" --contrib --interactions
expect_in "$TMP/err" "--contrib and --interactions cannot be combined"
expect_exit 0 "$GROVE" predict --help
expect_in "$TMP/out" "--interactions"
finish
