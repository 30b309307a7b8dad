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

# encoding 1.0 and 1.1 files (1.0: 8-byte values, tagged words; 1.1: the narrow widths; both
# with every tree field of every node) still load, and give their JSON twin's bytes (the twin is
# what grove writes for them today: every model file lists the whole parameter table, so the
# twin is rewritten with `grove convert forest-enc1.0.gvb forest-enc1.0.json` when it grows)
M=$SRC/tests/data/models
for e in 1.0 1.1; do
  expect_exit 0 "$GROVE" convert "$M/forest-enc$e.gvb" "$TMP/e.json"
  checks=$((checks + 1))
  cmp -s "$TMP/e.json" "$M/forest-enc1.0.json" || fail "encoding $e file: not its JSON twin"
done
# encoding 1.2 writes a tree's compact form (tree_component.c): smaller than 1.1
expect_exit 0 "$GROVE" convert "$M/forest-enc1.0.json" "$TMP/e12.gvb"
checks=$((checks + 1))
[[ $(stat -c %s "$TMP/e12.gvb") -lt $(stat -c %s "$M/forest-enc1.1.gvb") ]] ||
  fail "encoding 1.2 is not smaller than 1.1"

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

# the compact tree form (encoding 1.2) behind a valid checksum: every field a split, a leaf or a
# derivation reads is checked.  patch FILE OUT KEY ENTRY VALUE: sets entry ENTRY of the first
# tree's field KEY (a packed integer array: the first one by that name, or an integer field: ENTRY ignored, VALUE may be
# +N) or, with ENTRY "name", renames the key to VALUE (same length); rewrites the CRC
patch() {
  /usr/bin/python3 - "$@" <<'PY'
import struct, sys, zlib
src, out, key, entry, value = sys.argv[1:6]
b = bytearray(open(src, "rb").read()); p = 24; done = False
def dec(k):
    global p, done
    t = chr(b[p]); p += 1
    if t == "o":
        n = struct.unpack_from("<I", b, p)[0]; p += 4
        for _ in range(n):
            kl = struct.unpack_from("<I", b, p)[0]; p += 4
            name = b[p:p + kl].decode()
            if name == key and entry == "name" and not done:
                b[p:p + kl] = value.encode(); done = True
            p += kl
            dec(name)
    elif t == "a":
        n = struct.unpack_from("<I", b, p)[0]; p += 4
        for _ in range(n): dec(k)
    elif t == "s":
        n = struct.unpack_from("<Q", b, p)[0]; p += 8; p += (8 - p % 8) % 8
        if k == key and entry != "name" and not done and n >= 8 and b[p] == 1:
            kind, w = chr(b[p + 1]), b[p + 2]
            if kind == "W":
                j = p + 8
                for _ in range(w): j += 1 + b[j]
                b[j + int(entry)] = int(value)
            else:
                assert kind == "I", kind
                struct.pack_into({1: "<b", 2: "<h", 4: "<i", 8: "<q"}[w], b, p + 8 + int(entry) * w, int(value))
            done = True
        p += n
    elif t in "ir":
        if k == key and t == "i" and not done:
            old = struct.unpack_from("<q", b, p)[0]
            struct.pack_into("<q", b, p, old + int(value[1:]) if value[0] == "+" else int(value))
            done = True
        p += 8
dec("")
assert done, "no field " + key
n = len(b) - 24 - 16
b[-8:-4] = struct.pack("<I", zlib.crc32(bytes(b[24:24 + n])))
open(out, "wb").write(b)
PY
}
# a forest (level order, class weights) and a best-first tree (left and right stored)
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/bf.gvb" --algo tree --set growth=bestfirst --set max_leaves=8 -q
cases=(
  "d n_splits 0 +1:n_splits is"
  "d type 0 1:n_splits is"
  "d feature 0 127:feature 127 has no bins"
  "d default_left 0 2:default_left[0]: must be in [0, 1]"
  "d bin_split 0 0:bin_split 0 is not a cut point"
  "d bin_split 0 32000:bin_split 32000 is not a cut point"
  "d class_weights 0 -1:class_weights[0]: must be in [0,"
  "d class_weights name clazz_weights:unknown field 'clazz_weights'"
  "d bin_split name leaf_gain:bin_split: missing"
  "bf left 0 0:left child 0 is not a node after it"
  "bf right 0 99:right child 99 is not a node after it"
  "bf left name lefX:unknown field 'lefX'"
)
for c in "${cases[@]}"; do
  read -r f key entry value <<<"${c%%:*}"
  patch "$TMP/$f.gvb" "$TMP/bad.gvb" "$key" "$entry" "$value" || { fail "patch $c"; continue; }
  expect_exit 2 "$GROVE" predict "$TMP/bad.gvb" "$bc" -o "$TMP/x.csv"
  expect_in "$TMP/err" "bad.gvb: "
  expect_in "$TMP/err" "${c#*:}"
done
finish
