#!/usr/bin/env bash
# Breiman 2001, "Random forests", Table 2: Forest-RI (F = 1, F = int(log2 M + 1), selection by OOB),
# one tree, the OOB estimate against the test error, twonorm/ringnorm with their Bayes errors
# (protocol and differences: breiman_2001.py's header).
#   bench/papers/breiman_2001.sh [GROVE_BIN] [DATA_DIR]      REPS=10 SYNTH_REPS=3 for a quick look
exec /usr/bin/python3 "$(dirname "$0")/breiman_2001.py" "$@"
