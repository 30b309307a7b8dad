#!/usr/bin/env bash
# Reproduces the published tables and refreshes docs/papers.md.
#
#   bench/papers/run.sh [GROVE_BIN] [DATA_DIR]        defaults: build/grove, /work/data
#   ONLY="breiman_1996 drucker_1993" bench/papers/run.sh     a subset (script names without .sh)
#
# Runs every table script bench/papers/NAME.sh (all but this one, in name order) as
# `NAME.sh GROVE_BIN DATA_DIR`.  The convention: a script prints ONE markdown section on stdout
# (a "## ..." title, a table with ours as mean ± s.e., the paper's number and the difference,
# and a few lines on why we differ), and progress or errors on stderr only.
# Each section is printed here as it finishes AND written into docs/papers.md between
#   <!-- papers:NAME begin --> ... <!-- papers:NAME end -->
# (replaced in place when present, appended otherwise; the text outside the markers is kept).
# A script that fails leaves its old section untouched; run.sh then exits 1 after the others ran.
# DATA_DIR is what ../shared/data/get-datasets.sh DIR makes.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
G=${1:-$ROOT/build/grove}
DATA=${2:-/work/data}
DOC=${DOC:-$ROOT/docs/papers.md}
[ -x "$G" ] || { echo "run.sh: grove binary $G not found (cmake --build build)" >&2; exit 1; }
[ -d "$DATA" ] || { echo "run.sh: data folder $DATA not found (../shared/data/get-datasets.sh DIR)" >&2; exit 1; }
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
failed=0
for script in "$HERE"/*.sh; do
  name=$(basename "$script" .sh)
  [ "$name" = run ] && continue
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  out=$(mktemp)
  start=$(date +%s)
  echo "== $name.sh" >&2
  if ! bash "$script" "$G" "$DATA" >"$out"; then
    echo "run.sh: $name.sh failed; docs/papers.md keeps its old section" >&2
    failed=1; rm -f "$out"; continue
  fi
  secs=$(( $(date +%s) - start ))
  cat "$out"; echo
  /usr/bin/python3 - "$DOC" "$name" "$out" "$commit" "$secs" <<'PY'
import datetime, os, sys
doc, name, out, commit, secs = sys.argv[1:]
body = open(out).read().rstrip("\n")
begin, end = "<!-- papers:%s begin -->" % name, "<!-- papers:%s end -->" % name
stamp = "<!-- bench/papers/%s.sh, grove %s, %s, %s s -->" % (
    name, commit, datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), secs)
block = "\n".join([begin, stamp, body, end])
text = open(doc).read() if os.path.exists(doc) else (
    "# Published tables, reproduced\n\n"
    "Regenerate every table with `bench/papers/run.sh [GROVE_BIN] [DATA_DIR]` (one command; "
    "the sections between the `papers:` markers are rewritten, the text around them is kept).\n")
i, j = text.find(begin), text.find(end)
if i >= 0 and j > i:
    text = text[:i] + block + text[j + len(end):]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
tmp = doc + ".tmp"
open(tmp, "w").write(text if text.endswith("\n") else text + "\n")
os.replace(tmp, doc)
PY
  rm -f "$out"
done
exit $failed
