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

# ---- integer labels: the chosen task is named, with the way to change it (a note: -q hides it)
expect_exit 0 "$GROVE" train "$DATA/boston_housing_train.csv" --label rad -o "$TMP/rad.model"
expect_in "$TMP/err" "note: the label 'rad' holds 9 distinct integers: trained as classification with 9 classes (--set task=regression to predict a number)"
expect_exit 0 "$GROVE" train "$DATA/boston_housing_train.csv" --label rad -o "$TMP/rad.model" --set task=classification
grep -q "distinct integers" "$TMP/err" && fail "a chosen task still got the note"
expect_exit 0 "$GROVE" train "$DATA/boston_housing_train.csv" --label rad -o "$TMP/rad.model" -q
grep -q "distinct integers" "$TMP/err" && fail "-q printed the note"

# ---- typos get a "did you mean" (one suggestion function: grove_suggest)
expect_exit 1 "$GROVE" train "$iris" -o "$TMP/x" --set max_dept=3
expect_in "$TMP/err" "unknown parameter 'max_dept' (did you mean max_depth?)"
expect_exit 1 "$GROVE" train "$iris" -o "$TMP/x" --algo adaboost --set base.max_dept=3
expect_in "$TMP/err" "unknown parameter 'base.max_dept' (did you mean base.max_depth?)"
expect_exit 2 "$GROVE" train "$iris" -o "$TMP/x" --label lable
expect_in "$TMP/err" "found \"lable\" (the header has 5 columns; did you mean 'label'?)"
expect_exit 1 "$GROVE" train "$iris" -o "$TMP/x" --tread 2
expect_in "$TMP/err" "unknown option '--tread' (did you mean --threads?)"
expect_exit 1 "$GROVE" train "$iris" -o "$TMP/x" --depth 3
expect_in "$TMP/err" "unknown option '--depth' (did you mean --set max_depth=VALUE?)"
expect_exit 1 "$GROVE" cv "$iris" --learning-rate=0.1
expect_in "$TMP/err" "unknown option '--learning-rate=0.1' (did you mean --set learning_rate=0.1?)"
expect_exit 1 "$GROVE" predict "$TMP/ir.model" "$iris" --probba
expect_in "$TMP/err" "unknown option '--probba' (did you mean --proba?)"
# a word far from every name gets no guess
expect_exit 1 "$GROVE" train "$iris" -o "$TMP/x" --set zzzzzz=1
grep -q "did you mean" "$TMP/err" && fail "a far word got a guess: $(cat "$TMP/err")"

# ---- SIGINT / SIGTERM during training: no .grove-tmp-* left beside the output, the old model
# intact, and the process dies of the signal (128 + N)
mkdir "$TMP/sig"
cp "$TMP/q.model" "$TMP/sig/m.model"
for s in INT TERM; do
  "$GROVE" train "$DATA/digits_train.csv" -o "$TMP/sig/m.model" --algo forest \
    -r 100000 -j 1 -q 2>/dev/null &
  pid=$!
  for _ in $(seq 50); do compgen -G "$TMP/sig/.grove-tmp-*" >/dev/null && break; sleep 0.1; done
  compgen -G "$TMP/sig/.grove-tmp-*" >/dev/null || fail "no temporary file while training"
  kill -$s $pid
  wait $pid
  rc=$?
  checks=$((checks + 1))
  want=$((128 + $(kill -l $s)))
  [[ $rc -eq $want ]] || fail "SIG$s: exit $rc, wanted $want"
  left=$(ls -A "$TMP/sig" | grep grove-tmp)
  [[ -z $left ]] || fail "SIG$s left $left"
  cmp -s "$TMP/sig/m.model" "$TMP/q.model" || fail "SIG$s changed the old model"
done

# ---- MODEL and DATA swapped: named, not a JSON syntax error
for cmd in eval predict importance; do
  expect_exit 2 "$GROVE" $cmd "$iris" "$TMP/n.model"
  expect_in "$TMP/err" "$iris: is not a grove model file (it starts with \"label,sepal_length_cm"
done
expect_exit 2 "$GROVE" info "$iris"
expect_in "$TMP/err" "is not a grove model file"

# ---- eval: rows without a usable label are skipped, with one warning that counts them
expect_exit 0 "$GROVE" train "$iris" -o "$TMP/ir.model" -q
{ head -1 "$DATA/iris_test.csv"; sed -n '2,11p' "$DATA/iris_test.csv"; } >"$TMP/ten.csv"
awk -F, 'BEGIN{OFS=","} NR==3{$1="?"} NR==6{$1="NA"} NR==8{$1="unknown_class"} {print}' "$TMP/ten.csv" >"$TMP/bad3.csv"
expect_exit 0 "$GROVE" eval "$TMP/ir.model" "$TMP/bad3.csv"
expect_in "$TMP/err" "warning: $TMP/bad3.csv: skipped 3 of 10 rows, without a usable label (first: line 3: \"?\"); evaluated on the other 7"
[[ $(wc -l <"$TMP/err") -eq 1 ]] || fail "eval said more than one line: $(cat "$TMP/err")"
expect_in "$TMP/out" "n         7"
# the same 7 rows alone give the same metrics
awk 'NR!=3 && NR!=6 && NR!=8' "$TMP/ten.csv" >"$TMP/good7.csv"
"$GROVE" eval "$TMP/ir.model" "$TMP/good7.csv" | sed 1d >"$TMP/m7"
sed 1d "$TMP/out" | cmp -s - "$TMP/m7" || fail "skipping rows changed the metrics of the others"
# no label column at all is still refused
cut -d, -f2- "$TMP/ten.csv" >"$TMP/nol.csv"
expect_exit 2 "$GROVE" eval "$TMP/ir.model" "$TMP/nol.csv"
expect_in "$TMP/err" "no label column 'label' to evaluate against"
# ---- output lost on a full disk is an error, for every command that prints a result
if [[ -w /dev/full ]]; then
  for cmd in "eval $TMP/ir.model $TMP/ten.csv" "info $TMP/ir.model" "importance $TMP/ir.model"; do
    checks=$((checks + 1))
    $GROVE $cmd >/dev/full 2>"$TMP/err" && fail "$cmd >/dev/full exited 0"
    expect_in "$TMP/err" "standard output: cannot write: No space left on device"
  done
fi

finish
