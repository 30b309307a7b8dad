#!/usr/bin/env bash
# `grove export --lang c`: the exported file compiles with cc -std=c99 -Wall -Werror, and its
# probabilities, printed with 17 digits, equal `grove predict --proba` on the iris test rows
# (compared as numbers: both texts read back to the same doubles); mlp models (also as a stacking member) are
# refused with exit 1 and a message naming the component; usage errors exit 1.
source "$(dirname "$0")/lib_cli.sh"
ir=$DATA/iris_train.csv; irt=$DATA/iris_test.csv

expect_exit 0 "$GROVE" train "$ir" -o "$TMP/f" --algo forest --rounds 12 -q
expect_exit 0 "$GROVE" export "$TMP/f" --lang c -o "$TMP/f.c" --prefix iris
expect_in "$TMP/f.c" "void iris_predict_double(const double *x, double *out);"
# -o NAME.c writes NAME.h beside it: the prototypes and sizes, nothing to copy out of a comment
expect_in "$TMP/f.h" "void iris_predict_double(const double *x, double *out);"
expect_in "$TMP/f.h" "#define iris_N_FEATURES 4"
expect_in "$TMP/f.h" "#define iris_N_OUTPUTS 3"
expect_exit 0 "$GROVE" export "$TMP/f" --lang h --prefix iris
cmp -s "$TMP/out" "$TMP/f.h" || fail "--lang h differs from the header written with -o f.c"
expect_exit 0 "$GROVE" export "$TMP/f" --lang c -o "$TMP/g.c" --header none
[[ -e "$TMP/g.h" ]] && fail "--header none wrote a header"
expect_exit 0 "$GROVE" export "$TMP/f" --lang c -o "$TMP/g2.c" --header "$TMP/inc.h"
expect_in "$TMP/inc.h" "void model_predict(const float *x, double *out);"
expect_exit 1 "$GROVE" export "$TMP/f" --lang c -o "$TMP/same.c" --header "$TMP/same.c"
expect_exit 0 "$GROVE" export --help
expect_in "$TMP/out" "--header FILE"
expect_in "$TMP/f.c" "petal_length_cm"
expect_in "$TMP/f.c" '"setosa", "versicolor", "virginica"'
if command -v cc >/dev/null; then
  cat >"$TMP/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "f.h"
int main(void)
{
    double x[iris_N_FEATURES], p[iris_N_OUTPUTS];
    char line[512];
    if (!fgets(line, sizeof line, stdin)) return 1; /* header */
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%*[^,],%lf,%lf,%lf,%lf", &x[0], &x[1], &x[2], &x[3]) != 4) return 2;
        iris_predict_double(x, p);
        printf("%.17g,%.17g,%.17g\n", p[0], p[1], p[2]);
    }
    return 0;
}
C
  expect_exit 0 cc -std=c99 -Wall -Werror -Wmissing-prototypes -O2 -o "$TMP/prog" "$TMP/f.c" "$TMP/main.c" -lm
  # the header compiles as C++ too (extern "C")
  if command -v c++ >/dev/null; then
    printf '#include "f.h"\nint main() { double x[iris_N_FEATURES] = {5.1, 3.5, 1.4, 0.2}, p[iris_N_OUTPUTS];\n iris_predict_double(x, p); return p[0] > 0.5 ? 0 : 1; }\n' >"$TMP/main.cpp"
    expect_exit 0 cc -std=c99 -O2 -c -o "$TMP/f.o" "$TMP/f.c"
    expect_exit 0 c++ -Wall -Werror -o "$TMP/progxx" "$TMP/main.cpp" "$TMP/f.o" -lm
    expect_exit 0 "$TMP/progxx"
  fi
  "$TMP/prog" <"$irt" >"$TMP/export.csv" || fail "the exported program failed"
  expect_exit 0 "$GROVE" predict "$TMP/f" "$irt" --proba -o "$TMP/pred.csv"
  tail -n +2 "$TMP/pred.csv" | cut -d, -f2- | paste -d, - "$TMP/export.csv" >"$TMP/both.csv"
  [[ $(wc -l <"$TMP/both.csv") -eq $(($(wc -l <"$irt") - 1)) ]] || fail "row counts differ"
  awk -F, '{ for (k = 1; k <= 3; k++) if ($k + 0 != $(k + 3) + 0) { print "row " NR ": " $0; bad = 1 } }
           END { exit bad }' "$TMP/both.csv" || fail "export and grove predict --proba differ"
else
  echo "cli_export: no cc; the compile check is skipped"
fi
# the table form too, chosen explicitly
expect_exit 0 "$GROVE" export "$TMP/f" --lang c --form table -o "$TMP/t.c"
expect_in "$TMP/t.c" "static UNUSED const node N["
# refusals and usage errors
expect_exit 0 "$GROVE" train "$ir" -o "$TMP/mlp" --algo mlp --set mlp.epochs=3 -q
expect_exit 1 "$GROVE" export "$TMP/mlp" --lang c -o "$TMP/mlp.c"
expect_in "$TMP/err" "mlp"
expect_in "$TMP/err" "cannot be exported"
[[ ! -e "$TMP/mlp.c" ]] || fail "a refused export left a file"
expect_exit 0 "$GROVE" train "$ir" -o "$TMP/st" --algo stacking --set stack.learners=stump,mlp \
  --set base.mlp.epochs=3 -q
expect_exit 1 "$GROVE" export "$TMP/st" --lang c
expect_in "$TMP/err" "mlp"
expect_exit 0 "$GROVE" train "$ir" -o "$TMP/st2" --algo stacking --set stack.learners=stump,logistic -q
expect_exit 0 "$GROVE" export "$TMP/st2" --lang c -o "$TMP/st2.c"
expect_exit 1 "$GROVE" export "$TMP/f"
expect_in "$TMP/err" "--lang"
expect_exit 1 "$GROVE" export "$TMP/f" --lang rust
expect_in "$TMP/err" "rust"
expect_exit 1 "$GROVE" export "$TMP/f" --lang c --prefix 1x
expect_in "$TMP/err" "C identifier"
expect_exit 2 "$GROVE" export "$TMP/nonexistent" --lang c
expect_exit 0 "$GROVE" export --help
expect_in "$TMP/out" "usage: grove export"
finish
