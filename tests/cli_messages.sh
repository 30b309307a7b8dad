#!/usr/bin/env bash
# What the CLI says, and what -q keeps: -q hides progress, notes and summaries, never a warning;
# typos get a "did you mean"; swapped arguments, decimal commas, unusable labels and interrupted
# training get a message that says what happened and what to do.
source "$(dirname "$0")/lib_cli.sh"

bc=$DATA/breast_cancer_train.csv
iris=$DATA/iris_train.csv

# ---- -q hides progress and the summary, never a warning
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/q.model" --algo forest -r 3 --set learning_rate=0.1 -q
expect_in "$TMP/err" "warning: parameter 'learning_rate' is not used by --algo forest"
[[ -s "$TMP/out" ]] && fail "-q printed a summary: $(head -2 "$TMP/out")"
# a warning about the data stays too; the notice about the chosen label goes
awk -F, 'BEGIN{OFS=","} NR==5{$3="abc"} {print}' "$bc" >"$TMP/stray.csv"
expect_exit 0 "$GROVE" train "$TMP/stray.csv" -o "$TMP/s.model" -q
expect_in "$TMP/err" "warning: $TMP/stray.csv: column"
cut -d, -f2- "$iris" >"$TMP/nolabel.csv"
expect_exit 0 "$GROVE" train "$TMP/nolabel.csv" -o "$TMP/n.model" -q
grep -q "note:" "$TMP/err" && fail "-q printed a note: $(cat "$TMP/err")"
expect_exit 0 "$GROVE" train "$TMP/nolabel.csv" -o "$TMP/n.model"
expect_in "$TMP/err" "note: $TMP/nolabel.csv: no column is named 'label'"

# ---- MODEL and DATA swapped: named, not a JSON syntax error
for cmd in eval predict importance; do
  expect_exit 2 "$GROVE" $cmd "$iris" "$TMP/n.model"
  expect_in "$TMP/err" "$iris: is not a grove model file (it starts with \"label,sepal_length_cm"
done
expect_exit 2 "$GROVE" info "$iris"
expect_in "$TMP/err" "is not a grove model file"

finish
