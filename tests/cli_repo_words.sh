#!/usr/bin/env bash
# The repository speaks of the project: no file in the source tree (README, docs, bench, src,
# include, python, tests, scripts, cli, fuzz, examples) names the numbered steps or tickets the
# work was organised in.  Tracked files when the tree is a git checkout, else every text file
# under the source root but build folders, bench/out and Python caches.  The pattern is put
# together from parts so that this file does not match it.  Also: no file cites a design
# document the repository lacks, docs/model-format.md names the format version the code writes,
# and docs/architecture.md names every folder of src/ and every file of the tree engine.
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

fails=0
if [[ -s "$TMP/hits" ]]; then
  echo "FAIL: $(wc -l <"$TMP/hits") line(s) in the $how speak of how the project was made:" >&2
  sed 's/^/  /' "$TMP/hits" | head -40 >&2
  fails=$((fails + 1))
fi

# no file cites a design document the repository does not have
design=DESI; design+=GN.md
if [[ ! -e "$SRC/$design" ]]; then
  cites=$(cd "$SRC" && grep -rlF --exclude-dir=.git --exclude-dir='build*' --exclude-dir=out \
            -- "$design" README.md docs src include cli python tests scripts bench fuzz examples 2>/dev/null)
  if [[ -n "$cites" ]]; then
    echo "FAIL: cites $design, which the repository does not have: $(echo $cites)" >&2
    fails=$((fails + 1))
  fi
fi

# docs/model-format.md names the format version src/model/model_int.h reads and writes
minor=$(sed -n 's/^#define GV_MODEL_FORMAT_MINOR \([0-9]*\).*/\1/p' "$SRC/src/model/model_int.h")
major=$(sed -n 's/^#define GV_MODEL_FORMAT_MAJOR \([0-9]*\).*/\1/p' "$SRC/src/model/model_int.h")
fmt=$SRC/docs/model-format.md
if [[ -z "$minor" || -z "$major" ]]; then
  echo "FAIL: no GV_MODEL_FORMAT_MAJOR/MINOR in src/model/model_int.h" >&2; fails=$((fails + 1))
else
  head -1 "$fmt" | grep -qF "format $major.$minor" ||
    { echo "FAIL: model-format.md's title is not format $major.$minor" >&2; fails=$((fails + 1)); }
  grep -qF "this page is \`[$major, $minor]\`" "$fmt" ||
    { echo "FAIL: model-format.md's version row does not say [$major, $minor]" >&2; fails=$((fails + 1)); }
  others=$(grep -o "this page is \`\[[0-9]*, [0-9]*\]\`" "$fmt" | grep -vF "[$major, $minor]")
  [[ -z "$others" ]] ||
    { echo "FAIL: model-format.md also says $others" >&2; fails=$((fails + 1)); }
fi

# docs/architecture.md names every folder of src/ and every file of the tree engine
arch=$SRC/docs/architecture.md
for d in "$SRC"/src/*/; do
  d=$(basename "$d")
  grep -qF "\`src/$d/\`" "$arch" || { echo "FAIL: architecture.md lacks src/$d/" >&2; fails=$((fails + 1)); }
done
for f in "$SRC"/src/learn/tree*.c "$SRC"/src/learn/hist*.c "$SRC"/src/learn/split.c "$SRC"/src/learn/plan.c; do
  f=$(basename "$f")
  grep -qF "\`$f\`" "$arch" || { echo "FAIL: architecture.md's tree engine lacks $f" >&2; fails=$((fails + 1)); }
done

[[ $fails -eq 0 ]] || exit 1
echo "ok: no process words in the $how; docs name what the tree has"
