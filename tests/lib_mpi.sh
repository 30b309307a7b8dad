# lib_mpi.sh -- helpers for the data-parallel shell tests (label mpi; sourced, not a test itself).
# GROVE_MPIRUN: the launcher with its options (from ctest); without mpirun the test is skipped.
# run_case NAME DATA ARGS...: `grove train DATA ARGS` in one process and under mpirun with 1, 2,
# 3 and 4 ranks (NPS overrides the list; GROVE_MPI_NPS, from ctest, the default: 1 2 3 in the
# sanitizer builds, where 4 ranks time-sharing 2 cores cost the most and the release suite has
# checked 4 already); every one of those model files must be the one-process file, byte for
# byte (one process takes the ranks' exact sums, docs/distributed.md).  When one differs,
# same_model says where (the first keys whose values differ).
# with_missing_and_weights IN OUT: IN with every 7th row's third column made empty (a missing
# value) and a last column w of weights 1 + (row mod 5) x 0.37 (not binary fractions).
source "$(dirname "$0")/lib_cli.sh"
RANKS=${GROVE_MPI_NPS:-1 2 3 4}
LAST_NP=${RANKS##* }
read -ra MPIRUN <<<"${GROVE_MPIRUN:-mpirun --oversubscribe --allow-run-as-root}"
command -v "${MPIRUN[0]}" >/dev/null || { echo "$(basename "$0"): no mpirun: skipped"; exit 0; }

# same_model A B: where two model files differ (the first keys whose values differ)
same_model() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p))["model"] for p in sys.argv[1:3])
bad = []
def walk(x, y, path):
    if isinstance(x, dict):
        if not isinstance(y, dict) or set(x) != set(y): bad.append(path + ": keys"); return
        for k in x: walk(x[k], y[k], path + "/" + k)
    elif isinstance(x, list):
        if not isinstance(y, list) or len(x) != len(y): bad.append(path + ": length"); return
        for i, (u, v) in enumerate(zip(x, y)): walk(u, v, "%s[%d]" % (path, i))
    elif x != y:
        bad.append("%s: %r vs %r" % (path, str(x)[:80], str(y)[:80]))
walk(a, b, "")
print("\n".join(bad[:5]), file=sys.stderr)
PY
}

with_missing_and_weights() { # IN OUT
  awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "w"; next }
    { if (NR % 7 == 0) $3 = ""; print $0, 1 + (NR % 5) * 0.37 }' "$1" > "$2"
}

run_case() { # NAME DATA ARGS...
  local name=$1 data=$2; shift 2
  expect_exit 0 "$GROVE" train "$data" -q -j 1 "$@" -o "$TMP/$name.plain" || return
  for np in ${NPS:-$RANKS}; do
    expect_exit 0 "${MPIRUN[@]}" -np $np "$GROVE" train "$data" -q -j 1 "$@" -o "$TMP/$name.$np" || return
  done
  for np in ${NPS:-$RANKS}; do
    checks=$((checks + 1))
    if ! cmp -s "$TMP/$name.plain" "$TMP/$name.$np"; then
      fail "$name: $np ranks wrote another model than one process"
      "$GROVE" convert "$TMP/$name.plain" "$TMP/$name.plain.json" 2>/dev/null &&
        "$GROVE" convert "$TMP/$name.$np" "$TMP/$name.$np.json" 2>/dev/null &&
        same_model "$TMP/$name.plain.json" "$TMP/$name.$np.json"
    fi
  done
}
