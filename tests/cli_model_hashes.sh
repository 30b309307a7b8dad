# cli_model_hashes.sh -- model files stay byte-identical: the guard of every refactoring.
#
# Trains every algorithm the CLI offers (every --algo, the main --base learners, every gbdt objective,
# AdaBoost by resampling, the vision cascade) on bundled data with fixed seeds, once with 1 thread and
# once with 2, and compares the sha256 of each model file with the checked-in list
# tests/data/model_hashes.txt (one "NAME SHA256" per line).  Both thread counts must give the listed hash
# (the determinism promise: same seed, bit-identical model for any --threads).  The cascade's file records
# training seconds; those lines are dropped before hashing.  Each model (1 thread) also goes JSON -> .gvb ->
# JSON through `grove convert` and must come back byte for byte.
#
#   bash tests/cli_model_hashes.sh            check (the ctest)
#   bash tests/cli_model_hashes.sh --update   rewrite the list from the current binary (1 thread)
#
# A change to tests/data/model_hashes.txt is a change of the model files users get: the commit that makes it
# must say which models changed and why (a new file format, a deliberate change of an algorithm's output).
# A refactoring never changes this list.
source "$(dirname "$0")/lib_cli.sh"
LIST=$SRC/tests/data/model_hashes.txt
update=0
[[ ${1:-} == --update ]] && update=1

B=$DATA/breast_cancer_train.csv     # two classes, numeric (--valid: the _test.csv files)
I=$DATA/iris_train.csv              # three classes
R=$DATA/boston_housing_train.csv    # regression
V=$DATA/house_votes84_train.csv     # two classes, categorical
G=$DATA/glass_train.csv             # six classes

# NAME DATA ARGS...: one model per line (ARGS are word-split; no quoting needed).
cases() {
cat <<EOF
tree-bin $B --algo tree
tree-multi $I --algo tree --set max_depth=4
tree-reg $R --algo tree --set max_depth=6
tree-entropy-bestfirst $B --algo tree --set criterion=entropy --set growth=bestfirst --set max_leaves=8
tree-cat $V --algo tree
id3-cat $V --algo id3
stump-multi $I --algo stump
stump-reg $R --algo stump
perceptron-classic $I --algo perceptron
perceptron-averaged $B --algo perceptron --set perceptron.variant=averaged
perceptron-pocket $B --algo perceptron --set perceptron.variant=pocket
logistic-bin $B --algo logistic
logistic-multi $I --algo logistic
mlp-multi $I --algo mlp --set mlp.epochs=20 --set mlp.hidden=8
mlp-reg $R --algo mlp --set mlp.epochs=10 --set mlp.solver=sgd --set mlp.activation=tanh
adaboost-stump $B --algo adaboost --rounds 20
adaboost-tree $B --algo adaboost --rounds 10 --base tree --set base.max_depth=2
adaboost-resample $B --algo adaboost --rounds 10 --set boost.mode=resample
adaboost-perceptron $B --algo adaboost --rounds 5 --base perceptron
adaboost-logistic $B --algo adaboost --rounds 5 --base logistic
adaboost.m1 $I --algo adaboost.m1 --rounds 10 --base tree --set base.max_depth=2
samme $G --algo samme --rounds 20
samme.r $G --algo samme.r --rounds 10 --base tree --set base.max_depth=3
adaboost.m2 $G --algo adaboost.m2 --rounds 20
adaboost.r2-linear $R --algo adaboost.r2 --rounds 10 --base tree --set base.max_depth=3
adaboost.r2-square $R --algo adaboost.r2 --rounds 10 --base tree --set base.max_depth=3 --set boost.loss=square
adaboost.r2-exponential $R --algo adaboost.r2 --rounds 10 --base tree --set base.max_depth=3 --set boost.loss=exponential
filter-boost $B --algo filter-boost --set filter.depth=2
confidence-boost $B --algo confidence-boost --rounds 10 --set confidence.epsilon=0.4 --set confidence.delta=0.2
bagging-tree $I --algo bagging --rounds 10
bagging-reg $R --algo bagging --rounds 10
bagging-perceptron $B --algo bagging --rounds 5 --base perceptron
bagging-mlp $I --algo bagging --rounds 3 --base mlp --set base.mlp.epochs=5 --set base.mlp.hidden=4
forest-bin $B --algo forest --rounds 20
forest-reg $R --algo forest --rounds 10 --set oob_importance=true
extra-trees $G --algo extra-trees --rounds 20
gbdt-squared $R --algo gbdt --rounds 20
gbdt-absolute $R --algo gbdt --rounds 20 --set objective=absolute
gbdt-huber $R --algo gbdt --rounds 20 --set objective=huber
gbdt-logistic $B --algo gbdt --rounds 20 --set subsample=0.8 --set colsample_bytree=0.5
gbdt-softmax $I --algo gbdt --rounds 10 --set max_leaves=4
gbdt-exponential $B --algo gbdt --rounds 20 --set objective=exponential --set colsample_bynode=0.5
gbdt-early-auc $B --algo gbdt --rounds 60 --valid $DATA/breast_cancer_test.csv --set early_stopping_rounds=3 --set eval_metric=auc --set train_metric=true --set learning_rate=0.5
gbdt-early-mlogloss $I --algo gbdt --rounds 40 --valid $DATA/iris_test.csv --set early_stopping_rounds=2 --set train_metric=true
gbdt-absolute-valid $R --algo gbdt --rounds 15 --valid $DATA/boston_housing_test.csv --set objective=absolute --set subsample=0.7
gbdt-quantized $B --algo gbdt --rounds 20 --set quantized_bits=3 --set subsample=0.8 --set max_leaves=8
gbdt-quantized-softmax $I --algo gbdt --rounds 10 --set quantized_bits=5
adaboost-early $B --algo adaboost --rounds 40 --valid $DATA/breast_cancer_test.csv --set early_stopping_rounds=3
stacking-bin $B --algo stacking --set stack.learners=tree,logistic,stump --set stack.folds=3
stacking-reg $R --algo stacking --set stack.learners=tree,forest --set stack.folds=3 --set base.rounds=5
voting-hard $I --algo voting --set voting.learners=tree,logistic,stump
voting-soft $B --algo voting --set voting.learners=tree,logistic --set voting.mode=soft --set voting.weights=1,2
EOF
}

declare -A want
if [[ $update -eq 0 ]]; then
  [[ -f $LIST ]] || { echo "missing $LIST (run with --update)" >&2; exit 1; }
  while read -r name hash; do want[$name]=$hash; done < "$LIST"
fi
out=()
check() {   # NAME HASH1 HASH2
  local name=$1 h1=$2 h2=$3
  checks=$((checks + 1))
  if [[ $update -eq 1 ]]; then
    [[ $h1 == "$h2" ]] || fail "$name: 1 and 2 threads give different models"
    out+=("$name $h1")
  elif [[ -z ${want[$name]:-} ]]; then
    fail "$name: not in $LIST"
  elif [[ $h1 != "${want[$name]}" || $h2 != "${want[$name]}" ]]; then
    fail "$name: sha256 1 thread $h1, 2 threads $h2, listed ${want[$name]}"
  fi
}

while read -r name data args; do
  for j in 1 2; do
    # shellcheck disable=SC2086
    "$GROVE" train "$data" -o "$TMP/$name.$j.json" $args --seed 7 --threads $j -q >"$TMP/log" 2>&1 ||
      { fail "$name: train failed"; sed 's/^/  | /' "$TMP/log" | head -5 >&2; }
  done
  check "$name" "$(sha256sum < "$TMP/$name.1.json" 2>/dev/null | cut -c1-64)" "$(sha256sum < "$TMP/$name.2.json" 2>/dev/null | cut -c1-64)"
  # the binary encoding loses nothing (a tree's compact form rebuilds every field): JSON -> .gvb
  # -> JSON gives the same bytes, for every kind of model here
  checks=$((checks + 1))
  if "$GROVE" convert "$TMP/$name.1.json" "$TMP/$name.gvb" >"$TMP/log" 2>&1 &&
     "$GROVE" convert "$TMP/$name.gvb" "$TMP/$name.back.json" >"$TMP/log" 2>&1; then
    cmp -s "$TMP/$name.1.json" "$TMP/$name.back.json" || fail "$name: JSON -> .gvb -> JSON changed the bytes"
  else
    fail "$name: convert failed"; sed 's/^/  | /' "$TMP/log" | head -5 >&2
  fi
done < <(cases)

# The vision cascade: two small stages on the bundled face crops (about a second).
lfw=$SRC/tests/data/vision/lfw
neg=$SRC/tests/data/vision/negatives_small
for j in 1 2; do
  "$GROVE" cascade train --positives "$lfw" --negatives "$neg" -o "$TMP/cascade.$j.json" --window 12x12 \
    --stages 2 --max-weak 5 --seed 7 --threads $j -q >"$TMP/log" 2>&1 ||
    { fail "cascade: train failed"; sed 's/^/  | /' "$TMP/log" | head -5 >&2; }
done
check cascade "$(grep -v '"seconds"' "$TMP/cascade.1.json" | sha256sum | cut -c1-64)" \
              "$(grep -v '"seconds"' "$TMP/cascade.2.json" | sha256sum | cut -c1-64)"

if [[ $update -eq 1 ]]; then
  printf '%s\n' "${out[@]}" > "$LIST"
  echo "wrote ${#out[@]} hashes to $LIST"
fi
finish
