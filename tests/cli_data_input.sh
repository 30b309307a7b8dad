#!/usr/bin/env bash
# Reading data without silent surprises.  The truth each check leans on: the same
# data written another way (';' or tabs, a trailing separator, zero-based LIBSVM indices,
# standard input, '?' labels at prediction) gives the same predictions as the plain file; a
# column forced numeric equals the column with its stray value blanked out by hand.
source "$(dirname "$0")/lib_cli.sh"

train=$DATA/breast_cancer_train.csv
test=$DATA/breast_cancer_test.csv
expect_exit 0 "$GROVE" train "$train" -o "$TMP/ref.model" --algo forest -r 5 --seed 2
expect_exit 0 "$GROVE" predict "$TMP/ref.model" "$test" -o "$TMP/ref.csv"
same_as_ref() { # MODEL DATA WHAT: predictions of MODEL on DATA equal ref.csv
  "$GROVE" predict "$1" "$2" -o "$TMP/p.csv" -q || { fail "$3: predict failed"; return; }
  cmp -s "$TMP/p.csv" "$TMP/ref.csv" || fail "$3: other predictions than the plain CSV"
}

# ---- separators: sniffed from the header (';', tab), or --sep ----
tr ',' ';' <"$train" >"$TMP/semi.csv"
tr ',' '\t' <"$train" >"$TMP/tab.tsv"
expect_exit 0 "$GROVE" train "$TMP/semi.csv" -o "$TMP/semi.model" --algo forest -r 5 --seed 2
expect_in "$TMP/err" "note: $TMP/semi.csv: fields are separated by ';' (from the header line; --sep to choose)"
same_as_ref "$TMP/semi.model" "$test" "';'-separated training file"
expect_exit 0 "$GROVE" train "$TMP/tab.tsv" -o "$TMP/tab.model" --algo forest -r 5 --seed 2
expect_in "$TMP/err" "fields are separated by tabs"
same_as_ref "$TMP/tab.model" "$test" "tab-separated training file"
tr ',' '|' <"$train" >"$TMP/bar.txt"
expect_exit 0 "$GROVE" train "$TMP/bar.txt" -o "$TMP/bar.model" --algo forest -r 5 --seed 2 --sep '|' --set format=csv
# predict and eval read files with the separator the model was trained with (or --sep)
tr ',' '|' <"$test" >"$TMP/bar_test.csv"
same_as_ref "$TMP/bar.model" "$TMP/bar_test.csv" "a '|' test file for a --sep '|' model"
expect_exit 0 "$GROVE" eval "$TMP/bar.model" "$TMP/bar_test.csv"
expect_in "$TMP/out" "accuracy"
expect_exit 0 "$GROVE" predict "$TMP/bar.model" "$test" --sep , -o "$TMP/p.csv"
cmp -s "$TMP/p.csv" "$TMP/ref.csv" || fail "predict --sep , on a comma file for a '|' model"
expect_exit 1 "$GROVE" train "$TMP/bar.txt" -o "$TMP/x.model" --sep '||'
expect_in "$TMP/err" "sep: must be auto, tab or one character"
# the test file itself separated by ';' at prediction: sniffed there too
tr ',' ';' <"$test" >"$TMP/semi_test.csv"
same_as_ref "$TMP/ref.model" "$TMP/semi_test.csv" "';'-separated test file"

# ---- a trailing separator ("a,b,") is not a feature ----
sed 's/$/,/' "$train" >"$TMP/trail.csv"
expect_exit 0 "$GROVE" train "$TMP/trail.csv" -o "$TMP/trail.model" --algo forest -r 5 --seed 2
grep -q column_ "$TMP/err" && fail "a trailing separator made a column"
"$GROVE" info "$TMP/trail.model" | grep -q column_ && fail "the trailing empty column became a feature"
same_as_ref "$TMP/trail.model" "$test" "trailing separators"
# rows may end with it or not under such a header
{ head -1 "$TMP/trail.csv"; sed -n '2,$p' "$train"; } >"$TMP/trail_mixed.csv"
expect_exit 0 "$GROVE" train "$TMP/trail_mixed.csv" -o "$TMP/tm.model" --algo forest -r 5 --seed 2
same_as_ref "$TMP/tm.model" "$test" "a trailing header separator over plain rows"
# ... and values under such an unnamed last column are not dropped silently
{ head -1 "$TMP/trail.csv"; sed -n '2,3p' "$TMP/trail.csv"; sed -n '4p' "$train" | sed 's/$/,42/'; sed -n '5,$p' "$TMP/trail.csv"; } >"$TMP/trail_value.csv"
expect_exit 0 "$GROVE" train "$TMP/trail_value.csv" -o "$TMP/x.model"
expect_in "$TMP/err" "the header ends with a separator, so its last column has no name and is ignored, but 1 row holds a value there (first: line 4: \"42\")"
sed 's/$/,/' "$test" >"$TMP/trail_test.csv"
same_as_ref "$TMP/ref.model" "$TMP/trail_test.csv" "trailing separators at prediction"

# ---- standard input: '-' ----
"$GROVE" train - -o "$TMP/stdin.model" --algo forest -r 5 --seed 2 -q <"$train" || fail "train - failed"
same_as_ref "$TMP/stdin.model" "$test" "training data from standard input"
gzip -c "$test" | "$GROVE" predict "$TMP/ref.model" - -o "$TMP/p.csv" -q || fail "predict - (gzip) failed"
cmp -s "$TMP/p.csv" "$TMP/ref.csv" || fail "gzip'd standard input: other predictions"
printf 'a,label\n1,x\n"2,y\n' | "$GROVE" train - -o "$TMP/x.model" 2>"$TMP/err"
expect_in "$TMP/err" "stdin:3:"

# ---- the label: named in a notice when it is the first column by default ----
cut -d, -f2- "$train" >"$TMP/nolabelcol.csv"   # drops 'label': the first feature becomes it
expect_exit 0 "$GROVE" train "$TMP/nolabelcol.csv" -o "$TMP/x.model" --set task=regression
first=$(head -1 "$TMP/nolabelcol.csv" | cut -d, -f1)
expect_in "$TMP/err" "note: $TMP/nolabelcol.csv: no column is named 'label': the first column, '$first', is the label (--label COL to choose another)"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/x.model" --label label
grep -q "no column is named" "$TMP/err" && fail "a named label still got the notice"

# ---- at prediction the label column is optional, value by value ----
awk -F, 'BEGIN{OFS=","} NR==1{print; next} {n++; $1 = (n%4==1 ? "?" : n%4==2 ? "NA" : n%4==3 ? "" : "unseen_class"); print}' "$test" >"$TMP/badlabels.csv"
expect_exit 0 "$GROVE" predict "$TMP/ref.model" "$TMP/badlabels.csv" -o "$TMP/p.csv"
cmp -s "$TMP/p.csv" "$TMP/ref.csv" || fail "'?', NA, empty and unseen labels changed the predictions"
expect_in "$TMP/err" "note: $TMP/badlabels.csv: the label column 'label' is ignored:"
expect_in "$TMP/err" "(first: line 2: \"?\")"
expect_exit 2 "$GROVE" eval "$TMP/ref.model" "$TMP/badlabels.csv"   # eval needs some
expect_in "$TMP/err" "no row has a usable label to evaluate against"

# LIBSVM too: labels the model does not know are ignored at prediction
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/iris_named.model" --algo tree
expect_exit 0 "$GROVE" predict "$TMP/iris_named.model" "$DATA/iris.libsvm" -o "$TMP/p.csv"
expect_in "$TMP/err" "the labels are ignored: 150 rows without a usable label (first: line 1: \"0\")"

# ---- predict --keep COL: ID columns passed through, in front of the predictions ----
awk -F, 'BEGIN{OFS=","} {print (NR == 1 ? "id" : "row" NR - 1), $0}' "$test" >"$TMP/ids.csv"
expect_exit 0 "$GROVE" predict "$TMP/ref.model" "$TMP/ids.csv" --keep id -k 1 -o "$TMP/kept.csv"
[[ $(head -1 "$TMP/kept.csv") == "id,label,label" ]] || fail "--keep header: $(head -1 "$TMP/kept.csv")"
cmp -s <(cut -d, -f3 "$TMP/kept.csv" | tail -n +2) <(tail -n +2 "$TMP/ref.csv") || fail "--keep changed the predictions"
cmp -s <(cut -d, -f1,2 "$TMP/kept.csv" | tail -n +2) <(cut -d, -f1,2 "$TMP/ids.csv" | tail -n +2) || fail "--keep did not copy the columns row by row"
printf 'name,%s
"Doe, J.",%s
' "$(head -1 "$test")" "$(sed -n 2p "$test")" >"$TMP/quoted.csv"
expect_exit 0 "$GROVE" predict "$TMP/ref.model" "$TMP/quoted.csv" --keep name
[[ $(sed -n 2p "$TMP/out" | cut -c1-10) == '"Doe, J.",' ]] || fail "--keep: a field with a comma is not quoted again: $(sed -n 2p "$TMP/out")"
expect_exit 2 "$GROVE" predict "$TMP/ref.model" "$TMP/ids.csv" --keep nosuchcolumn
expect_in "$TMP/err" "parameter keep: expected a column name or 0-based index, found \"nosuchcolumn\""
expect_exit 1 "$GROVE" predict "$TMP/iris_named.model" "$DATA/iris.libsvm" --keep 1
expect_in "$TMP/err" "--keep needs CSV data"

# ---- type guessing: one stray value turns a numeric column categorical, with a warning ----
awk -F, 'BEGIN{OFS=","} NR==5{$3="abc"} NR==9{$3="\"1,5\""} {print}' "$train" >"$TMP/stray.csv"
col=$(head -1 "$train" | cut -d, -f3)
n=$(($(wc -l <"$train") - 1))
expect_exit 0 "$GROVE" train "$TMP/stray.csv" -o "$TMP/stray.model" --algo forest -r 5 --seed 2
expect_in "$TMP/err" "warning: $TMP/stray.csv: column '$col' is read as categorical because 2 of its $n values are not numbers (first: line 5: \"abc\"); --set numeric=$col reads them as missing instead"
"$GROVE" info "$TMP/stray.model" --json | grep -q "\"name\": *\"$col\", *\"type\": *\"categorical\"" \
  || fail "the stray values did not make '$col' categorical (the warning would be wrong)"
# forced numeric: exactly the file with those two cells left empty (missing)
expect_exit 0 "$GROVE" train "$TMP/stray.csv" -o "$TMP/forced.model" --algo forest -r 5 --seed 2 --set numeric=$col
expect_in "$TMP/err" "column '$col' (numeric=): 2 values that are not a number read as missing (first: line 5: \"abc\")"
awk -F, 'BEGIN{OFS=","} NR==5{$3=""} NR==9{$3=""} {print}' "$train" >"$TMP/blank.csv"
expect_exit 0 "$GROVE" train "$TMP/blank.csv" -o "$TMP/blank.model" --algo forest -r 5 --seed 2
"$GROVE" predict "$TMP/forced.model" "$test" -o "$TMP/pf.csv" -q
"$GROVE" predict "$TMP/blank.model" "$test" -o "$TMP/pb.csv" -q
cmp -s "$TMP/pf.csv" "$TMP/pb.csv" || fail "numeric=$col differs from blanking the cells"
# a column of words is categorical without a warning
expect_exit 0 "$GROVE" train "$DATA/penguins_train.csv" -o "$TMP/x.model"
grep -q "is read as categorical" "$TMP/err" && fail "a column of words got the stray-value warning"

# ---- inf: a missing value everywhere (CSV and LIBSVM, training and prediction) ----
awk -F, 'BEGIN{OFS=","} NR==5{$3="inf"} NR==9{$3="-Infinity"} {print}' "$train" >"$TMP/inf.csv"
expect_exit 0 "$GROVE" train "$TMP/inf.csv" -o "$TMP/inf.model" --algo forest -r 5 --seed 2
grep -q "categorical" "$TMP/err" && fail "inf made a column categorical"
"$GROVE" predict "$TMP/inf.model" "$test" -o "$TMP/pi.csv" -q
cmp -s "$TMP/pi.csv" "$TMP/pb.csv" || fail "inf at training is not the same as a missing value"
awk -F, 'BEGIN{OFS=","} NR==2{$3="+inf"} {print}' "$test" >"$TMP/inf_test.csv"
awk -F, 'BEGIN{OFS=","} NR==2{$3=""} {print}' "$test" >"$TMP/blank_test.csv"
expect_exit 0 "$GROVE" predict "$TMP/ref.model" "$TMP/inf_test.csv" -o "$TMP/p1.csv"
"$GROVE" predict "$TMP/ref.model" "$TMP/blank_test.csv" -o "$TMP/p2.csv" -q
cmp -s "$TMP/p1.csv" "$TMP/p2.csv" || fail "inf at prediction is not the same as a missing value"
printf '1 1:inf 2:3\n0 1:2 2:1\n1 1:4 2:NaN\n' >"$TMP/inf.libsvm"
expect_exit 0 "$GROVE" train "$TMP/inf.libsvm" -o "$TMP/x.model" --set libsvm_absent=missing

# ---- LIBSVM: zero-based indices detected per file, with a notice ----
iris=$DATA/iris.libsvm
awk '{printf "%s", $1; for (i = 2; i <= NF; i++) { split($i, a, ":"); printf " %d:%s", a[1] - 1, a[2] } print ""}' "$iris" >"$TMP/zero.libsvm"
expect_exit 0 "$GROVE" train "$iris" -o "$TMP/one.model" --algo forest -r 5 --seed 2
grep -q "zero-based" "$TMP/err" && fail "a one-based file got the zero-based notice"
expect_exit 0 "$GROVE" train "$TMP/zero.libsvm" -o "$TMP/zero.model" --algo forest -r 5 --seed 2
expect_in "$TMP/err" "note: $TMP/zero.libsvm: feature indices are zero-based (index 0 on line 1), as scikit-learn's dump_svmlight_file writes them"
"$GROVE" info "$TMP/zero.model" | grep -q '"name":"f0"' || fail "zero-based features are not named f0.."
"$GROVE" predict "$TMP/one.model" "$iris" -o "$TMP/p1.csv" -q
"$GROVE" predict "$TMP/zero.model" "$TMP/zero.libsvm" -o "$TMP/p2.csv" -q
cmp -s "$TMP/p1.csv" "$TMP/p2.csv" || fail "the zero-based file gives other predictions"
# a model from a zero-based file reads zero-based test files even when a row lacks index 0
printf '0 1:3.0 2:1.4 3:0.2\n' >"$TMP/zero_noidx0.libsvm"
expect_exit 0 "$GROVE" predict "$TMP/zero.model" "$TMP/zero_noidx0.libsvm" -o "$TMP/p3.csv"
finish
