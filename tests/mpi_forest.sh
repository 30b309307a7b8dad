#!/usr/bin/env bash
# Data-parallel averaging ensembles (label mpi; docs/distributed.md): forests, extra-trees and
# bagging of trees under `mpirun -np N grove train` write the same model file, byte for byte,
# for N = 1, 2, 3 and 4 ranks -- the members, and the out-of-bag error curve and |S_m| stored in
# the model -- and that file is the one-process file itself (replicates drawn over the global
# row numbers from the model's stream, class counts summed over the ranks, OOB errors and
# counts summed as integers; sample weights and regression sums on dist.h's grid, in one
# process too).  Cases: a forest on 10 classes (500 rows), extra-trees, bagging depth-4 trees
# on a file sorted by class, a forest drawing 60% without replacement, and a weighted forest;
# regression forests, extra-trees, bagging and a single tree; sample weights with missing
# values (classification and regression).  OOB importances are refused by name.
source "$(dirname "$0")/lib_mpi.sh"
D=$SRC/examples/data

# digits' first 500 rows (all 10 classes): full-depth trees of fewer nodes, each node a collective
head -501 "$D/digits_train.csv" > "$TMP/digits.csv"
run_case forest "$TMP/digits.csv" -a forest -r 10
run_case extra "$TMP/digits.csv" -a extra-trees -r 10
run_case bagging_sorted "$D/glass_train.csv" -a bagging -r 10 --set base.max_depth=4
run_case forest_noreplace "$D/breast_cancer_train.csv" -a forest -r 10 --set bagging.replace=false \
  --set sample_fraction=0.6
# the OOB error and |S| the model reports: one process's
"$GROVE" info "$TMP/forest.plain" | grep -E "^ *oob_(error|n):" > "$TMP/info.plain"
"$GROVE" info "$TMP/forest.$LAST_NP" | grep -E "^ *oob_(error|n):" > "$TMP/info.4"
checks=$((checks + 1))
[[ $(wc -l < "$TMP/info.plain") -eq 2 ]] && cmp -s "$TMP/info.plain" "$TMP/info.4" ||
  fail "grove info: the OOB error and |S| of 1 process and $LAST_NP ranks differ (or are missing)"

awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "w"; next } { print $0, 1 + (NR % 5) * 0.37 }' \
  "$D/breast_cancer_train.csv" > "$TMP/weighted.csv"
run_case forest_weighted "$TMP/weighted.csv" -a forest -r 8 --weight w

# regression: the sums of w, w y, w y^2 on dist.h's grid, in one process as over the ranks
run_case forest_reg "$D/boston_housing_train.csv" -a forest -r 10
run_case extra_reg "$D/boston_housing_train.csv" -a extra-trees -r 10
run_case bagging_reg "$D/boston_housing_train.csv" -a bagging -r 6 --set base.max_depth=5
run_case tree_reg "$D/boston_housing_train.csv" -a tree --set max_depth=8
awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "w"; next } { print $0, 1 + (NR % 5) * 0.37 }' \
  "$D/boston_housing_train.csv" > "$TMP/weighted_reg.csv"
run_case forest_reg_weighted "$TMP/weighted_reg.csv" -a forest -r 6 --weight w
# sample weights and missing values: 10 classes, regression, a single tree
with_missing_and_weights "$TMP/digits.csv" "$TMP/digits_wm.csv"
with_missing_and_weights "$D/boston_housing_train.csv" "$TMP/boston_wm.csv"
run_case weighted_missing "$TMP/digits_wm.csv" -a forest -r 6 --weight w
run_case weighted_missing_reg "$TMP/boston_wm.csv" -a extra-trees -r 6 --weight w
run_case weighted_missing_tree "$TMP/boston_wm.csv" -a tree --set max_depth=6 --weight w
expect_exit 1 "${MPIRUN[@]}" -np 2 "$GROVE" train "$TMP/digits.csv" -a forest --set oob_importance=true -o "$TMP/imp"
expect_in "$TMP/err" "oob_importance: not supported in data-parallel training"
finish
