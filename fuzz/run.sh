#!/usr/bin/env bash
# Runs one fuzz target for SECONDS on a scratch copy of its seed corpus (the repo's corpus is
# never written), with ASan/UBSan in the target; fails on any crash, leak, timeout or OOM.
# Usage: fuzz/run.sh FUZZ_EXE CORPUS_DIR SECONDS [libFuzzer options...]
set -euo pipefail
exe=$1 corpus=$2 secs=$3; shift 3
# the target's dictionary, fuzz/<name>.dict, when there is one (fuzz_model, fuzz_params, fuzz_roundtrip)
dict=$(cd "$(dirname "$0")" && pwd)/$(basename "$corpus").dict
[[ -f "$dict" ]] && set -- -dict="$dict" "$@"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -r "$corpus"/. "$work/"
artifacts=$(pwd)/
cd "$work"
# -close_fd_mask=3: grove's messages on stdout/stderr are noise here; libFuzzer keeps its own
# copy of stderr for its reports.
"$exe" -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 -artifact_prefix="$artifacts" \
  -close_fd_mask=3 -print_final_stats=1 "$@" "$work"
