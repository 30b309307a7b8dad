#!/usr/bin/env bash
# `grove convert` and the binary model encoding (src/model/model_bin.c): JSON -> .gvb -> JSON
# gives the very bytes grove wrote (the encoding loses nothing), a .gvb model predicts exactly
# what its JSON twin predicts (--proba, every digit), and a damaged binary file -- truncated,
# extended, one byte changed, a newer encoding, not a model at all -- is refused with exit 2 and
# a message naming the file, never a crash.
source "$(dirname "$0")/lib_cli.sh"

bc=$DATA/breast_cancer.csv
for algo in stump "tree --set max_depth=4" "adaboost -r 5" "gbdt -r 5 --set max_depth=3" "forest -r 5" \
            "extra-trees -r 3" "bagging -r 3" "adaboost.m2 -r 3"; do
  expect_exit 0 "$GROVE" train "$bc" -o "$TMP/m.json" --algo $algo --seed 1 -q || continue
  expect_exit 0 "$GROVE" convert "$TMP/m.json" "$TMP/m.gvb"
  expect_exit 0 "$GROVE" convert "$TMP/m.gvb" "$TMP/back.json"
  checks=$((checks + 1))
  cmp -s "$TMP/m.json" "$TMP/back.json" || fail "$algo: JSON -> binary -> JSON changed the bytes"
  expect_exit 0 "$GROVE" predict --proba "$TMP/m.json" "$bc" -o "$TMP/p_json.csv"
  expect_exit 0 "$GROVE" predict --proba "$TMP/m.gvb" "$bc" -o "$TMP/p_bin.csv"
  checks=$((checks + 1))
  cmp -s "$TMP/p_json.csv" "$TMP/p_bin.csv" || fail "$algo: the binary model predicts otherwise"
done
# saved directly as .gvb by train: the same bytes as converting its JSON twin
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/d.gvb" --algo forest -r 3 --seed 2 -q
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/d.json" --algo forest -r 3 --seed 2 -q
expect_exit 0 "$GROVE" convert "$TMP/d.json" "$TMP/d2.gvb"
checks=$((checks + 1))
cmp -s "$TMP/d.gvb" "$TMP/d2.gvb" || fail "train -o x.gvb differs from convert of the JSON model"
head -c 8 "$TMP/d.gvb" | grep -q GROVEBIN || fail "no GROVEBIN magic"

# damaged files: exit 2 and the reason
size=$(stat -c %s "$TMP/d.gvb")
head -c $((size - 5)) "$TMP/d.gvb" >"$TMP/trunc.gvb"
{ cat "$TMP/d.gvb"; printf 'x'; } >"$TMP/ext.gvb"
cp "$TMP/d.gvb" "$TMP/flip.gvb"
printf 'Z' | dd of="$TMP/flip.gvb" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
cp "$TMP/d.gvb" "$TMP/newer.gvb"
printf '\x09' | dd of="$TMP/newer.gvb" bs=1 seek=8 conv=notrunc 2>/dev/null
printf 'GROVEBIN' >"$TMP/short.gvb"
for f in trunc:truncated ext:extended flip:checksum newer:"encoding version 9" short:truncated; do
  expect_exit 2 "$GROVE" predict "$TMP/${f%%:*}.gvb" "$bc" -o "$TMP/x.csv"
  expect_in "$TMP/err" "${f%%:*}.gvb: binary model"
  expect_in "$TMP/err" "${f#*:}"
done
expect_exit 1 "$GROVE" convert "$TMP/d.gvb"
finish
