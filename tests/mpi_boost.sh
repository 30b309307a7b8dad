#!/usr/bin/env bash
# The data-parallel AdaBoost family (label mpi; docs/distributed.md): `mpirun -np N grove train`
# writes the same model file, byte for byte, for N = 1, 2, 3 and 4 ranks as one process (lib_mpi.sh's
# run_case; one process boosting tree members takes the same exact sums).  What the ranks agree on:
# the tree members' class-weight histograms (weights on dist.h's grid, summed over the ranks),
# epsilon, Z and the normalizer of D (exact sums), M2's per-leaf plausibility sums, and the
# resampling draws (every rank draws the sample of one process and keeps its own rows).  Cases:
# discrete AdaBoost with stumps, M1 with trees and validation-file early stopping, SAMME with
# ID3 on categorical votes, SAMME.R, M2 with its pseudo-loss trees and with gini stumps,
# boosting by resampling, a single tree, and files sorted by class; AdaBoost.R2 with regression
# tree members, by reweighting and by resampling; sample weights with missing values (binary,
# 10 classes, regression).  Other algorithms and non-tree members are refused by name.
source "$(dirname "$0")/lib_mpi.sh"
D=$SRC/examples/data

run_case adaboost "$D/breast_cancer_train.csv" -a adaboost -r 20
run_case m1 "$D/digits_train.csv" -a adaboost.m1 -b tree --set base.max_depth=4 -r 6 \
  --valid "$D/digits_test.csv" --set early_stopping_rounds=2
run_case samme_id3 "$D/house_votes84_train.csv" -a samme -b id3 -r 5
# SAMME.R: D(i) *= exp(-(K-1)/K sum_c y_ic ln p_c(x_i)) spreads D over many orders of magnitude,
# so a leaf's class weight can be a few units of the grid: one process rounds the same way
run_case samme_r "$D/digits_train.csv" -a samme.r -b tree --set base.max_depth=2 -r 4
run_case m2 "$D/digits_train.csv" -a adaboost.m2 -b tree --set base.max_depth=2 -r 4
run_case m2_gini "$D/digits_train.csv" -a adaboost.m2 -b stump -r 4 --set base.criterion=gini
run_case resample "$D/breast_cancer_train.csv" -a adaboost -r 10 --set boost.mode=resample
run_case resample_samme "$D/digits_train.csv" -a samme -b tree --set base.max_depth=3 -r 4 \
  --set boost.mode=resample --set boost.sample_size=500
run_case tree "$D/digits_train.csv" -a tree --set max_depth=6

# a file sorted by class: the first ranks hold other classes, and other categories, than the
# last; the ranks merge their schemas into the one a single process infers (numeric classes in
# numeric order: glass's 1 2 3 5 6 7; text classes and categories in byte order)
run_case glass_sorted "$D/glass_train.csv" -a samme -b tree --set base.max_depth=3 -r 5
{ head -1 "$D/house_votes84_train.csv" | sed 's/$/,zone/'
  tail -n +2 "$D/house_votes84_train.csv" | sort -t, -k1,1 -s |
    awk '{ print $0 "," (NR < 120 ? "north" : NR < 250 ? "south" : "west") }'; } > "$TMP/votes_sorted.csv"
run_case votes_sorted "$TMP/votes_sorted.csv" -a adaboost -b tree --set base.max_depth=2 -r 5

# adaboost.r2: regression tree members (their sums exact on the grid, tree.c), the largest
# error a max over the ranks, epsilon and the training RMSE exact sums; by reweighting with
# validation, and by resampling with the square loss
run_case r2 "$D/boston_housing_train.csv" -a adaboost.r2 -b tree \
  --set base.max_depth=3 -r 10 --valid "$D/boston_housing_test.csv"
run_case r2_resample "$D/boston_housing_train.csv" -a adaboost.r2 -b tree \
  --set base.max_depth=4 -r 8 --set boost.mode=resample --set boost.loss=square

# sample weights (not binary fractions: D_1 and the members' weights rounded to the grid) and
# missing values: binary, 10 classes (SAMME), regression (R2)
with_missing_and_weights "$D/breast_cancer_train.csv" "$TMP/bc_wm.csv"
with_missing_and_weights "$D/digits_train.csv" "$TMP/digits_wm.csv"
with_missing_and_weights "$D/boston_housing_train.csv" "$TMP/boston_wm.csv"
run_case weighted_missing "$TMP/bc_wm.csv" -a adaboost -b tree --set base.max_depth=2 -r 8 --weight w
run_case weighted_missing_samme "$TMP/digits_wm.csv" -a samme -b tree --set base.max_depth=3 -r 4 --weight w
run_case weighted_missing_r2 "$TMP/boston_wm.csv" -a adaboost.r2 -b tree --set base.max_depth=3 -r 6 --weight w

expect_exit 1 "${MPIRUN[@]}" -np 2 "$GROVE" train "$D/boston_housing_train.csv" -a logistic -o "$TMP/lin"
expect_in "$TMP/err" "algo: data-parallel training (mpirun) supports gbdt, adaboost,"
expect_exit 1 "${MPIRUN[@]}" -np 2 "$GROVE" train "$D/breast_cancer_train.csv" -a adaboost -b perceptron -o "$TMP/p"
expect_in "$TMP/err" "base: data-parallel training (mpirun) boosts tree, stump or id3 members, got 'perceptron'"
finish
