#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds grove, runs ctest (labels unit, cli, python
# tests); then builds again with AddressSanitizer + UndefinedBehaviorSanitizer and runs the
# suite once more; then the concurrency stress test under ThreadSanitizer (label tsan); then
# builds the libFuzzer targets (fuzz/, clang) and runs each for GROVE_FUZZ_SECONDS (default 30)
# on its seed corpus.  Usage: scripts/test.sh [--no-sanitize]
# (--no-sanitize also skips the ThreadSanitizer and fuzz steps, which are sanitizer builds).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGROVE_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
if [[ "${1:-}" != "--no-sanitize" ]]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGROVE_SANITIZE=ON -DGROVE_WERROR=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  # OpenMP's runtime keeps thread pools alive at exit; leak checks stay on for our code.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j"$jobs" -LE python)
  # ThreadSanitizer: the concurrency stress test (label tsan), built without OpenMP and MPI
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGROVE_TSAN=ON -DGROVE_MPI=OFF \
    >/dev/null
  cmake --build build-tsan -j"$jobs"
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -L tsan)
  CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGROVE_FUZZ=ON \
    -DGROVE_FUZZ_SECONDS="${GROVE_FUZZ_SECONDS:-30}" >/dev/null
  cmake --build build-fuzz -j"$jobs"
  (cd build-fuzz && ctest --output-on-failure -j"$jobs" -L fuzz)
fi
echo "all tests passed"
