#!/usr/bin/env bash
# `grove report` in a browser: Debian's headless Chromium renders the reports of an AdaBoost, a
# forest and a gbdt model to PNG screenshots, which must not be blank (>= 1 % of the pixels off
# the background, >= 8 colors; tests/report_check.py decodes the PNG); an empty page must be
# judged blank, so the check can fail.  Skipped (exit 77) when chromium is not installed.
# With REPORT_SCREENSHOTS=DIR the screenshots are also copied there (docs/ keeps three).
source "$(dirname "$0")/lib_cli.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $CHROMIUM ]]; then
  echo "cli_report_browser: chromium is not installed; skipped"
  exit 77
fi
# half-size screenshots keep the PNG check fast; full size when they are kept
SCALE=0.5; [[ -n ${REPORT_SCREENSHOTS:-} ]] && SCALE=1
PY=/usr/bin/python3; [[ -x $PY ]] || PY=python3
shot() { # shot PAGE.html OUT.png
  local profile
  profile=$(mktemp -d "$TMP/chromium.XXXXXX")
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --window-size=1000,2400 --force-device-scale-factor="$SCALE" \
    --screenshot="$2" "file://$1" \
    >"$TMP/chromium.log" 2>&1
}
bc=$DATA/breast_cancer_train.csv; bct=$DATA/breast_cancer_test.csv
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/adaboost" --algo adaboost --rounds 100 --valid "$bct" -q
expect_exit 0 "$GROVE" train "$bc" -o "$TMP/forest" --algo forest --rounds 60 --set oob_importance=true -q
expect_exit 0 "$GROVE" train "$DATA/sonar_train.csv" -o "$TMP/gbdt" --algo gbdt --rounds 300 --set learning_rate=0.3 \
  --valid "$DATA/sonar_test.csv" --set early_stopping_rounds=10 --log "$TMP/glog.csv" -q
for m in adaboost forest gbdt; do
  data=$bct; [[ $m == gbdt ]] && data=$DATA/sonar_test.csv
  expect_exit 0 "$GROVE" report "$TMP/$m" --data "$data" -o "$TMP/$m.html"
  checks=$((checks + 1))
  shot "$TMP/$m.html" "$TMP/$m.png" || { fail "chromium failed on the $m report"; tail -5 "$TMP/chromium.log" >&2; continue; }
  expect_exit 0 "$PY" "$SRC/tests/report_check.py" png-not-blank "$TMP/$m.png"
  [[ -n ${REPORT_SCREENSHOTS:-} ]] && cp "$TMP/$m.png" "$REPORT_SCREENSHOTS/report-$m.png"
done
# the check itself: an empty page is blank
printf '<!DOCTYPE html>\n<html><body></body></html>\n' >"$TMP/empty.html"
checks=$((checks + 1))
shot "$TMP/empty.html" "$TMP/empty.png" || fail "chromium failed on an empty page"
expect_exit 1 "$PY" "$SRC/tests/report_check.py" png-not-blank "$TMP/empty.png"
finish
