#!/usr/bin/env bash
# The CLI contract: every command, --help, exit codes, predict/eval output formats, cv, info.
source "$(dirname "$0")/lib_cli.sh"

# --help on every command, exit 0, usage text on stdout
for c in train predict eval cv info margins help; do
  expect_exit 0 "$GROVE" $c --help && expect_in "$TMP/out" "usage: grove $c"
done
expect_exit 0 "$GROVE" --help
expect_exit 1 "$GROVE"
expect_exit 1 "$GROVE" frobnicate
expect_in "$TMP/err" "unknown command 'frobnicate'"
expect_exit 1 "$GROVE" train "$DATA/breast_cancer_train.csv"   # no -o
expect_in "$TMP/err" "-o MODEL is required"
expect_exit 1 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/m" --bogus
expect_in "$TMP/err" "unknown option '--bogus'"

# parameters: unknown key and out-of-range value name both
expect_exit 1 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/m" --set max_dpeth=3
expect_in "$TMP/err" "unknown parameter 'max_dpeth'"
expect_exit 1 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/m" --set max_depth=-1
expect_in "$TMP/err" "max_depth: must be an integer in [0, 1000], got '-1'"
expect_exit 1 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/m" --set criterion=variance
expect_in "$TMP/err" "criterion: variance applies to regression"
expect_exit 1 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/m" --algo forest9
expect_in "$TMP/err" "algo: must be one of"

# train -> eval (table and JSON) -> predict
expect_exit 0 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/bc.model" --set max_depth=5 --quiet
[[ -s "$TMP/bc.model" ]] || fail "no model written"
expect_exit 0 "$GROVE" eval "$TMP/bc.model" "$DATA/breast_cancer_test.csv"
expect_in "$TMP/out" "accuracy"
expect_in "$TMP/out" "confusion matrix"
expect_exit 0 "$GROVE" eval "$TMP/bc.model" "$DATA/breast_cancer_test.csv" --json
for k in '"n":171' '"accuracy":' '"error":' '"logloss":' '"auc":'; do expect_in "$TMP/out" "$k"; done
expect_exit 0 "$GROVE" predict "$TMP/bc.model" "$DATA/breast_cancer_test.csv" --proba -o "$TMP/pred.csv"
[[ $(head -1 "$TMP/pred.csv") == "label,p_benign,p_malignant" ]] || fail "predict header: $(head -1 "$TMP/pred.csv")"
[[ $(wc -l <"$TMP/pred.csv") -eq 172 ]] || fail "predict rows: $(wc -l <"$TMP/pred.csv")"
# accuracy from the predictions equals eval's
acc=$(python3 - "$TMP/pred.csv" "$DATA/breast_cancer_test.csv" <<'PY'
import csv, sys
p = [r["label"] for r in csv.DictReader(open(sys.argv[1]))]
t = [r["label"] for r in csv.DictReader(open(sys.argv[2]))]
print(sum(a == b for a, b in zip(p, t)) / len(t))
PY
)
expect_exit 0 "$GROVE" eval "$TMP/bc.model" "$DATA/breast_cancer_test.csv" --json
python3 -c "import json,sys; e=json.load(open('$TMP/out')); sys.exit(abs(e['accuracy']-$acc)>1e-12)" || fail "predict/eval accuracy differ"

# predict on data without the label column works; regression predicts values
cut -d, -f2- "$DATA/breast_cancer_test.csv" >"$TMP/nolabel.csv"
expect_exit 0 "$GROVE" predict "$TMP/bc.model" "$TMP/nolabel.csv"
[[ $(wc -l <"$TMP/out") -eq 172 ]] || fail "unlabelled predict rows"
expect_exit 0 "$GROVE" train "$DATA/boston_housing_train.csv" -o "$TMP/reg.model" --set max_depth=4 --quiet
expect_exit 0 "$GROVE" eval "$TMP/reg.model" "$DATA/boston_housing_test.csv" --json
for k in '"rmse":' '"mae":' '"r2":'; do expect_in "$TMP/out" "$k"; done
expect_exit 1 "$GROVE" predict "$TMP/reg.model" "$DATA/boston_housing_test.csv" --proba

# ID3 on categorical data with missing values, without any encoding
expect_exit 0 "$GROVE" train "$DATA/house_votes84_train.csv" -o "$TMP/votes.model" --algo id3 --quiet
expect_exit 0 "$GROVE" eval "$TMP/votes.model" "$DATA/house_votes84_test.csv" --json
python3 -c "import json,sys; e=json.load(open('$TMP/out')); sys.exit(e['accuracy'] < 0.9)" || fail "id3 on house votes: $(cat "$TMP/out")"
expect_exit 0 "$GROVE" train "$DATA/house_votes84_train.csv" -o "$TMP/stump.model" --algo stump --quiet
expect_exit 0 "$GROVE" info "$TMP/stump.model" --json
expect_in "$TMP/out" '"algo":"stump"'
expect_exit 0 "$GROVE" info "$TMP/votes.model"
expect_in "$TMP/out" "id3"

# a LIBSVM file
expect_exit 0 "$GROVE" train "$DATA/agaricus.txt.train" -o "$TMP/agaricus.model" --set max_depth=3 --quiet
expect_exit 0 "$GROVE" eval "$TMP/agaricus.model" "$DATA/agaricus.txt.test" --json
expect_in "$TMP/out" '"n":1611'

# cv: table and JSON with mean/sd/folds
expect_exit 0 "$GROVE" cv "$DATA/breast_cancer.csv" --folds 4 --set max_depth=3 --json
python3 -c "
import json,sys
e=json.load(open('$TMP/out'))
m=e['metrics']['accuracy']
sys.exit(not(e['folds']==4 and len(m['folds'])==4 and 0.85<m['mean']<=1 and m['sd']>=0))" || fail "cv json: $(cat "$TMP/out")"
expect_exit 0 "$GROVE" cv "$DATA/iris.csv" --folds 3
expect_in "$TMP/out" "3-fold cross-validation"
# integer options are checked, naming the option and its range
expect_exit 1 "$GROVE" cv "$DATA/iris.csv" --folds 1
expect_in "$TMP/err" "--folds: must be an integer in [2, 1000], got '1'"
for cmd in eval predict margins; do
  expect_exit 1 "$GROVE" $cmd "$TMP/bc.model" "$DATA/breast_cancer_test.csv" --threads abc
  expect_in "$TMP/err" "--threads: must be an integer in [0, 4096], got 'abc'"
done
expect_exit 1 "$GROVE" importance "$TMP/bc.model" --threads -1
expect_in "$TMP/err" "--threads: must be an integer in [0, 4096], got '-1'"

# help topics; docs/params.md is generated from the table and up to date
expect_exit 0 "$GROVE" help params
expect_in "$TMP/out" "max_depth"
expect_exit 0 "$GROVE" help algos
expect_in "$TMP/out" "id3"
expect_exit 0 "$GROVE" help formats
expect_exit 0 "$GROVE" help params --markdown
cmp -s "$TMP/out" "$SRC/docs/params.md" || fail "docs/params.md is stale: run build/grove help params --markdown > docs/params.md"

# predict -o is atomic: a failing predict leaves the old file intact
echo "old content" >"$TMP/keep.csv"
expect_exit 2 "$GROVE" predict "$TMP/bc.model" "$DATA/house_votes84_test.csv" -o "$TMP/keep.csv"
[[ $(cat "$TMP/keep.csv") == "old content" ]] || fail "failed predict overwrote its output"
ls "$TMP"/keep.csv.tmp* >/dev/null 2>&1 && fail "temporary file left behind"

finish
