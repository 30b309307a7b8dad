#!/bin/sh
# Trains a forest and a gbdt on a generated news20-like LIBSVM file; prints time and peak RSS.
# usage: bench/sparse/run.sh [BUILD_DIR]   (generates /tmp/grove-news20.svm once)
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
data=${DATA:-/tmp/grove-news20.svm}
[ -f "$data" ] || /usr/bin/python3 "$here/gen_news20.py" "$data"
for algo in "forest --rounds 10" "gbdt --rounds 20 --set max_depth=6"; do
  echo "== $algo"
  /usr/bin/time -f "%e s, peak %M KB" "$build/grove" train "$data" --algo $algo -o /tmp/grove-news20.model -q
done
