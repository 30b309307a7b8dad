#!/bin/sh
# Trains a forest and a gbdt on a generated news20-like LIBSVM file with grove and with XGBoost
# (xgb.py, same file, same thread count); prints wall and CPU time, peak RSS and model size.
# usage: bench/sparse/run.sh [BUILD_DIR]   (generates /tmp/grove-news20.svm once)
#   THREADS=2 (default), TOOLS="grove xgboost" (default: both), XGB_METHOD=exact (or hist, approx)
#   XGBoost runs under a memory cap (ulimit -v, MEM_CAP_KB, default 8 GiB) so that a run that
#   outgrows it fails alone instead of pushing the shared machine into swap or the OOM killer
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
data=${DATA:-/tmp/grove-news20.svm}
threads=${THREADS:-2}
tools=${TOOLS:-grove xgboost}
fmt="%e s wall, %U+%S s CPU, peak %M KB"
[ -f "$data" ] || /usr/bin/python3 "$here/gen_news20.py" "$data"
ls -l "$data"
for tool in $tools; do
  for algo in forest gbdt; do
    echo "== $tool $algo"
    if [ "$tool" = grove ]; then
      case $algo in
        forest) args="--algo forest --rounds 10" ;;
        gbdt) args="--algo gbdt --rounds 20 --set max_depth=6" ;;
      esac
      /usr/bin/time -f "$fmt" "$build/grove" train "$data" $args --set threads=$threads \
        -o /tmp/grove-news20.model
      echo "model: $(wc -c </tmp/grove-news20.model) bytes"
    else
      ( ulimit -v "${MEM_CAP_KB:-8388608}"
        /usr/bin/time -f "$fmt" /usr/bin/python3 "$here/xgb.py" "$data" $algo $threads \
          "${XGB_METHOD:-exact}" ) || echo "(failed: exit $?)"
    fi
  done
done
