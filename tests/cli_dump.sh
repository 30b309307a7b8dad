#!/usr/bin/env bash
# `grove dump`: every tree of a model as text, JSON or CSV.
# Truths: walking the text dump by hand (x <= split goes to yes, missing to `missing`, the
# thresholds compared as the float the tree holds) and adding base_score gives gbdt's margin --
# exactly the prediction of a squared-loss regression, the logit of P(1) for two classes, the
# contributions' sum for a softmax model; the CSV has trees_to_dataframe's header and one row
# per node, as many as the JSON's nested nodes; -o writes what stdout shows; a file that is not
# a model, an unknown format and a missing file are refused with a message.
source "$(dirname "$0")/lib_cli.sh"
PY=/usr/bin/python3

# walk TEXT_DUMP DATA.csv PRED.csv MODE: MODE exact (column 1 of PRED is the margin itself,
# compared bit for bit), logit (column 3 is P(1): compared to sigmoid's inverse), or
# contrib:K:F (PRED columns are K groups of F + 1 contributions after label: their sums).
walk() {
  "$PY" - "$@" <<'PY'
import csv, math, re, struct, sys
dump, data, pred, mode = sys.argv[1:5]
f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
base, trees, cur = [0.0], [], None
for line in open(dump):
    if line.startswith("#"):
        m = re.search(r"base_score=(\[[^\]]*\]|\S+)", line)
        if m: base = [float(v) for v in m.group(1).strip("[]").split(",")]
        continue
    if line.startswith("booster["):
        g = re.search(r"group=(\d+)", line)
        cur = {"group": int(g.group(1)) if g else 0, "nodes": {}}
        trees.append(cur)
        continue
    k, rest = line.strip().split(":", 1)
    node = {}
    m = re.match(r"\[(.*)<=(\S+)\] yes=(\d+),no=(\d+),missing=(\d+)", rest)
    if m:
        node = {"f": m.group(1), "t": float(m.group(2)), "yes": int(m.group(3)),
                "no": int(m.group(4)), "missing": int(m.group(5))}
    else:
        node = {"leaf": float(re.match(r"leaf=([^,]+)", rest).group(1))}
    cur["nodes"][int(k)] = node
rows = list(csv.DictReader(open(data)))
out = list(csv.reader(open(pred)))[1:]
G = len(base)
bad = 0
for i, row in enumerate(rows):
    s = list(base)
    for t in trees:
        k = 0
        while "leaf" not in t["nodes"][k]:
            n = t["nodes"][k]
            v = row[n["f"]]
            if v in ("", "NA", "?"):
                k = n["missing"]
            else:
                k = n["yes"] if f32(float(v)) <= n["t"] else n["no"]
        s[t["group"]] += t["nodes"][k]["leaf"]
    if mode == "exact":
        want = [float(out[i][0])]
        ok = s[0] == want[0]
    elif mode == "logit":
        p = float(out[i][2])
        want = [math.log(p / (1 - p))]
        ok = abs(s[0] - want[0]) <= 1e-9 * (1 + abs(want[0]))
    else:
        _, K, F = mode.split(":")
        K, F = int(K), int(F)
        want = [sum(float(v) for v in out[i][1 + g * (F + 1): 1 + (g + 1) * (F + 1)])
                for g in range(K)]
        ok = all(abs(a - b) <= 1e-9 * (1 + abs(b)) for a, b in zip(s, want))
    if not ok:
        bad += 1
        if bad < 4: print("row %d: dump walk %r, model %r" % (i + 1, s, want))
print("%d trees, %d rows, %d mismatches" % (len(trees), len(rows), bad))
sys.exit(1 if bad or not rows or not trees else 0)
PY
}

# ---- gbdt regression (squared loss): the walk is the prediction, bit for bit ----
R=$DATA/boston_housing_train.csv
expect_exit 0 "$GROVE" train "$R" -o "$TMP/reg" --algo gbdt -r 15 --set max_depth=4 -q
expect_exit 0 "$GROVE" dump "$TMP/reg" -o "$TMP/reg.txt"
expect_in "$TMP/reg.txt" "booster[14] round=14 group=0 in=gbdt:"
expect_in "$TMP/reg.txt" "base_score="
expect_exit 0 "$GROVE" predict "$TMP/reg" "$DATA/boston_housing_test.csv" -o "$TMP/reg.pred"
walk "$TMP/reg.txt" "$DATA/boston_housing_test.csv" "$TMP/reg.pred" exact >"$TMP/walk" ||
  fail "gbdt regression: walking the dump is not the prediction: $(cat "$TMP/walk")"

# ---- gbdt, two classes, with missing values: the walk is the logit of P(1) ----
awk -F, 'BEGIN{OFS=","} NR > 1 && NR % 7 == 0 {$3 = ""; $8 = "NA"} {print}' \
  "$DATA/breast_cancer_train.csv" >"$TMP/bc.csv"
awk -F, 'BEGIN{OFS=","} NR > 1 && NR % 5 == 0 {$3 = ""; $8 = "NA"} {print}' \
  "$DATA/breast_cancer_test.csv" >"$TMP/bct.csv"
expect_exit 0 "$GROVE" train "$TMP/bc.csv" -o "$TMP/bin" --algo gbdt -r 20 --set max_depth=3 -q
expect_exit 0 "$GROVE" dump "$TMP/bin" -o "$TMP/bin.txt"
expect_exit 0 "$GROVE" predict "$TMP/bin" "$TMP/bct.csv" --proba -o "$TMP/bin.pred"
walk "$TMP/bin.txt" "$TMP/bct.csv" "$TMP/bin.pred" logit >"$TMP/walk" ||
  fail "gbdt two classes: walking the dump is not the margin: $(cat "$TMP/walk")"

# ---- gbdt softmax: one tree per class a round; the walk per class is its contributions' sum ----
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/soft" --algo gbdt -r 5 --set max_depth=2 -q
expect_exit 0 "$GROVE" dump "$TMP/soft" -o "$TMP/soft.txt"
expect_in "$TMP/soft.txt" "booster[14] round=4 group=2 class=virginica in=gbdt:"
expect_exit 0 "$GROVE" predict "$TMP/soft" "$DATA/iris.csv" --contrib -o "$TMP/soft.pred"
walk "$TMP/soft.txt" "$DATA/iris.csv" "$TMP/soft.pred" contrib:3:4 >"$TMP/walk" ||
  fail "gbdt softmax: walking the dump is not the margins: $(cat "$TMP/walk")"

# ---- every format on several kinds of model ----
V=$DATA/house_votes84_train.csv
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/tree" --algo tree --set max_depth=3 -q
expect_exit 0 "$GROVE" train "$V" -o "$TMP/id3" --algo id3 --set max_depth=3 -q
expect_exit 0 "$GROVE" train "$V" -o "$TMP/gcat" --algo gbdt -r 4 --set max_depth=2 -q
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/forest" --algo forest -r 5 -q
expect_exit 0 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/ada" --algo adaboost -r 4 -q
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/vote" --algo voting \
  --set voting.learners=tree,logistic,mlp -q
check_formats() { # MODEL TREES: text, JSON and CSV agree on the trees and their nodes
  local m=$1 want=$2
  expect_exit 0 "$GROVE" dump "$TMP/$m" --format text -o "$TMP/$m.txt"
  expect_exit 0 "$GROVE" dump "$TMP/$m" --format json -o "$TMP/$m.json"
  expect_exit 0 "$GROVE" dump "$TMP/$m" -f csv -o "$TMP/$m.csv"
  "$PY" - "$TMP/$m.txt" "$TMP/$m.json" "$TMP/$m.csv" "$want" >"$TMP/fmt" 2>&1 <<'PY' ||
import csv, json, sys
txt, js, cs, want = sys.argv[1:5]
want = int(want)
lines = open(txt).read().splitlines()
boosters = [l for l in lines if l.startswith("booster[")]
text_nodes = sum(1 for l in lines if l.lstrip("\t")[:1].isdigit())
doc = json.load(open(js))
trees = [t for t in doc["trees"] if t["kind"] == "tree"]
def count(n): return 1 + sum(count(c) for c in n.get("children", []))
json_nodes = sum(count(t["root"]) for t in trees)
assert all(count(t["root"]) == t["n_nodes"] for t in trees), "nested nodes != n_nodes"
rows = list(csv.reader(open(cs)))
head = ("Tree,Node,ID,Feature,Split,Category,Yes,No,Missing,Gain,Cover,Count,Value,Class,"
        "Member,Round,Weight").split(",")
assert rows[0] == head, rows[0]
assert all(len(r) == len(head) for r in rows), "ragged csv"
body = rows[1:]
leaves = [r for r in body if r[3] == "Leaf"]
assert all(r[12] and not r[6] for r in leaves), "leaves need a value and no children"
assert all(r[6] or r[8] for r in body if r[3] != "Leaf"), "splits need children"
assert len(set(r[0] for r in body)) == len(trees) == want, (len(trees), want)
assert len(boosters) == len(doc["trees"]), (len(boosters), len(doc["trees"]))
assert len(body) == json_nodes == text_nodes, (len(body), json_nodes, text_nodes)
print("ok", len(trees), "trees", len(body), "nodes")
PY
    fail "dump $m: formats disagree: $(tail -3 "$TMP/fmt")"
  "$GROVE" dump "$TMP/$m" >"$TMP/$m.stdout" 2>"$TMP/err" && cmp -s "$TMP/$m.stdout" "$TMP/$m.txt" ||
    fail "dump $m: -o FILE and stdout differ"
}
check_formats tree 1
check_formats id3 1
check_formats gcat 4
check_formats forest 5
check_formats ada 4
check_formats vote 1
check_formats soft 15
expect_in "$TMP/tree.txt" "leaf=["
expect_in "$TMP/tree.csv" ",setosa,"
expect_in "$TMP/id3.txt" "missing="
expect_in "$TMP/gcat.txt" " in {"
expect_in "$TMP/ada.txt" "alpha="
expect_in "$TMP/ada.csv" "Leaf"
expect_in "$TMP/forest.txt" "(forest): 5 members"
expect_in "$TMP/vote.txt" "neural network (no trees to dump)"
expect_in "$TMP/vote.txt" "intercept="
expect_in "$TMP/vote.json" '"kind":"logistic"'
# a converted LightGBM model dumps too
expect_exit 0 "$GROVE" convert --from lightgbm "$SRC/tests/data/convert/lgb_binary.txt" "$TMP/lgb.json"
expect_exit 0 "$GROVE" dump "$TMP/lgb.json" -f csv -o "$TMP/lgb.csv"
expect_in "$TMP/lgb.csv" "Tree,Node,ID,Feature"

# ---- bad input ----
expect_exit 2 "$GROVE" dump "$DATA/iris.csv" && expect_in "$TMP/err" "is not a grove model file"
expect_exit 1 "$GROVE" dump "$TMP/tree" --format xml && expect_in "$TMP/err" "text, json or csv"
expect_exit 2 "$GROVE" dump "$TMP/no-such-model" && expect_in "$TMP/err" "no-such-model"
expect_exit 1 "$GROVE" dump && expect_in "$TMP/err" "usage: grove dump"
cp "$TMP/tree" "$TMP/tree.keep"
expect_exit 2 "$GROVE" dump "$TMP/tree" -o "$TMP/tree"
cmp -s "$TMP/tree" "$TMP/tree.keep" || fail "dump -o MODEL overwrote the model"
expect_exit 0 "$GROVE" dump --help && expect_in "$TMP/out" "--format"
finish
