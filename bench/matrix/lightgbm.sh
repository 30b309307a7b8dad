#!/usr/bin/env bash
# The optional LightGBM peer of bench/matrix/run.sh: its command-line program, run the way a
# user runs it (CSV file in, model file out; model and CSV in, predictions out).  LightGBM is
# not part of grove: run.sh uses this only when it finds a `lightgbm` binary (LIGHTGBM=/path,
# or on PATH); README.md says how to build one outside the repository.
#
# usage: lightgbm.sh train WORKLOAD TRAIN.csv[.gz] MODEL N THREADS
#        lightgbm.sh predict MODEL TEST.csv[.gz] OUT.csv THREADS
# train prints the seconds of the training as LightGBM's log reports them (its last "seconds
# elapsed, finished iteration" line: the boosting rounds, after its loading; the CSV parsing
# and binning are in its "Finished loading data" line, in the log LOG=MODEL.log, and in the
# whole-process time).  Settings mirror grove's in cells.sh: 255 bins, learning rate 0.1,
# lambda_l2 1; gbdt-d6: max_depth 6, 64 leaves, min_data_in_leaf 1, min_sum_hessian_in_leaf 1
# (XGBoost's min_child_weight); gbdt-63L: 63 leaves best first, no depth limit,
# min_data_in_leaf 20, min_sum_hessian_in_leaf 0.001.  Binary objective for two classes, else
# multiclass with K = 1 + the largest label among the first 100,000 rows.  Gzipped CSV is
# unpacked next to the model first (LightGBM reads plain text), inside the timed process.
# predict writes label,p_0,...,p_{K-1} like the other peers, for score.py.
# LGB_TASK=reg: regression (objective=regression; predict writes the predictions as 'label').
# LGB_PARAMS: more key=value settings (bench/shapes: categorical_feature=...).  A file ending
# in .svm is read as LIBSVM (no header).
set -euo pipefail
LGB=${LIGHTGBM:-$(command -v lightgbm || true)}
[[ -n $LGB ]] || { echo "lightgbm.sh: no lightgbm binary (set LIGHTGBM=/path/to/lightgbm)" >&2; exit 2; }

plain() {  # plain() FILE TMP: prints a plain-text path for FILE
  if [[ $1 == *.gz ]]; then gzip -dc "$1" >"$2"; echo "$2"; else echo "$1"; fi
}

if [[ $1 == train ]]; then
  wl=$2 model=$4 n=$5 t=$6
  tr=$(plain "$3" "$model.train.csv")
  if [[ ${LGB_TASK:-} == reg ]]; then obj=(objective=regression)
  else
    k=$(head -n 100001 "$tr" | tail -n +2 | cut -d, -f1 | cut -d' ' -f1 | sort -n | tail -n 1)
    k=$((${k%%.*} + 1))
    if ((k <= 2)); then obj=(objective=binary); else obj=(objective=multiclass num_class=$k); fi
  fi
  hdr=true; [[ $tr == *.svm ]] && hdr=false
  read -r -a extra <<<"${LGB_PARAMS:-}"
  case $wl in
    gbdt-d6) p=(max_depth=6 num_leaves=64 min_data_in_leaf=1 min_sum_hessian_in_leaf=1) ;;
    gbdt-63L) p=(max_depth=-1 num_leaves=63 min_data_in_leaf=20 min_sum_hessian_in_leaf=0.001) ;;
    *) echo "lightgbm: no workload $wl" >&2; exit 2 ;;
  esac
  log=${LOG:-$model.log}
  "$LGB" task=train "${obj[@]}" data="$tr" header=$hdr label_column=0 num_iterations="$n" "${extra[@]}" \
    learning_rate=0.1 max_bin=255 lambda_l2=1 "${p[@]}" num_threads="$t" seed=1 \
    output_model="$model" >"$log" 2>&1 || { tail -n 5 "$log" >&2; exit 1; }
  [[ $tr == "$model.train.csv" ]] && rm -f "$tr"
  grep 'Finished loading data' "$log" >&2 || true
  fit=$(sed -n 's/.* \([0-9.]*\) seconds elapsed, finished iteration.*/\1/p' "$log" | tail -n 1)
  printf '%.3f\n' "$fit"
else
  model=$2 out=$4 t=$5
  te=$(plain "$3" "$out.test.csv")
  hdr=true; [[ $te == *.svm ]] && hdr=false
  read -r -a extra <<<"${LGB_PARAMS:-}"
  "$LGB" task=predict data="$te" header=$hdr label_column=0 "${extra[@]}" input_model="$model" \
    num_threads="$t" output_result="$out.raw" >"$out.log" 2>&1 || { tail -n 5 "$out.log" >&2; exit 1; }
  [[ $te == "$out.test.csv" ]] && rm -f "$te"
  # one probability per line (binary: p_1) or K tab-separated ones (multiclass); regression: values
  if [[ ${LGB_TASK:-} == reg ]]; then { echo label; cat "$out.raw"; } >"$out"; rm -f "$out.raw" "$out.log"; exit 0; fi
  awk -F'\t' 'NR == 1 { k = NF == 1 ? 2 : NF; printf "label"; for (j = 0; j < k; j++) printf ",p_%d", j; print "" }
    { if (NF == 1) { p[0] = sprintf("%.17g", 1 - $1); p[1] = $1 } else for (j = 1; j <= NF; j++) p[j - 1] = $j
      b = 0; for (j = 1; j < k; j++) if (p[j] + 0 > p[b] + 0) b = j
      printf "%d", b; for (j = 0; j < k; j++) printf ",%s", p[j]; print "" }' "$out.raw" >"$out"
  rm -f "$out.raw" "$out.log"
fi
