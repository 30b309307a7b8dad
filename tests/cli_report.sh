#!/usr/bin/env bash
# `grove report`: the HTML parses as XML (xmllint), and every chart has the series it should,
# with the number of points its model and data imply (data-points + data-dropped: points that a
# log axis cannot draw), for adaboost (bounds, eps/alpha, margins), samme (multiclass),
# forest (OOB curve, importances), regression (predicted vs true), gbdt with early stopping
# (metric curves, the stopping round), filter-boost (g(p) and the recursion tree),
# confidence-boost (the runs) and a bias-variance result; errors exit with their codes.
source "$(dirname "$0")/lib_cli.sh"
command -v xmllint >/dev/null || { echo "cli_report: xmllint (libxml2-utils) is not installed"; exit 1; }
bc=$DATA/breast_cancer_train.csv; bct=$DATA/breast_cancer_test.csv
n_bct=$(($(wc -l <"$bct") - 1))

# xp FILE XPATH: the string value of an XPath expression over the page (namespaces ignored)
xp() { xmllint --xpath "$2" "$1" 2>/dev/null; }
S() { echo "//*[local-name()='svg'][@id='$1']//*[local-name()='g'][@class='series'][@data-name='$2']"; }
# npoints FILE CHART SERIES: drawn + dropped points of one series ("" when absent)
npoints() { xp "$1" "number($(S "$2" "$3")/@data-points) + number($(S "$2" "$3")/@data-dropped)"; }
nseries() { xp "$1" "count(//*[local-name()='svg'][@id='$2']//*[local-name()='g'][@class='series'])"; }
want() { # want WHAT GOT EXPECTED
  checks=$((checks + 1)); [[ -n "$3" && "$2" == "$3" ]] || fail "$1: got '$2', expected '$3'"; [[ -n ${VERBOSE:-} ]] && echo "$1: $2"
}
parses() { checks=$((checks + 1)); xmllint --noout "$1" 2>"$TMP/xml.err" || { fail "$1 does not parse"; head -5 "$TMP/xml.err" >&2; }; }

# ---- adaboost, 40 rounds, with validation data at training time and --data
T=40
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/ada" --algo adaboost --rounds $T --valid "$bct" -q
expect_exit 0 "$GROVE" report "$TMP/ada" --data "$bct" -o "$TMP/ada.html"
parses "$TMP/ada.html"
want "bounds series" "$(nseries "$TMP/ada.html" boost-bounds)" 5
for s in "training error" "∏ Z_t" "exp(−2 Σ γ²)" "validation error" "error on DATA"; do
  want "bounds: $s" "$(npoints "$TMP/ada.html" boost-bounds "$s")" $T
done
want "eps/alpha series" "$(nseries "$TMP/ada.html" boost-eps-alpha)" 2
want "alpha points" "$(npoints "$TMP/ada.html" boost-eps-alpha "α_t")" $T
# margins after 5, T/10 = 4 (not after 5: skipped) and T rounds: one CDF point per test row
want "margin series" "$(nseries "$TMP/ada.html" boost-margins)" 2
want "margins after 5" "$(npoints "$TMP/ada.html" boost-margins "5 rounds")" $n_bct
want "margins after T" "$(npoints "$TMP/ada.html" boost-margins "$T rounds")" $n_bct
want "evaluation" "$(xp "$TMP/ada.html" "count(//*[local-name()='section'][@id='evaluation'])")" 1
want "ROC series" "$(nseries "$TMP/ada.html" roc)" 2
want "calibration series" "$(nseries "$TMP/ada.html" calibration)" 3
want "confusion cells" "$(xp "$TMP/ada.html" "count(//*[local-name()='table'][@id='confusion']//*[local-name()='td'])")" 4
want "confusion total" "$(xp "$TMP/ada.html" "sum(//*[local-name()='table'][@id='confusion']//*[local-name()='td'])")" $n_bct
want "permutation bars" "$(npoints "$TMP/ada.html" importance-permutation permutation)" 20
# without --data: no evaluation, a note instead of the margins
expect_exit 0 "$GROVE" report "$TMP/ada" -o "$TMP/ada0.html"
parses "$TMP/ada0.html"
want "no margins without data" "$(nseries "$TMP/ada0.html" boost-margins)" 0
expect_in "$TMP/ada0.html" "needs labelled data"
want "bounds without data" "$(nseries "$TMP/ada0.html" boost-bounds)" 4

# ---- samme on three classes (margins and a 3 x 3 confusion matrix, no ROC)
expect_exit 0 "$GROVE" train "$DATA/iris_train.csv" -o "$TMP/samme" --algo samme --rounds 12 -q
expect_exit 0 "$GROVE" report "$TMP/samme" --data "$DATA/iris_test.csv" -o "$TMP/samme.html"
parses "$TMP/samme.html"
want "samme confusion cells" "$(xp "$TMP/samme.html" "count(//*[local-name()='table'][@id='confusion']//*[local-name()='td'])")" 9
want "samme: no ROC" "$(nseries "$TMP/samme.html" roc)" 0
want "samme margins" "$(nseries "$TMP/samme.html" boost-margins)" 2

# ---- forest: OOB curve over the members, the error on DATA and VALID, importances
M=30
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/forest" --algo forest --rounds $M --set oob_importance=true -q
expect_exit 0 "$GROVE" report "$TMP/forest" --data "$bct" --valid "$bct" -o "$TMP/forest.html"
parses "$TMP/forest.html"
want "OOB points" "$(npoints "$TMP/forest.html" bagging-oob "OOB error")" $M
want "DATA points" "$(npoints "$TMP/forest.html" bagging-oob "error on DATA")" $M
want "VALID points" "$(npoints "$TMP/forest.html" bagging-oob "error on VALID")" $M
want "impurity bars" "$(npoints "$TMP/forest.html" importance-impurity impurity)" 20
want "OOB permutation bars" "$(npoints "$TMP/forest.html" importance-oob-permutation oob_permutation)" 20
expect_in "$TMP/forest.html" "worst_area"

# ---- regression: predicted against true, one point per row
expect_exit 0 "$GROVE" train "$DATA/boston_housing_train.csv" -o "$TMP/rf" --algo forest --rounds 10 -q
expect_exit 0 "$GROVE" report "$TMP/rf" --data "$DATA/boston_housing_test.csv" -o "$TMP/rf.html"
parses "$TMP/rf.html"
want "pred-vs-true points" "$(npoints "$TMP/rf.html" pred-vs-true rows)" $(($(wc -l <"$DATA/boston_housing_test.csv") - 1))

# ---- gbdt with early stopping: the log's curves, the curve on DATA, the stopping round marked
expect_exit 0 "$GROVE" train "$DATA/sonar_train.csv" -o "$TMP/gb" --algo gbdt --rounds 300 --set learning_rate=0.3 \
  --valid "$DATA/sonar_test.csv" --set early_stopping_rounds=8 --log "$TMP/gblog.csv" -q
n_log=$(($(wc -l <"$TMP/gblog.csv") - 1))
R=$(sed -n 's/.*"rounds":\([0-9]*\).*/\1/p' <("$GROVE" info "$TMP/gb" --json) | head -1)
expect_exit 0 "$GROVE" report "$TMP/gb" --data "$DATA/sonar_test.csv" -o "$TMP/gb.html"
parses "$TMP/gb.html"
want "gbdt training points" "$(npoints "$TMP/gb.html" gbdt-metric training)" $n_log
want "gbdt validation points" "$(npoints "$TMP/gb.html" gbdt-metric "validation (log)")" $n_log
want "gbdt DATA points" "$(npoints "$TMP/gb.html" gbdt-metric DATA)" "$R"
# gain and cover are means per split (XGBoost's get_score), and the captions say so
expect_in "$TMP/gb.html" "Mean gain per split"
expect_in "$TMP/gb.html" "Mean cover per split"
grep -qi "total gain" "$TMP/gb.html" && fail "a caption still calls the mean gain a total"
want "early stopping marker" "$(xp "$TMP/gb.html" "number(//*[local-name()='svg'][@id='gbdt-metric']//*[local-name()='g'][@class='marker']/@data-value)")" "$R"

# exponential loss: its line search's eps_t and alpha_t per round
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/gbe" --algo gbdt --rounds 7 --set objective=exponential -q
expect_exit 0 "$GROVE" report "$TMP/gbe" -o "$TMP/gbe.html"
parses "$TMP/gbe.html"
want "exponential alpha points" "$(npoints "$TMP/gbe.html" gbdt-eps-alpha "α_t")" 7

# ---- filter-boost, depth 2: g(p) and one point per majority with a known error (root + 3)
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/fb" --algo filter-boost --set filter.depth=2 -q
expect_exit 0 "$GROVE" report "$TMP/fb" --data "$bct" -o "$TMP/fb.html"
parses "$TMP/fb.html"
want "g(p) points" "$(npoints "$TMP/fb.html" filter-g "g(p) = 3p² − 2p³")" 101
want "majority points" "$(npoints "$TMP/fb.html" filter-g majorities)" 4
want "recursion tree leaves" "$(xp "$TMP/fb.html" "count(//*[local-name()='ul'][@class='tree']//*[local-name()='li'][not(*[local-name()='ul'])])")" 9

# ---- confidence-boost: one bar per run, epsilon marked
expect_exit 0 "$GROVE" train "$DATA/digits_train.csv" -o "$TMP/cb" --algo confidence-boost --set confidence.epsilon=0.3 \
  --base tree --set base.max_depth=3 -q
k=$(sed -n 's/.*"k":\([0-9]*\).*/\1/p' <("$GROVE" info "$TMP/cb" --json) | head -1)
expect_exit 0 "$GROVE" report "$TMP/cb" -o "$TMP/cb.html"
parses "$TMP/cb.html"
want "confidence runs" "$(npoints "$TMP/cb.html" confidence-runs error)" "$k"
want "epsilon marker" "$(xp "$TMP/cb.html" "number(//*[local-name()='svg'][@id='confidence-runs']//*[local-name()='g'][@class='marker']/@data-value)")" 0.3

# ---- a bias-variance result as a stacked bar
expect_exit 0 "$GROVE" biasvar "$DATA/iris_train.csv" --algo stump --replicates 4 --json
cp "$TMP/out" "$TMP/bv.json"
expect_exit 0 "$GROVE" report "$TMP/samme" --biasvar "$TMP/bv.json" -o "$TMP/bv.html"
parses "$TMP/bv.html"
want "biasvar series" "$(nseries "$TMP/bv.html" biasvar)" 2
want "bias bar" "$(npoints "$TMP/bv.html" biasvar bias)" 1

# ---- every other kind of model gives a page that parses, with the evaluation on DATA
for a in tree id3 perceptron logistic mlp stacking voting bagging extra-trees adaboost.m2 samme.r; do
  expect_exit 0 "$GROVE" train "$DATA/penguins_train.csv" -o "$TMP/m" --algo $a --rounds 5 -q || continue
  expect_exit 0 "$GROVE" report "$TMP/m" --data "$DATA/penguins_test.csv" -o "$TMP/m.html"
  parses "$TMP/m.html"
  want "$a: calibration" "$(nseries "$TMP/m.html" calibration)" 3
done
for a in adaboost.r2 gbdt; do
  expect_exit 0 "$GROVE" train "$DATA/boston_housing_train.csv" -o "$TMP/r" --algo $a --rounds 6 -q || continue
  expect_exit 0 "$GROVE" report "$TMP/r" --data "$DATA/boston_housing_test.csv" -o "$TMP/r.html"
  parses "$TMP/r.html"
  want "$a: predicted vs true" "$(nseries "$TMP/r.html" pred-vs-true)" 2
done

# ---- errors
echo '{"x": 1}' >"$TMP/notbv.json"
expect_exit 2 "$GROVE" report "$TMP/samme" --biasvar "$TMP/notbv.json" -o "$TMP/x.html"
expect_in "$TMP/err" "grove biasvar --json"
expect_exit 2 "$GROVE" report "$TMP/samme" --data "$bct" -o "$TMP/x.html"
expect_exit 1 "$GROVE" report
expect_exit 1 "$GROVE" report "$TMP/samme" --bogus
expect_exit 0 "$GROVE" report --help
expect_in "$TMP/out" "usage: grove report"
finish
