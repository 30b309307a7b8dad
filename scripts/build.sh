#!/usr/bin/env bash
# Configures and builds build/ (Release, warnings as errors): the one build of scripts/demo.sh
# and scripts/test.sh, so that running both builds once.  Extra arguments go to cmake's
# configure step (scripts/test.sh passes its test timeout scale, which rebuilds nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGROVE_WERROR=ON "$@" >/dev/null
cmake --build build -j"$(nproc)" >build/build.log 2>&1 || { tail -40 build/build.log >&2; exit 1; }
