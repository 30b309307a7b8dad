#!/usr/bin/env bash
# Number-formatting benchmark: grove_format_double (core/dtoa.c) against printf's "%.17g" and
# the shortest-"%.{p}g" search the CLI used before, in numbers per CPU-second of one thread.
#
#   bench/format/run.sh [N]      # GROVE_BUILD=build (libgrove.a must be built there)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${GROVE_BUILD:-$ROOT/build}
OUT=$ROOT/bench/out
mkdir -p "$OUT"
cc -O2 -std=c11 -Wall -Wextra -I"$ROOT/include" "$ROOT/bench/format/format_speed.c" "$BUILD/libgrove.a" \
  -lm -lz -fopenmp -lpthread -o "$OUT/format_speed"
"$OUT/format_speed" "${1:-2000000}"
