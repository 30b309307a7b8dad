#!/usr/bin/env bash
# AdaBoost.M2 with pseudo-loss stumps vs its former gini stumps, M1 and SAMME (m2_table.py).
#   bench/papers/m2_table.sh [GROVE_BIN] [DATA_DIR]      ROUNDS=300
exec /usr/bin/python3 "$(dirname "$0")/m2_table.py" "$@"
