#!/usr/bin/env bash
# Output paths: every output of the CLI and model saves go through grove_output.
# Devices, FIFOs and "-" are written straight through (never replaced: CI runs as root, so
# /dev/null is checked to stay a character device); a symlink's target is replaced and the
# link kept; an output that is an input is refused; every output option is checked before
# training, so a bad --log leaves the old model intact; new files get 0666 minus the umask.
source "$(dirname "$0")/lib_cli.sh"

train=$DATA/breast_cancer_train.csv
test=$DATA/breast_cancer_test.csv
expect_exit 0 "$GROVE" train "$train" -o "$TMP/m" --set max_depth=3 -q
expect_exit 0 "$GROVE" predict "$TMP/m" "$test" -o "$TMP/ref.csv"

# character devices: written through, still a device afterwards
expect_exit 0 "$GROVE" predict "$TMP/m" "$test" -o /dev/null
[[ -c /dev/null ]] || fail "/dev/null is no longer a character device"
expect_exit 0 "$GROVE" train "$train" -o /dev/null --set max_depth=2 -q
[[ -c /dev/null ]] || fail "/dev/null is no longer a character device after train -o"
expect_exit 0 "$GROVE" export "$TMP/m" --lang c -o /dev/null
[[ -c /dev/null ]] || fail "/dev/null is no longer a character device after export -o"
# "-" and /dev/stdout are standard output (here a file behind the shell's redirection)
expect_exit 0 "$GROVE" predict "$TMP/m" "$test" -o -
cmp -s "$TMP/out" "$TMP/ref.csv" || fail "predict -o - differs from -o FILE"
expect_exit 0 "$GROVE" predict "$TMP/m" "$test" -o /dev/stdout
cmp -s "$TMP/out" "$TMP/ref.csv" || fail "predict -o /dev/stdout differs from -o FILE"
[[ -L /dev/stdout || -c /dev/stdout ]] || fail "/dev/stdout was replaced"
# through a pipe: grove writes into the pipe, the model arrives whole
"$GROVE" train "$train" -o - --set max_depth=3 -q | cat >"$TMP/piped.model"
"$GROVE" info "$TMP/piped.model" >/dev/null 2>&1 || fail "train -o - | cat: not a loadable model"

# a FIFO with a reader: written through, still a FIFO afterwards
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/from_fifo.csv" &
reader=$!
expect_exit 0 timeout 60 "$GROVE" predict "$TMP/m" "$test" -o "$TMP/fifo"
wait "$reader"
[[ -p "$TMP/fifo" ]] || fail "the FIFO was replaced"
cmp -s "$TMP/from_fifo.csv" "$TMP/ref.csv" || fail "the FIFO's reader got other bytes"

# a symlink: its target is replaced atomically, the link stays a link to it
mkdir "$TMP/real"
echo old >"$TMP/real/pred.csv"
ln -s real/pred.csv "$TMP/link.csv"
expect_exit 0 "$GROVE" predict "$TMP/m" "$test" -o "$TMP/link.csv"
[[ -L "$TMP/link.csv" ]] || fail "the symlink was replaced by a file"
[[ $(readlink "$TMP/link.csv") == real/pred.csv ]] || fail "the symlink points elsewhere now"
cmp -s "$TMP/real/pred.csv" "$TMP/ref.csv" || fail "the symlink's target was not written"
# a chain of links and a dangling link (the target is created) for a model
ln -s link2 "$TMP/link1" && ln -s real/new.model "$TMP/link2"
expect_exit 0 "$GROVE" train "$train" -o "$TMP/link1" --set max_depth=3 -q
[[ -L "$TMP/link1" && -L "$TMP/link2" && -f "$TMP/real/new.model" ]] ||
  fail "a chain of links ending nowhere: the target was not created"
cmp -s "$TMP/real/new.model" "$TMP/m" || fail "the model through two links differs"

# an output that is an input: refused, the input untouched
cp "$train" "$TMP/data.csv"
cp "$TMP/m" "$TMP/m.keep"
expect_exit 2 "$GROVE" train "$TMP/data.csv" -o "$TMP/data.csv" -q
expect_in "$TMP/err" "is also an input"
cmp -s "$TMP/data.csv" "$train" || fail "train -o DATA overwrote its input"
expect_exit 2 "$GROVE" predict "$TMP/m" "$TMP/data.csv" -o "$TMP/data.csv"
expect_in "$TMP/err" "$TMP/data.csv: is also an input"
cmp -s "$TMP/data.csv" "$train" || fail "predict -o DATA overwrote its input"
expect_exit 2 "$GROVE" predict "$TMP/m" "$test" -o "$TMP/m"
cmp -s "$TMP/m" "$TMP/m.keep" || fail "predict -o MODEL overwrote the model"
ln "$TMP/data.csv" "$TMP/hardlink.csv"   # another name, the same inode
expect_exit 2 "$GROVE" train "$TMP/data.csv" -o "$TMP/hardlink.csv" -q
ln -s data.csv "$TMP/datalink.csv"        # a symlink to the input
expect_exit 2 "$GROVE" predict "$TMP/m" "$TMP/data.csv" -o "$TMP/datalink.csv"
cmp -s "$TMP/data.csv" "$train" || fail "an input was overwritten through another name"
expect_exit 2 "$GROVE" train "$TMP/data.csv" -o "$TMP/m2" --log "$TMP/data.csv" --algo adaboost -q
[[ -e "$TMP/m2" ]] && fail "train wrote a model although --log was an input"
# a folder is not an output
expect_exit 2 "$GROVE" predict "$TMP/m" "$test" -o "$TMP/real"
expect_in "$TMP/err" "is a folder"

# every output option is checked before training: a bad --log leaves the old model intact
cp "$TMP/m" "$TMP/old.model"
touch -d '2001-01-01' "$TMP/old.model"
expect_exit 2 "$GROVE" train "$train" -o "$TMP/old.model" --algo adaboost -r 5 \
  --log "$TMP/no/such/folder/log.csv" -q
expect_in "$TMP/err" "no/such/folder/log.csv"
cmp -s "$TMP/old.model" "$TMP/m" || fail "a bad --log path changed the old model"
[[ $(stat -c %Y "$TMP/old.model") -eq $(date -d 2001-01-01 +%s) ]] || fail "the old model was rewritten"
# a bad -o path fails before the log is written
expect_exit 2 "$GROVE" train "$train" -o "$TMP/no/such/m" --algo adaboost -r 5 --log "$TMP/l.csv" -q
[[ -e "$TMP/l.csv" ]] && fail "a log was written although -o was bad"
# a --log that the model cannot fill (no rounds) is an error that writes neither file
expect_exit 1 "$GROVE" train "$train" -o "$TMP/old.model" --log "$TMP/l.csv" -q
cmp -s "$TMP/old.model" "$TMP/m" || fail "a failed --log replaced the old model"
[[ -e "$TMP/l.csv" ]] && fail "a failed --log left a log"
# no temporary files are left behind by any of the above
ls -a "$TMP" "$TMP/real" | grep -q '\.grove-tmp-' && fail "temporary files left behind"

# modes: 0666 minus the umask for every new output; a replaced file keeps its permissions
for mask in 022 027 077; do
  want=$(printf '%o' $((0666 & ~8#$mask)))
  rm -f "$TMP/mode.model" "$TMP/mode.log" "$TMP/mode.csv" "$TMP/mode.c"
  (umask $mask
   "$GROVE" train "$train" -o "$TMP/mode.model" --algo adaboost -r 3 --log "$TMP/mode.log" -q &&
   "$GROVE" predict "$TMP/mode.model" "$test" -o "$TMP/mode.csv" &&
   "$GROVE" export "$TMP/mode.model" --lang c -o "$TMP/mode.c") || fail "umask $mask: a command failed"
  for f in mode.model mode.log mode.csv mode.c; do
    checks=$((checks + 1))
    got=$(stat -c %a "$TMP/$f")
    [[ $got == "$want" ]] || fail "umask $mask: $f has mode $got, wanted $want"
  done
done
chmod 600 "$TMP/mode.csv"
expect_exit 0 "$GROVE" predict "$TMP/mode.model" "$test" -o "$TMP/mode.csv"
[[ $(stat -c %a "$TMP/mode.csv") == 600 ]] || fail "a replaced file lost its mode 600"

# train -o -: standard output carries the model alone, the summary goes to stderr
"$GROVE" train "$train" -o - --set max_depth=3 >"$TMP/stdout.model" 2>"$TMP/stdout.err" || fail "train -o - failed"
"$GROVE" info "$TMP/stdout.model" >/dev/null 2>&1 || fail "train -o -: standard output is not a loadable model"
grep -q "^trained tree" "$TMP/stdout.err" || fail "train -o -: the summary is not on stderr"
cmp -s "$TMP/stdout.model" <("$GROVE" train "$train" -o - --set max_depth=3 -q) || fail "train -o -: other bytes than with -q"

# -o and --log naming one file (also through another spelling) are refused before training
cp "$TMP/m" "$TMP/keep.model"
expect_exit 1 "$GROVE" train "$train" -o "$TMP/keep.model" --algo adaboost -r 3 --log "$TMP/keep.model"
expect_in "$TMP/err" "is also the model's output (-o)"
expect_exit 1 "$GROVE" train "$train" -o "$TMP/new.model" --algo adaboost -r 3 --log "$TMP/./new.model"
[[ -e "$TMP/new.model" ]] && fail "a refused -o/--log pair wrote the model"
cmp -s "$TMP/keep.model" "$TMP/m" || fail "a refused -o/--log pair touched the old model"

# the vision outputs (cascade files, drawn pictures) go through grove_output too
face=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
if [[ -r $face ]]; then
  touch "$TMP/real.json"
  ln -s real.json "$TMP/link.json"
  expect_exit 0 "$GROVE" cascade convert "$face" "$TMP/link.json"
  [[ -L "$TMP/link.json" && -s "$TMP/real.json" ]] || fail "cascade convert replaced a symlink instead of its target"
  expect_exit 0 "$GROVE" cascade convert "$TMP/real.json" "$TMP/back.xml"
  ln -s back2.xml "$TMP/link.xml"
  expect_exit 0 "$GROVE" cascade convert "$TMP/real.json" "$TMP/link.xml"
  [[ -L "$TMP/link.xml" ]] && cmp -s "$TMP/back2.xml" "$TMP/back.xml" || fail "OpenCV XML through a symlink"
  ln -s drawn.png "$TMP/link.png"
  expect_exit 0 "$GROVE" detect "$face" "$SRC/tests/data/vision/astronaut.pgm" --draw "$TMP/link.png" -o /dev/null
  [[ -L "$TMP/link.png" && -s "$TMP/drawn.png" ]] || fail "detect --draw replaced a symlink instead of its target"
  [[ -c /dev/null ]] || fail "/dev/null is no longer a character device after detect"
fi

finish
