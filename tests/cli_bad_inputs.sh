#!/usr/bin/env bash
# The malformed-input corpus through the CLI: every file in tests/data/bad/EXPECT.tsv makes
# `grove train` exit with the status's code (2 for bad input) and print the expected
# FILE:LINE(:COLUMN) message, and writes no model.  Then broken model files: truncated, one
# byte changed, foreign, newer version -- `grove eval` and `grove info` exit 2 naming the file.
source "$(dirname "$0")/lib_cli.sh"
BAD=$SRC/tests/data/bad
code_of() {
  case $1 in
    GROVE_ERR_PARAM) echo 1 ;;
    GROVE_ERR_IO|GROVE_ERR_PARSE|GROVE_ERR_DATA|GROVE_ERR_MODEL) echo 2 ;;
    *) echo 3 ;;
  esac
}
n=0
while IFS=$'\t' read -r file params status message; do
  [[ -z "$file" || "$file" == \#* || "$file" == file ]] && continue
  n=$((n + 1))
  args=()
  if [[ "$params" != "-" ]]; then
    IFS=';' read -ra kvs <<<"$params"
    for kv in "${kvs[@]}"; do args+=(--set "$kv"); done
  fi
  rm -f "$TMP/m"
  # run from the corpus folder so messages name the file as EXPECT.tsv writes it
  (cd "$BAD" && expect_exit "$(code_of "$status")" "$GROVE" train "$file" -o "$TMP/m" "${args[@]}" -q)
  checks=$((checks + 1))
  grep -qF -- "$message" "$TMP/err" || fail "$file: message lacks '$message': $(cat "$TMP/err")"
  [[ -e "$TMP/m" ]] && fail "$file: a model was written despite the error"
done <"$BAD/EXPECT.tsv"
[[ $n -ge 10 ]] || fail "corpus too small: $n cases"

# broken model files
expect_exit 0 "$GROVE" train "$DATA/house_votes84_train.csv" -o "$TMP/good.model" --set max_depth=3 -q
size=$(stat -c %s "$TMP/good.model")
for len in 0 1 10 $((size / 3)) $((size / 2)) $((size - 2)); do
  head -c "$len" "$TMP/good.model" >"$TMP/trunc.model"
  expect_exit 2 "$GROVE" eval "$TMP/trunc.model" "$DATA/house_votes84_test.csv"
  expect_in "$TMP/err" "$TMP/trunc.model"
done
python3 - "$TMP/good.model" "$TMP/flip.model" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"0.", len(b) // 2)  # a digit of some number in the middle of the file
b[i + 2] = ord("7") if b[i + 2] != ord("7") else ord("3")
open(sys.argv[2], "wb").write(b)
PY
expect_exit 2 "$GROVE" info "$TMP/flip.model"
expect_in "$TMP/err" "$TMP/flip.model"
echo '{"hello": "world"}' >"$TMP/foreign.model"
expect_exit 2 "$GROVE" info "$TMP/foreign.model"
expect_in "$TMP/err" "not a grove model"
python3 - "$TMP/good.model" "$TMP/newer.model" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["version"] = [2, 0]
json.dump(m, open(sys.argv[2], "w"))
PY
expect_exit 2 "$GROVE" info "$TMP/newer.model"
expect_in "$TMP/err" "newer"
expect_exit 2 "$GROVE" info "$TMP/does-not-exist.model"
expect_in "$TMP/err" "does-not-exist.model"
# a model used with data of another shape
expect_exit 2 "$GROVE" eval "$TMP/good.model" "$DATA/breast_cancer_test.csv"
# gbdt on targets whose squares overflow: refused before training (grove_train sums the
# weighted labels and their squares as every learner needs them), naming the row, with and
# without row sampling
printf 'label,x\n1e308,1\n1.7e308,2\n1.7e308,3\n-1e308,4\n' >"$TMP/huge.csv"
for sub in 1 0.5; do
  expect_exit 2 "$GROVE" train "$TMP/huge.csv" -o "$TMP/huge.model" --algo gbdt -r 3 \
    --set objective=squared --set subsample=$sub
  expect_in "$TMP/err" "huge.csv: row 0: label 1e+308"
  expect_in "$TMP/err" "overflows a double"
done
finish
