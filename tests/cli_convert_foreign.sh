#!/usr/bin/env bash
# `grove convert --from xgboost|lightgbm`: every malformed model in tests/data/bad/convert/
# (EXPECT.tsv: the file, its format, the message) is refused with exit 2 and a message naming
# the file and the JSON path or line of the bad value, never a crash; a small good LightGBM
# model converts, and bad options are usage errors (exit 1).
source "$(dirname "$0")/lib_cli.sh"

B=$SRC/tests/data/bad/convert
while IFS=$'\t' read -r file from msg; do
  [[ -z $file || $file == \#* ]] && continue
  expect_exit 2 "$GROVE" convert --from "$from" "$B/$file" -o "$TMP/x.grove" || continue
  expect_in "$TMP/err" "$file"
  expect_in "$TMP/err" "$msg"
  checks=$((checks + 1))
  [[ ! -e $TMP/x.grove ]] || fail "$file: an output was written"
done <"$B/EXPECT.tsv"

good=$SRC/tests/data/convert/lgb_regression.txt
expect_exit 0 "$GROVE" convert --from lightgbm "$good" -o "$TMP/g.grove"
expect_exit 0 "$GROVE" info "$TMP/g.grove"
expect_in "$TMP/out" "gbdt"
expect_exit 1 "$GROVE" convert --from catboost "$good" -o "$TMP/g.grove"
expect_in "$TMP/err" "--from must be xgboost, lightgbm or sklearn"
expect_exit 1 "$GROVE" convert --from lightgbm "$good"
# a file of another format is refused by name
expect_exit 2 "$GROVE" convert --from xgboost "$good" -o "$TMP/g.grove"
expect_in "$TMP/err" "lgb_regression.txt:1:4:"
finish
