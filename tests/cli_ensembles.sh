#!/usr/bin/env bash
# The newer ensembles through the CLI: gbdt (logistic, softmax, regression, --log, --valid with
# early stopping, predict --rounds), bagging/forest/extra-trees (OOB estimate, grove importance,
# determinism across thread counts), stacking, voting, mlp, grove biasvar, and the help and
# error paths of importance and biasvar with their documented exit codes.
source "$(dirname "$0")/lib_cli.sh"
ag=$DATA/agaricus.txt.train; agt=$DATA/agaricus.txt.test
bc=$DATA/breast_cancer_train.csv; bct=$DATA/breast_cancer_test.csv
bh=$DATA/boston_housing_train.csv; bht=$DATA/boston_housing_test.csv
ir=$DATA/iris_train.csv; irt=$DATA/iris_test.csv

# ---- gbdt: XGBoost's agaricus demo (2 rounds of depth-3 trees) has no test error
expect_exit 0 "$GROVE" train "$ag" -o "$TMP/g" --algo gbdt --set objective=logistic --set learning_rate=1 \
  --set gamma=1 --set max_depth=3 --rounds 2 --set base_score=0.5 --set min_child_weight=1 --set lambda=1 \
  --log "$TMP/glog.csv" -q
[[ $(head -1 "$TMP/glog.csv") == "t,train_logloss" ]] || fail "gbdt log header: $(head -1 "$TMP/glog.csv")"
[[ $(wc -l <"$TMP/glog.csv") -eq 3 ]] || fail "gbdt log rows: $(wc -l <"$TMP/glog.csv")"
# the training loss falls from round 1 to round 2
awk -F, 'NR == 2 { a = $2 } NR == 3 { exit !($2 < a) }' "$TMP/glog.csv" || fail "gbdt training logloss did not fall"
expect_exit 0 "$GROVE" eval "$TMP/g" "$agt" --json
expect_in "$TMP/out" '"error":0.0,'
expect_in "$TMP/out" '"n":1611'
expect_exit 0 "$GROVE" info "$TMP/g" --json
expect_in "$TMP/out" '"algo":"gbdt"'
# softmax on three classes
expect_exit 0 "$GROVE" train "$ir" -o "$TMP/gs" --algo gbdt --set objective=softmax --rounds 10 -q
expect_exit 0 "$GROVE" eval "$TMP/gs" "$irt" --json
expect_in "$TMP/out" '"accuracy":'
awk -F'"accuracy":' '{ split($2, a, ","); exit !(a[1] >= 0.85) }' "$TMP/out" || fail "gbdt softmax accuracy: $(cat "$TMP/out")"
# regression (squared error)
expect_exit 0 "$GROVE" train "$bh" -o "$TMP/gr" --algo gbdt --rounds 20 -q
expect_exit 0 "$GROVE" eval "$TMP/gr" "$bht" --json
expect_in "$TMP/out" '"rmse":'
# --valid: a valid column in the log, and early stopping ends before the round limit
expect_exit 0 "$GROVE" train "$DATA/sonar_train.csv" -o "$TMP/ges" --algo gbdt --rounds 500 --set learning_rate=0.3 \
  --valid "$DATA/sonar_test.csv" --set early_stopping_rounds=10 --log "$TMP/geslog.csv"
expect_in "$TMP/out" "validation data"
[[ $(head -1 "$TMP/geslog.csv") == "t,train_logloss,valid_logloss" ]] || fail "gbdt valid log header: $(head -1 "$TMP/geslog.csv")"
r=$(sed -n 's/^rounds: \([0-9]*\).*/\1/p' "$TMP/out"); [[ -n $r && $r -lt 500 ]] || fail "gbdt early stopping did not stop (rounds '$r')"
expect_exit 1 "$GROVE" train "$DATA/sonar_train.csv" -o "$TMP/x" --algo gbdt --set early_stopping_rounds=3 -q
expect_in "$TMP/err" "needs validation data"
# staged prediction: the first 5 rounds of 20 = a 5-round model; out-of-range rounds exit 1
expect_exit 0 "$GROVE" train "$bh" -o "$TMP/gr5" --algo gbdt --rounds 5 -q
expect_exit 0 "$GROVE" predict "$TMP/gr" "$bht" --rounds 5 -o "$TMP/p20_5.csv"
expect_exit 0 "$GROVE" predict "$TMP/gr5" "$bht" -o "$TMP/p5.csv"
cmp -s "$TMP/p20_5.csv" "$TMP/p5.csv" || fail "gbdt staged prediction differs from the 5-round model"
expect_exit 1 "$GROVE" predict "$TMP/gr" "$bht" --rounds 21
expect_in "$TMP/err" "rounds: must be in [1, 20]"

# ---- bagging, forest, extra-trees
for a in bagging forest extra-trees; do
  expect_exit 0 "$GROVE" train "$ir" -o "$TMP/$a" --algo $a --rounds 15 -q
  expect_exit 0 "$GROVE" eval "$TMP/$a" "$irt" --json
  expect_in "$TMP/out" '"accuracy":'
  expect_exit 0 "$GROVE" importance "$TMP/$a"
  expect_in "$TMP/out" "impurity"
  expect_exit 0 "$GROVE" importance "$TMP/$a" "$irt"
  expect_in "$TMP/out" "permutation"
  for f in sepal_length_cm sepal_width_cm petal_length_cm petal_width_cm; do expect_in "$TMP/out" "$f"; done
done
# the forest's out-of-bag estimate is stored: a number, on all rows (each is out of bag in some of 15 trees)
expect_exit 0 "$GROVE" info "$TMP/forest" --json
expect_in "$TMP/out" '"oob_error":0.'
expect_in "$TMP/out" '"oob_n":105'
expect_exit 0 "$GROVE" train "$ir" -o "$TMP/foi" --algo forest --rounds 15 --set oob_importance=true -q
expect_exit 0 "$GROVE" importance "$TMP/foi" --csv
expect_in "$TMP/out" "feature,impurity,oob_permutation"
# regression forest, importances on every feature
expect_exit 0 "$GROVE" train "$bh" -o "$TMP/fr" --algo forest --rounds 10 -q
expect_exit 0 "$GROVE" eval "$TMP/fr" "$bht" --json
expect_in "$TMP/out" '"rmse":'
expect_exit 0 "$GROVE" importance "$TMP/fr" "$bht" --csv
n=$(head -1 "$bh" | tr ',' '\n' | grep -vc '^label$')
[[ $(($(wc -l <"$TMP/out") - 1)) -eq $n ]] || fail "forest regression importance: $(wc -l <"$TMP/out") lines for $n features"
# determinism: 1 vs 2 threads give the same bytes
for a in bagging forest extra-trees; do
  expect_exit 0 "$GROVE" train "$bc" -o "$TMP/d1" --algo $a --rounds 10 -j 1 -q
  expect_exit 0 "$GROVE" train "$bc" -o "$TMP/d2" --algo $a --rounds 10 -j 2 -q
  cmp -s "$TMP/d1" "$TMP/d2" || fail "$a: 1 vs 2 threads differ"
done
# importance: a model that carries none is sent to permutation importances on data (exit 1)
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/lg" --algo logistic -q
expect_exit 1 "$GROVE" importance "$TMP/lg"
expect_in "$TMP/err" "carries no importances; give labelled DATA"
expect_exit 1 "$GROVE" importance
expect_exit 1 "$GROVE" importance "$TMP/forest" --bogus
expect_in "$TMP/err" "unknown option '--bogus'"
expect_exit 2 "$GROVE" importance "$TMP/nonesuch"

# ---- stacking, voting, mlp
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/st" --algo stacking -q
expect_exit 0 "$GROVE" eval "$TMP/st" "$bct" --json
expect_in "$TMP/out" '"accuracy":'
expect_exit 0 "$GROVE" info "$TMP/st" --json
expect_in "$TMP/out" '"algo":"stacking"'
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/st2" --algo stacking --set stack.learners=tree,logistic \
  --set stack.folds=3 --set stack.passthrough=true -q
expect_exit 0 "$GROVE" eval "$TMP/st2" "$bct"
expect_exit 0 "$GROVE" train "$bh" -o "$TMP/str" --algo stacking --set stack.learners=tree,forest,mlp -q
expect_exit 0 "$GROVE" eval "$TMP/str" "$bht" --json
expect_in "$TMP/out" '"rmse":'
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/vo" --algo voting -q
expect_exit 0 "$GROVE" eval "$TMP/vo" "$bct" --json
expect_in "$TMP/out" '"accuracy":'
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/vs" --algo voting --set voting.mode=soft --set voting.learners=tree,logistic,mlp \
  --set voting.weights=1,2,1 -q
expect_exit 0 "$GROVE" eval "$TMP/vs" "$bct" --json
expect_in "$TMP/out" '"logloss":'
expect_exit 1 "$GROVE" train "$bc" -o "$TMP/x" --algo voting --set voting.learners=tree,logistic --set voting.weights=1 -q
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/ml" --algo mlp -q
expect_exit 0 "$GROVE" eval "$TMP/ml" "$bct" --json
awk -F'"accuracy":' '{ split($2, a, ","); exit !(a[1] >= 0.9) }' "$TMP/out" || fail "mlp accuracy: $(cat "$TMP/out")"
expect_exit 0 "$GROVE" train "$ir" -o "$TMP/ml3" --algo mlp --set mlp.hidden=8 --set mlp.activation=tanh --set mlp.solver=sgd -q
expect_exit 0 "$GROVE" eval "$TMP/ml3" "$irt" --json
expect_in "$TMP/out" '"accuracy":'
expect_exit 1 "$GROVE" train "$bc" -o "$TMP/x" --algo mlp --set mlp.hidden=0 -q
expect_in "$TMP/err" "mlp.hidden"

# ---- biasvar: classification (Domingos 2000) and regression reports
expect_exit 0 "$GROVE" biasvar "$DATA/iris.csv" --replicates 5 --json
for k in '"loss": "zero-one"' '"replicates": 5' '"error":' '"bias":' '"variance":' '"unbiased_variance":' \
         '"biased_variance":' '"net_variance":' '"bias_plus_net_variance":' 'Domingos'; do
  expect_in "$TMP/out" "$k"
done
# error = bias + net variance
awk -F': ' '/"error"/ { e = $2 + 0 } /"bias_plus_net_variance"/ { s = $2 + 0 }
            END { exit !((e - s) ^ 2 < 1e-20) }' "$TMP/out" || fail "biasvar: error != bias + net variance"
expect_exit 0 "$GROVE" biasvar "$DATA/boston_housing.csv" --algo tree --set max_depth=3 --replicates 5 --json
for k in '"loss": "squared"' '"mse":' '"bias2":' '"variance":'; do expect_in "$TMP/out" "$k"; done
awk -F': ' '/"mse"/ { m = $2 + 0 } /"bias2"/ { b = $2 + 0 } /"variance"/ { v = $2 + 0 }
            END { d = m - b - v; exit !(d * d < 1e-12 * m * m) }' "$TMP/out" || fail "biasvar: mse != bias2 + variance"
expect_exit 1 "$GROVE" biasvar "$DATA/iris.csv" --replicates 0
expect_in "$TMP/err" "--replicates: must be an integer"
expect_exit 1 "$GROVE" biasvar "$DATA/iris.csv" --bogus
expect_exit 1 "$GROVE" biasvar
expect_exit 1 "$GROVE" biasvar "$DATA/iris.csv" --algo nonesuch --replicates 2
expect_in "$TMP/err" "algo: must be one of"
expect_exit 2 "$GROVE" biasvar "$TMP/nonesuch.csv"


# ---- weighted forests on a row view: stacking's folds hand each member a view of the rows, and
# a forest's weights (on the exact-sum grid) are indexed by the data's row numbers, not the view's
awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "w"; next } { print $0, 1 + (NR % 3) }' \
  "$DATA/diabetes_train.csv" >"$TMP/wdiab.csv"
for run in 1 2; do
  expect_exit 0 "$GROVE" train "$TMP/wdiab.csv" -o "$TMP/ws$run.model" --algo stacking --label label \
    --weight w --set stack.learners=tree,forest --set stack.folds=3 -q
done
checks=$((checks + 1))
cmp -s "$TMP/ws1.model" "$TMP/ws2.model" || fail "weighted stacking with a forest: two runs differ"
# ---- help
expect_exit 0 "$GROVE" importance --help
expect_in "$TMP/out" "usage: grove importance MODEL [DATA]"
expect_in "$TMP/out" "oob_permutation"
expect_exit 0 "$GROVE" biasvar --help
expect_in "$TMP/out" "usage: grove biasvar DATA"
expect_in "$TMP/out" "Domingos 2000"
finish
