#!/usr/bin/env bash
# Data-parallel averaging ensembles (label mpi; docs/distributed.md): forests, extra-trees and
# bagging of trees under `mpirun -np N grove train` write the same model file, byte for byte,
# for N = 1, 2, 3 and 4 ranks -- the members, and the out-of-bag error curve and |S_m| stored in
# the model -- and for classification without sample weights that file is the one-process file itself (replicates
# drawn over the global row numbers from the model's stream, class counts summed over the
# ranks, OOB errors and counts summed as integers); with sample weights (rounded to dist.h's
# grid) the one-process model agrees within 1e-9.  Cases: a forest on 10 classes (500 rows), extra-trees,
# bagging depth-4 trees on a file sorted by class, a forest drawing 60% without replacement, and
# a weighted forest; regression forests, extra-trees, bagging and a single tree (within 1e-12
# of one process: their sums are exact on dist.h's grid, one process's are not rounded).  OOB
# importances are refused by name.
source "$(dirname "$0")/lib_mpi.sh"
D=$SRC/examples/data

# exact: the 1-rank file is the one-process file
same_as_plain() {
  checks=$((checks + 1))
  cmp -s "$TMP/$1.plain" "$TMP/$1.1" || fail "$1: the 1-rank model is not the one-process model"
}
# digits' first 500 rows (all 10 classes): full-depth trees of fewer nodes, each node a collective
head -501 "$D/digits_train.csv" > "$TMP/digits.csv"
run_case forest "$TMP/digits.csv" -a forest -r 10
same_as_plain forest
run_case extra "$TMP/digits.csv" -a extra-trees -r 10
same_as_plain extra
run_case bagging_sorted "$D/glass_train.csv" -a bagging -r 10 --set base.max_depth=4
same_as_plain bagging_sorted
run_case forest_noreplace "$D/breast_cancer_train.csv" -a forest -r 10 --set bagging.replace=false \
  --set sample_fraction=0.6
same_as_plain forest_noreplace
# the OOB error and |S| the model reports: one process's
"$GROVE" info "$TMP/forest.plain" | grep -E "^ *oob_(error|n):" > "$TMP/info.plain"
"$GROVE" info "$TMP/forest.$LAST_NP" | grep -E "^ *oob_(error|n):" > "$TMP/info.4"
checks=$((checks + 1))
[[ $(wc -l < "$TMP/info.plain") -eq 2 ]] && cmp -s "$TMP/info.plain" "$TMP/info.4" ||
  fail "grove info: the OOB error and |S| of 1 process and $LAST_NP ranks differ (or are missing)"

awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "w"; next } { print $0, 1 + (NR % 5) * 0.37 }' \
  "$D/breast_cancer_train.csv" > "$TMP/weighted.csv"
run_case forest_weighted "$TMP/weighted.csv" -a forest -r 8 --weight w

# regression: the sums of w, w y, w y^2 on dist.h's grid (exact over the ranks, not one
# process's unrounded sums): 1-4 ranks byte-identical, the one-process model the same trees,
# features and thresholds with every number and prediction within 1e-12, but the splits'
# stored gains (differences of sums of squares: 1e-9)
TOL=1e-12 GAIN_TOL=1e-9 run_case forest_reg "$D/boston_housing_train.csv" -a forest -r 10
TOL=1e-12 GAIN_TOL=1e-9 run_case extra_reg "$D/boston_housing_train.csv" -a extra-trees -r 10
TOL=1e-12 GAIN_TOL=1e-9 run_case bagging_reg "$D/boston_housing_train.csv" -a bagging -r 6 --set base.max_depth=5
TOL=1e-12 GAIN_TOL=1e-9 run_case tree_reg "$D/boston_housing_train.csv" -a tree --set max_depth=8
awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "w"; next } { print $0, 1 + (NR % 5) * 0.37 }' \
  "$D/boston_housing_train.csv" > "$TMP/weighted_reg.csv"
# (weights that are not binary fractions: one process's node total less its bins leaves a
# rounding residue as the weight of missing values, which no row has, and that can flip a
# node's default_left -- the direction no row takes; the ranks' exact sums leave none)
SKIP=default_left TOL=1e-12 GAIN_TOL=1e-9 run_case forest_reg_weighted "$TMP/weighted_reg.csv" -a forest -r 6 --weight w
expect_exit 1 "${MPIRUN[@]}" -np 2 "$GROVE" train "$TMP/digits.csv" -a forest --set oob_importance=true -o "$TMP/imp"
expect_in "$TMP/err" "oob_importance: not supported in data-parallel training"
finish
