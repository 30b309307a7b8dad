#!/usr/bin/env bash
# Models through pipes and devices: `grove info /dev/stdin` and `grove predict` read a model from
# a pipe (text, gzip, binary; once "empty file": the format sniff consumed the stream), and a
# full disk while writing predictions, a report or a model is reported as "No space left on
# device" (once "Input/output error"), with exit 2 and no partial file left.
source "$(dirname "$0")/lib_cli.sh"
expect_exit 0 "$GROVE" train "$DATA/house_votes84_train.csv" -o "$TMP/m.json" --set max_depth=3 -q
expect_exit 0 "$GROVE" convert "$TMP/m.json" "$TMP/m.gvb"
gzip -c "$TMP/m.json" >"$TMP/m.json.gz"
expect_exit 0 "$GROVE" info "$TMP/m.json"
cp "$TMP/out" "$TMP/info.want"
for f in m.json m.gvb m.json.gz; do
  checks=$((checks + 1))
  if ! "$GROVE" info /dev/stdin <"$TMP/$f" >"$TMP/out" 2>"$TMP/err"; then
    fail "grove info /dev/stdin < $f: $(cat "$TMP/err")"
  fi
  checks=$((checks + 1))
  if ! cat "$TMP/$f" | "$GROVE" predict /dev/stdin "$DATA/house_votes84_test.csv" -o "$TMP/p.csv" 2>"$TMP/err"; then
    fail "cat $f | grove predict /dev/stdin: $(cat "$TMP/err")"
  fi
done
# a FIFO
mkfifo "$TMP/fifo"
cat "$TMP/m.gvb" >"$TMP/fifo" &
expect_exit 0 timeout 20 "$GROVE" info "$TMP/fifo"
wait
# a full disk: /dev/full fails every write with ENOSPC
if [[ -w /dev/full ]]; then
  for cmd in "predict $TMP/m.json $DATA/house_votes84_test.csv" "report $TMP/m.json" \
             "train $DATA/house_votes84_train.csv -q" "convert $TMP/m.json"; do
    read -ra argv <<<"$cmd"
    if [[ ${argv[0]} == convert ]]; then argv+=(/dev/full); else argv+=(-o /dev/full); fi
    expect_exit 2 "$GROVE" "${argv[@]}"
    expect_in "$TMP/err" "/dev/full: cannot write: No space left on device"
  done
fi
finish
