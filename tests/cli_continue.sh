# cli_continue.sh -- continued training: `grove train DATA --init-model OLD -r N` adds N rounds to a
# saved gbdt model.  Training T0 rounds, saving, and continuing N rounds on the same data with the
# same parameters must give the model one run of T0 + N rounds gives: the same "model" object
# (base, trees, log) and the same predictions, byte for byte -- with subsampling and column
# sampling (the draws keyed by the round), leaf refits (absolute, quantile), a log link (poisson),
# softmax, leaf-wise growth, validation scores and the training metric.  Then the errors: another
# objective or algorithm, a model that is not gbdt, data with another schema, a missing file.
source "$(dirname "$0")/lib_cli.sh"

same_model() { # A B: the "model" objects equal
  checks=$((checks + 1))
  python3 - "$1" "$2" <<'PY' || fail "$1 and $2: the models differ"
import json, sys
a, b = (json.load(open(p))["model"] for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
}

# NAME DATASET ARGS...: T0 = 6 rounds, then 4 more, against 10 in one go
cont_case() {
  local name=$1 ds=$2; shift 2
  local tr=$DATA/${ds}_train.csv te=$DATA/${ds}_test.csv
  expect_exit 0 "$GROVE" train "$tr" -a gbdt -r 6 -o "$TMP/$name.a" -q -j 2 "$@" || return
  expect_exit 0 "$GROVE" train "$tr" --init-model "$TMP/$name.a" -r 4 -o "$TMP/$name.b" -q -j 1 "$@" || return
  expect_exit 0 "$GROVE" train "$tr" -a gbdt -r 10 -o "$TMP/$name.c" -q -j 2 "$@" || return
  same_model "$TMP/$name.b" "$TMP/$name.c"
  "$GROVE" predict "$TMP/$name.b" "$te" > "$TMP/$name.pb"
  "$GROVE" predict "$TMP/$name.c" "$te" > "$TMP/$name.pc"
  checks=$((checks + 1))
  cmp -s "$TMP/$name.pb" "$TMP/$name.pc" || fail "$name: continued and one-go predictions differ"
}

cont_case logistic breast_cancer --set subsample=0.8 --set colsample_bytree=0.7 --set colsample_bynode=0.6
cont_case absolute boston_housing --set objective=absolute --set subsample=0.7
cont_case quantile boston_housing --set objective=quantile --set quantile_alpha=0.3
cont_case poisson boston_housing --set objective=poisson --set train_metric=true
cont_case softmax iris --set max_leaves=5 --valid "$DATA/iris_test.csv" --set train_metric=true
cont_case exponential breast_cancer --set objective=exponential --set max_depth=2

B=$DATA/breast_cancer_train.csv
"$GROVE" train "$B" -a gbdt -r 3 -o "$TMP/g" -q
"$GROVE" train "$B" -a tree -o "$TMP/t" -q
expect_exit 1 "$GROVE" train "$B" --init-model "$TMP/g" -r 2 -o "$TMP/x" --set objective=exponential -q
expect_in "$TMP/err" "objective: the init model's is logistic, got exponential"
expect_exit 1 "$GROVE" train "$B" --init-model "$TMP/g" -r 2 -o "$TMP/x" -a forest -q
expect_in "$TMP/err" "algo: the init model's is gbdt, got forest"
expect_exit 1 "$GROVE" train "$B" --init-model "$TMP/t" -r 2 -o "$TMP/x" -q
expect_in "$TMP/err" "init model: a gbdt model is needed"
# data without the model's features
expect_exit 2 "$GROVE" train "$DATA/iris_train.csv" --init-model "$TMP/g" -r 2 -o "$TMP/x" -q
expect_exit 2 "$GROVE" train "$B" --init-model "$TMP/missing" -r 2 -o "$TMP/x" -q
checks=$((checks + 1))
[[ ! -e $TMP/x ]] || fail "a failed continued training wrote a model"
finish
