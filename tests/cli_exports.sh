# cli_exports.sh -- libgrove.so exports the public API of include/grove.h and nothing else.
#
# The library is built with hidden visibility and grove.h marks its declarations GROVE_API, so
# `nm -D` lists exactly the grove_* functions the header declares: no internal gv_* name (nor
# anything else) becomes an interface a program could start to depend on.
source "$(dirname "$0")/lib_cli.sh"
LIB=${GROVE_LIB:-${GROVE_BIN:-build}/libgrove.so}
checks=$((checks + 1))
if [[ ! -e $LIB ]]; then
  fail "no shared library at $LIB"
else
  nm -D --defined-only "$LIB" | awk '{print $NF}' | sort -u >"$TMP/exported"
  grep -o 'grove_[a-z0-9_]*(' "$SRC/include/grove.h" | tr -d '(' | sort -u >"$TMP/declared"
  checks=$((checks + 1))
  extra=$(comm -23 "$TMP/exported" "$TMP/declared")
  [[ -z $extra ]] || fail "exported but not declared in grove.h: $(echo $extra | head -c 400)"
  checks=$((checks + 1))
  missing=$(comm -13 "$TMP/exported" "$TMP/declared")
  [[ -z $missing ]] || fail "declared in grove.h but not exported: $(echo $missing | head -c 400)"
fi
finish
