#!/usr/bin/env bash
# Breiman 1996, "Bagging predictors", Table 2: single tree vs 50 bagged trees over 100 random
# 90/10 splits (protocol and differences: breiman_1996.py's header).
#   bench/papers/breiman_1996.sh [GROVE_BIN] [DATA_DIR]      REPS=10 for a quick look
exec /usr/bin/python3 "$(dirname "$0")/breiman_1996.py" "$@"
