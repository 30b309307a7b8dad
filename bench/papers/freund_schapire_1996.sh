#!/usr/bin/env bash
# Freund & Schapire 1996, Table 2: stumps and C4.5-like trees alone, boosted (M1, M2) and bagged
# (freund_schapire_1996.py).   bench/papers/freund_schapire_1996.sh [GROVE_BIN] [DATA_DIR]  REPS=10
exec /usr/bin/python3 "$(dirname "$0")/freund_schapire_1996.py" "$@"
