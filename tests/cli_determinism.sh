#!/usr/bin/env bash
# Same seed -> bit-identical model file, with 1 and 2 threads and across runs; a different seed
# (with random feature subsets) -> a different model.
source "$(dirname "$0")/lib_cli.sh"
for algo in tree id3; do
  d=$DATA/breast_cancer_train.csv; [[ $algo == id3 ]] && d=$DATA/house_votes84_train.csv
  expect_exit 0 "$GROVE" train "$d" -o "$TMP/a1" --algo $algo --set max_features=sqrt --seed 7 --threads 1 -q
  expect_exit 0 "$GROVE" train "$d" -o "$TMP/a2" --algo $algo --set max_features=sqrt --seed 7 --threads 2 -q
  expect_exit 0 "$GROVE" train "$d" -o "$TMP/a3" --algo $algo --set max_features=sqrt --seed 7 --threads 2 -q
  cmp -s "$TMP/a1" "$TMP/a2" || fail "$algo: 1 vs 2 threads differ"
  cmp -s "$TMP/a2" "$TMP/a3" || fail "$algo: two runs differ"
  cp "$TMP/a1" "$TMP/$algo.model"
done
expect_exit 0 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/b" --set max_features=sqrt --seed 8 -q
cmp -s "$TMP/tree.model" "$TMP/b" && fail "different seeds gave the same model"
# a larger set, where threads really split the work
expect_exit 0 "$GROVE" train "$DATA/digits_train.csv" -o "$TMP/d1" --set max_features=sqrt --seed 3 -j 1 -q
expect_exit 0 "$GROVE" train "$DATA/digits_train.csv" -o "$TMP/d2" --set max_features=sqrt --seed 3 -j 2 -q
cmp -s "$TMP/d1" "$TMP/d2" || fail "digits: 1 vs 2 threads differ"
finish
