#!/usr/bin/env bash
# Decimal commas: `--decimal ,` reads "3,14" as 3.14 in ';'-separated files (train, predict with
# the model's own decimal mark, eval), the type-guessing warning suggests it when a column's
# values look like decimal-comma numbers, and a ',' decimal mark with ',' separators is refused.
source "$(dirname "$0")/lib_cli.sh"

iris=$DATA/iris_train.csv
# iris with ';' separators and decimal commas: the same numbers
sed -e 's/,/;/g' -e 's/\([0-9]\)\.\([0-9]\)/\1,\2/g' "$iris" >"$TMP/comma.csv"
grep -q '[0-9],[0-9]' "$TMP/comma.csv" || fail "the test file holds no decimal comma"

# without --decimal: categorical columns, and the warning names the fix
expect_exit 0 "$GROVE" train "$TMP/comma.csv" -o "$TMP/c0.model" --algo tree
expect_in "$TMP/err" "values look like numbers with a decimal comma"
expect_in "$TMP/err" "--decimal , reads them as numbers"

# with --decimal ,: the model of the '.' file (same trees, same predictions)
expect_exit 0 "$GROVE" train "$iris" -o "$TMP/dot.model" --algo tree --seed 1
expect_exit 0 "$GROVE" train "$TMP/comma.csv" -o "$TMP/comma.model" --algo tree --seed 1 --decimal ,
grep -q "decimal comma" "$TMP/err" && fail "--decimal , still warned: $(cat "$TMP/err")"
expect_exit 0 "$GROVE" predict "$TMP/dot.model" "$iris" -o "$TMP/p_dot.csv"
# predict reads DATA with the decimal mark the model was trained with
expect_exit 0 "$GROVE" predict "$TMP/comma.model" "$TMP/comma.csv" -o "$TMP/p_comma.csv"
cmp -s "$TMP/p_dot.csv" "$TMP/p_comma.csv" || fail "decimal-comma predictions differ from the '.' file's"
"$GROVE" info "$TMP/comma.model" >"$TMP/info" 2>&1
expect_in "$TMP/info" "decimal: ,"

# a field holding both marks is not a number
printf 'a;label\n1,5;x\n1.000,5;y\n2,5;x\n3,5;y\n' >"$TMP/both.csv"
expect_exit 0 "$GROVE" train "$TMP/both.csv" -o "$TMP/x" --decimal , --set numeric=a
expect_in "$TMP/err" "1 value that is not a number read as missing"

# bad values and a clash with the separator
expect_exit 1 "$GROVE" train "$TMP/comma.csv" -o "$TMP/x" --decimal x
expect_in "$TMP/err" "decimal: must be . or , (the decimal mark), got 'x'"
expect_exit 1 "$GROVE" train "$iris" -o "$TMP/x" --decimal ,
expect_in "$TMP/err" "decimal=, needs a field separator other than ','"

# --help names the option
"$GROVE" train --help >"$TMP/help" 2>&1
expect_in "$TMP/help" "--decimal C"
"$GROVE" predict --help >"$TMP/help" 2>&1
expect_in "$TMP/help" "--decimal C"
finish
