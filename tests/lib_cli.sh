# lib_cli.sh -- helpers for the shell tests of the `grove` CLI (sourced, not a test itself).
# GROVE (the binary) and GROVE_SRC (the source root) come from ctest's environment.
set -u
GROVE=${GROVE:-build/grove}
SRC=${GROVE_SRC:-.}
DATA=$SRC/examples/data
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# expect_exit CODE CMD...: runs CMD, stdout -> $TMP/out, stderr -> $TMP/err; checks the status.
expect_exit() {
  local want=$1; shift
  checks=$((checks + 1))
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    fail "exit $got (wanted $want): $*"
    sed 's/^/  stderr: /' "$TMP/err" | head -5 >&2
    return 1
  fi
  return 0
}
# expect_in FILE TEXT: FILE contains TEXT (fixed string).
expect_in() {
  checks=$((checks + 1))
  grep -qF -- "$2" "$1" || { fail "$1 lacks '$2'"; sed 's/^/  | /' "$1" | head -8 >&2; }
}
finish() {
  echo "$(basename "$0"): $checks checks, $fails failed"
  [[ $fails -eq 0 ]]
}
