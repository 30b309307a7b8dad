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

# an encoding 1.0 file (8-byte values, tagged words; written by the first .gvb writer) still
# loads, and gives its JSON twin's bytes
M=$SRC/tests/data/models
expect_exit 0 "$GROVE" convert "$M/forest-enc1.0.gvb" "$TMP/e10.json"
checks=$((checks + 1))
cmp -s "$TMP/e10.json" "$M/forest-enc1.0.json" || fail "encoding 1.0 file: not its JSON twin"

# damaged arrays behind a valid checksum (the trailer recomputed): the array checks refuse them
# damage FILE OUT KIND: changes the first packed array of KIND ('I': its width byte to 3; 'W':
# its first entry to word 9) and rewrites the CRC
damage() {
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read()); kind = sys.argv[3].encode()
i = next(i for i in range(24, len(b) - 24, 8) if b[i] == 1 and b[i + 1:i + 2] == kind and b[i + 3:i + 8] == bytes(5))
if kind == b"I":
    b[i + 2] = 3
else:
    j = i + 8
    for _ in range(b[i + 2]): j += 1 + b[j]
    b[j] = 9
n = len(b) - 24 - 16
b[-8:-4] = struct.pack("<I", zlib.crc32(bytes(b[24:24 + n])))
open(sys.argv[2], "wb").write(b)
PY
}
damage "$TMP/d.gvb" "$TMP/width.gvb" I
damage "$TMP/d.gvb" "$TMP/word.gvb" W
for f in width:"3-byte values" word:"word 9 of a list of"; do
  expect_exit 2 "$GROVE" predict "$TMP/${f%%:*}.gvb" "$bc" -o "$TMP/x.csv"
  expect_in "$TMP/err" "${f%%:*}.gvb: "
  expect_in "$TMP/err" "${f#*:}"
done
finish
