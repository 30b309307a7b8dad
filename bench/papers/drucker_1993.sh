#!/usr/bin/env bash
# Drucker, Schapire & Simard 1993: boosting by filtering with neural networks, fed by an oracle
# of deformed images (filter.oracle=deform), on digits and fashion-MNIST: one network vs the
# committee of three, each network's error on its own filtered distribution, 3p^2 - 2p^3.
#   bench/papers/drucker_1993.sh [GROVE_BIN] [DATA_DIR]      SEEDS=2 DATASETS=digits for a quick look
# Scale (digits 10 seeds; fashion-MNIST 10,000 training / 10,000 test rows, 5 seeds; FASHION_N,
# FASHION_TEST, SEEDS, JOBS override): about 7 CPU-minutes.
exec /usr/bin/python3 "$(dirname "$0")/drucker_1993.py" "$@"
