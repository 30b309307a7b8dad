#!/usr/bin/env bash
# Issue 16, "a 60-byte file exhausts the machine": a four-row LIBSVM file naming feature
# 2,000,011 (then 2,147,483,647, the largest index accepted) trains a stump in well under a
# second into a small model, because only the columns that hold a value are features (schema
# feature_ids, model format 1.3); the model predicts what the same data with small indices
# predicts; another file read with its schema maps its indices and drops the unknown ones; an
# index beyond the limit is refused naming file, line and token.
source "$(dirname "$0")/lib_cli.sh"

printf '1 1:0.5 3:1  # a 60-byte file\n0 2000011:1\n1 1:0.7\n0 2:1 5:2\n' >"$TMP/huge.svm"
printf '1 1:0.5 3:1\n0 6:1\n1 1:0.7\n0 2:1 5:2\n' >"$TMP/small.svm"
for idx in 2000011 2147483647; do
  sed "s/2000011/$idx/" "$TMP/huge.svm" >"$TMP/h.svm"
  for algo in stump "tree" "gbdt -r 3" "forest -r 3"; do
    start=$(date +%s%N)
    expect_exit 0 "$GROVE" train "$TMP/h.svm" --algo $algo -o "$TMP/h.json" --seed 1 -q || continue
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    checks=$((checks + 1))
    [[ $ms -lt 3000 ]] || fail "$idx $algo: training took $ms ms"
    size=$(wc -c <"$TMP/h.json")
    checks=$((checks + 1))
    [[ $size -lt 100000 ]] || fail "$idx $algo: a $size-byte model"
    expect_in "$TMP/h.json" '"n_columns": '"$idx"
    expect_exit 0 "$GROVE" train "$TMP/small.svm" --algo $algo -o "$TMP/s.json" --seed 1 -q
    expect_exit 0 "$GROVE" predict --proba "$TMP/h.json" "$TMP/h.svm" -o "$TMP/ph.csv"
    expect_exit 0 "$GROVE" predict --proba "$TMP/s.json" "$TMP/small.svm" -o "$TMP/ps.csv"
    checks=$((checks + 1))
    cmp -s "$TMP/ph.csv" "$TMP/ps.csv" || fail "$idx $algo: predictions differ from the small-index file's"
    # the binary encoding and back keep the compact features
    expect_exit 0 "$GROVE" convert "$TMP/h.json" "$TMP/h.gvb"
    expect_exit 0 "$GROVE" convert "$TMP/h.gvb" "$TMP/back.json"
    checks=$((checks + 1))
    cmp -s "$TMP/h.json" "$TMP/back.json" || fail "$idx $algo: JSON -> binary -> JSON changed the bytes"
  done
done
# another file with the model's schema: index 7 (no value in training) is dropped silently,
# one beyond the model's columns with a warning
printf '0 7:3 2147483647:1\n1 1:0.5 3:1 2147483640:4\n' >"$TMP/other.svm"
sed "s/2000011/2147483646/" "$TMP/huge.svm" >"$TMP/h.svm"
expect_exit 0 "$GROVE" train "$TMP/h.svm" --algo stump -o "$TMP/h.json" -q
expect_exit 0 "$GROVE" predict "$TMP/h.json" "$TMP/other.svm"
expect_in "$TMP/err" "1 value of features beyond the schema's 2147483646 ignored (first: line 1, index 2147483647)"
# no value stored at all (found by fuzz_libsvm: "1 10000000:00" took 3 s and 865 MB): the
# largest column named is the one feature, so the cost is nil again
printf '1 10000000:00\n0 2147483647:0\n' >"$TMP/zeros.svm"
start=$(date +%s%N)
expect_exit 0 "$GROVE" train "$TMP/zeros.svm" --algo stump -o "$TMP/z.json" -q
ms=$(( ($(date +%s%N) - start) / 1000000 ))
checks=$((checks + 1))
[[ $ms -lt 3000 ]] || fail "all-zero file: training took $ms ms"
expect_in "$TMP/z.json" '"n_columns": 2147483647'
expect_exit 0 "$GROVE" predict "$TMP/z.json" "$TMP/zeros.svm" -o "$TMP/pz.csv"
# beyond the limit
sed "s/2000011/2147483648/" "$TMP/huge.svm" >"$TMP/bad.svm"
expect_exit 2 "$GROVE" train "$TMP/bad.svm" --algo stump -o "$TMP/b.json"
expect_in "$TMP/err" 'bad.svm:2:2: expected a feature index in [1, 2147483647], found "2147483648"'
finish
