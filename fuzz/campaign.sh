#!/usr/bin/env bash
# A long fuzz campaign: every target in turn (never two at once), SECONDS each, at nice NICE (19),
# each growing its own corpus in WORK/corpus/<name>/ (seeded from fuzz/corpus/<name>/, which is
# never written), findings in WORK/findings/<name>/.  One summary row per target is appended to
# WORK/summary.tsv: target, seconds, executions, execs/s, coverage (edges) and features after
# the seeds (INITED) and at the end (DONE), corpus size, peak RSS, findings.
# Usage: fuzz/campaign.sh BUILD_FUZZ_DIR WORK SECONDS [target...]   (default: every target)
set -uo pipefail
build=$1 work=$2 secs=$3; shift 3
src=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(csv libsvm model params cmdline image cascade roundtrip)
mkdir -p "$work"
[ -f "$work/summary.tsv" ] ||
  printf 'target\tseconds\texecs\texecs_per_s\tcov_seeds\tft_seeds\tcov_end\tft_end\tcorpus\tpeak_rss_mb\tfindings\tcpu_s\n' \
    > "$work/summary.tsv"
for t in "${targets[@]}"; do
  corpus=$work/corpus/$t findings=$work/findings/$t log=$work/log-$t.txt
  mkdir -p "$corpus" "$findings"
  # the scratch directory is the working directory: targets write their temporary files there
  scratch=$(mktemp -d)
  dict=(); [[ -f "$src/$t.dict" ]] && dict=(-dict="$src/$t.dict") # fuzz/<target>.dict (model, params, roundtrip)
  (cd "$scratch" && nice -n "${NICE:-19}" /usr/bin/time -f '%U %S' -o "$work/cpu-$t.txt" "$build/fuzz_$t" -max_total_time="$secs" -timeout=20 \
     "${dict[@]}" -rss_limit_mb=3072 -artifact_prefix="$findings/" -close_fd_mask=3 -print_final_stats=1 \
     "$corpus" "$src/corpus/$t") > "$log" 2>&1
  rm -rf "$scratch"
  inited=$(grep -m1 'INITED' "$log")
  done_=$(grep 'DONE\|pulse\|NEW\|REDUCE' "$log" | tail -1)
  field() { sed -n "s/.* $1: \([0-9]*\).*/\1/p" <<<"$2"; }
  cpu=$(awk 'END { printf "%.0f", $1 + $2 }' "$work/cpu-$t.txt")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$secs" \
    "$(sed -n 's/stat::number_of_executed_units: *//p' "$log")" \
    "$(sed -n 's/stat::average_exec_per_sec: *//p' "$log")" \
    "$(field cov "$inited")" "$(field ft "$inited")" "$(field cov "$done_")" "$(field ft "$done_")" \
    "$(find "$corpus" -type f | wc -l)" "$(sed -n 's/stat::peak_rss_mb: *//p' "$log")" \
    "$(find "$findings" -type f | wc -l)" "$cpu" >> "$work/summary.tsv"
done
