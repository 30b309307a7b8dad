#!/usr/bin/env bash
# The repository speaks of the project: no file in the source tree (README, docs, bench, src,
# include, python, tests, scripts, cli, fuzz, examples) names the numbered steps or tickets the
# work was organised in.  Tracked files when the tree is a git checkout, else every text file
# under the source root but build folders, bench/out and Python caches.  The pattern is put
# together from parts so that this file does not match it.
set -u
SRC=${GROVE_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
w1=st; w1+=op; w2=iss; w2+=ue
pattern="\\b${w1} [0-9]+|${w2} [0-9]+"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   git -C "$SRC" ls-files -z >"$TMP/files" 2>/dev/null && [[ -s "$TMP/files" ]]; then
  (cd "$SRC" && xargs -0 grep -nIE -- "$pattern" <"$TMP/files" 2>/dev/null) >"$TMP/hits"
  how="tracked files"
else
  (cd "$SRC" && grep -rnIE --exclude-dir=.git --exclude-dir='build*' --exclude-dir=__pycache__ \
     --exclude-dir='*.egg-info' --exclude-dir=out -- "$pattern" . 2>/dev/null | sed 's|^\./||') >"$TMP/hits"
  how="files under $SRC"
fi

# the check itself must see a match: a planted line is found, so an empty result means something
printf 'see %s 3 and %s 12\n' "$w1" "$w2" >"$TMP/planted"
if ! grep -qE -- "$pattern" "$TMP/planted"; then
  echo "FAIL: the pattern does not match a planted line" >&2
  exit 1
fi

if [[ -s "$TMP/hits" ]]; then
  echo "FAIL: $(wc -l <"$TMP/hits") line(s) in the $how speak of how the project was made:" >&2
  sed 's/^/  /' "$TMP/hits" | head -40 >&2
  exit 1
fi
echo "ok: no process words in the $how"
