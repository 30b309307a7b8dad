#!/usr/bin/env bash
# `grove info`: the parameters that apply to the model's algorithm (the table's "applies to"),
# data options only where set; --all and --json every stored parameter; the file is unchanged.
source "$(dirname "$0")/lib_cli.sh"

expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/gbdt" --algo gbdt -r 3 --set max_depth=2 -q
expect_exit 0 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/ada" --algo adaboost -r 3 \
  --base tree --set base.max_depth=2 --label label -q
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/tree" --algo tree -q
sum=$(sha256sum "$TMP/gbdt" "$TMP/ada" "$TMP/tree")
shown() { grep -qE "^  $2: " "$TMP/$1.info"; }
for m in gbdt ada tree; do
  expect_exit 0 "$GROVE" info "$TMP/$m" && cp "$TMP/out" "$TMP/$m.info"
  expect_exit 0 "$GROVE" info "$TMP/$m" --all && cp "$TMP/out" "$TMP/$m.all"
  expect_in "$TMP/$m.info" "--all)"
  for p in algo task seed; do shown "$m" "$p" || fail "info $m: $p not shown"; done
  for p in cascade.stages mlp.hidden perceptron.epochs stack.folds voting.mode sep; do
    shown "$m" "$p" && fail "info $m: $p shown, though it does not apply"
    grep -qE "^  $p: " "$TMP/$m.all" || fail "info $m --all: $p missing"
  done
done
for p in learning_rate lambda objective max_depth rounds; do shown gbdt "$p" || fail "info gbdt: $p not shown"; done
for p in criterion bagging.vote boost.mode base; do shown gbdt "$p" && fail "info gbdt: $p shown"; done
for p in boost.mode boost.learning_rate rounds base base.max_depth; do shown ada "$p" || fail "info adaboost: $p not shown"; done
for p in learning_rate max_depth criterion; do shown ada "$p" && fail "info adaboost: top-level $p shown"; done
for p in criterion max_depth min_samples_leaf max_bins; do shown tree "$p" || fail "info tree: $p not shown"; done
for p in rounds learning_rate base; do shown tree "$p" && fail "info tree: $p shown"; done
# a data option the user set is shown
shown ada label || fail "info adaboost: --label set, not shown"
# --json keeps every parameter
expect_exit 0 "$GROVE" info "$TMP/gbdt" --json
/usr/bin/python3 -c "import json,sys; p=json.load(open('$TMP/out'))['params']; sys.exit('cascade.stages' not in p or 'learning_rate' not in p)" ||
  fail "info --json: not every parameter"
# help params says where each applies
expect_exit 0 "$GROVE" help params
grep -A2 -E '^  bagging.vote ' "$TMP/out" | grep -q 'applies to: bagging|forest|extra-trees' ||
  fail "help params: bagging.vote does not say where it applies"
[[ $(sha256sum "$TMP/gbdt" "$TMP/ada" "$TMP/tree") == "$sum" ]] || fail "info changed a model file"
finish
