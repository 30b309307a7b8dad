#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds grove (scripts/build.sh, the build
# scripts/demo.sh made, if any), runs ctest (labels unit, cli, python, mpi); then makes three
# sanitizer builds at once (AddressSanitizer + UndefinedBehaviorSanitizer, ThreadSanitizer, the
# libFuzzer targets with clang) and runs the suite once more under ASan + UBSan (of Python, only
# the estimators' thread race), the concurrency stress test under TSan (label tsan), and each fuzz
# target for GROVE_FUZZ_SECONDS (default 30) on its seed corpus.  Each phase prints one line with the time since the start;
# tests/README.md has each phase's cost.  Test timeouts scale with the load:
# GROVE_TEST_TIMEOUT_SCALE (default 1 + the load average per CPU, at the start) multiplies
# every ctest timeout, three times that in the sanitizer builds.
# Usage: scripts/test.sh [--no-sanitize]
# (--no-sanitize also skips the ThreadSanitizer and fuzz steps, which are sanitizer builds).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
phase() { printf '== %02d:%02d %s\n' $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)) "$*"; }
jobs=$(nproc)
scale=${GROVE_TEST_TIMEOUT_SCALE:-$((1 + $(cut -d. -f1 /proc/loadavg 2>/dev/null || echo 0) / jobs))}
unset GROVE_TEST_TIMEOUT_SCALE # passed to cmake below, per build
phase "dependencies"
scripts/deps.sh
phase "release build (build/)"
scripts/build.sh -DGROVE_TEST_TIMEOUT_SCALE="$scale"
phase "release tests (timeouts x$scale)"
(cd build && ctest --output-on-failure -j"$jobs")
if [[ "${1:-}" != "--no-sanitize" ]]; then
  # The three sanitizer builds at once (no test runs meanwhile, so no timeout is at stake): each
  # one's serial stretches (configure, its longest file, links) overlap the others' compiles.
  phase "sanitizer builds at once: ASan + UBSan (build-asan/), TSan (build-tsan/), libFuzzer (build-fuzz/)"
  build_asan() {
    # -O1, as AddressSanitizer's documentation advises: a quarter of -O0's test time, every
    # check the same
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" \
      -DGROVE_SANITIZE=ON -DGROVE_WERROR=ON \
      -DGROVE_TEST_TIMEOUT_SCALE=$((3 * scale)) >/dev/null &&
      cmake --build build-asan -j"$jobs" >build-asan/build.log 2>&1
  }
  # ThreadSanitizer: the concurrency stress test (label tsan), built without OpenMP and MPI
  build_tsan() {
    cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGROVE_TSAN=ON -DGROVE_MPI=OFF \
      -DGROVE_TEST_TIMEOUT_SCALE=$((3 * scale)) >/dev/null &&
      cmake --build build-tsan -j"$jobs" --target test_concurrency >build-tsan/build.log 2>&1
  }
  # the fuzz targets only (fuzz_targets: not the CLI, not the shared library)
  build_fuzz() {
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGROVE_FUZZ=ON \
      -DGROVE_FUZZ_SECONDS="${GROVE_FUZZ_SECONDS:-30}" -DGROVE_TEST_TIMEOUT_SCALE=$((3 * scale)) >/dev/null &&
      cmake --build build-fuzz -j"$jobs" --target fuzz_targets >build-fuzz/build.log 2>&1
  }
  build_asan & asan_pid=$!
  build_tsan & tsan_pid=$!
  build_fuzz & fuzz_pid=$!
  failed=
  for b in asan:$asan_pid tsan:$tsan_pid fuzz:$fuzz_pid; do
    wait "${b#*:}" || { failed=1; echo "build-${b%:*} failed:"; tail -40 "build-${b%:*}/build.log" 2>/dev/null; }
  done
  [[ -z $failed ]] || exit 1
  phase "ASan + UBSan tests (timeouts x$((3 * scale)))"
  # OpenMP's runtime keeps thread pools alive at exit; leak checks stay on for our code.
  # Of the Python tests, only the thread race (label asan_python: predictions while another thread
  # refits; the interpreter with the ASan runtime preloaded over the ASan libgrove), in the same
  # ctest run as the rest: every label but python's (tests/CMakeLists.txt labels every test).
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j"$jobs" -L '^(unit|cli|mpi|asan_python)$')
  phase "TSan test (build-tsan/)"
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -L tsan)
  phase "libFuzzer runs (build-fuzz/, ${GROVE_FUZZ_SECONDS:-30} s each)"
  (cd build-fuzz && ctest --output-on-failure -j"$jobs" -L fuzz)
fi
phase "all tests passed"
