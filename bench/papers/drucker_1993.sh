#!/usr/bin/env bash
# Drucker, Schapire & Simard 1993: boosting by filtering with neural networks, fed by an oracle
# of deformed images (filter.oracle=deform), on digits and fashion-MNIST: one network vs the
# committee of three, each network's error on its own filtered distribution, 3p^2 - 2p^3.
#   bench/papers/drucker_1993.sh [GROVE_BIN] [DATA_DIR]      SEEDS=2 DATASETS=digits for a quick look
exec /usr/bin/python3 "$(dirname "$0")/drucker_1993.py" "$@"
