#!/usr/bin/env bash
# Help: `grove help` lists every command with one line; `grove help COMMAND` is
# `grove COMMAND --help`; `grove --version`; and every command's --help names every option the
# command accepts.  "Accepts" is found from the outside: every option-looking word in any help
# text or in the CLI's sources is tried on every command, and one the command does not reject
# as unknown must be in its --help.  `help params` shows the true defaults and a seed range
# the parser accepts.
source "$(dirname "$0")/lib_cli.sh"

expect_exit 0 "$GROVE" --version
grep -qE '^grove [0-9]+\.[0-9]+\.[0-9]+' "$TMP/out" || fail "--version: $(cat "$TMP/out")"
expect_exit 0 "$GROVE" help
cp "$TMP/out" "$TMP/commands.txt"
commands=$(sed -n '/^commands:/,/^$/p' "$TMP/commands.txt" | awk 'NF >= 2 {print $1}')
[[ $(echo "$commands" | wc -l) -ge 12 ]] || fail "grove help lists $(echo "$commands" | wc -l) commands"
for c in $commands; do
  grep -qE "^  $c +[a-z]" "$TMP/commands.txt" || fail "grove help: no one-line summary for $c"
done

# probe COMMAND [SUB] -- WORD...: "WORD<TAB>STATUS<TAB>1 if rejected as unknown" for each WORD,
# from `grove COMMAND [SUB] WORD`: in children of one process (tests/cli_probe.c) under ctest,
# else one grove process per word
probe() {
  if [[ -n ${GROVE_CLI_PROBE:-} ]]; then
    "$GROVE_CLI_PROBE" "$@"
    return
  fi
  local pre=() w
  while [[ $1 != -- ]]; do pre+=("$1"); shift; done
  shift
  for w in "$@"; do
    "$GROVE" "${pre[@]}" "$w" >"$TMP/o" 2>"$TMP/e" </dev/null
    printf '%s\t%d\t%d\n' "$w" $? "$(grep -qE "unknown (option|command|subcommand)|unknown topic|too many arguments|more than one" "$TMP/e" && echo 1 || echo 0)"
  done
}

# every option-looking word the CLI knows
words=$( { for c in $commands; do "$GROVE" "$c" --help 2>/dev/null; done
           cat "$SRC"/cli/*.c; } | grep -oE -- '(^|[^a-zA-Z0-9_-])--?[a-zA-Z][a-zA-Z0-9-]*' |
         sed 's/^[^-]*//' | sort -u)
for c in $commands; do
  [[ $c == help ]] && continue
  expect_exit 0 "$GROVE" help "$c"
  cp "$TMP/out" "$TMP/help_$c.txt"
  "$GROVE" "$c" --help >"$TMP/dash.txt" 2>&1
  cmp -s "$TMP/dash.txt" "$TMP/help_$c.txt" || fail "grove help $c differs from grove $c --help"
  subs=""
  [[ $c == cascade ]] && subs="train eval"   # its options belong to these subcommands (info and convert take paths only)
  # the words its help does not mention (one it mentions passes whatever the command does)
  text=$(<"$TMP/help_$c.txt") unmentioned=""
  for w in $words; do
    re="(^|[^a-zA-Z0-9-])$w([^a-zA-Z0-9-]|\$)"
    [[ $text =~ $re ]] || unmentioned+=" $w"
  done
  # rejected: the words every subcommand rejects as unknown
  : >"$TMP/verdicts"
  for sub in ${subs:-""}; do
    probe $c $sub -- $unmentioned >>"$TMP/verdicts"
  done
  for w in $(awk -F'\t' '{n[$1]++; if ($3 == 1) r[$1]++} END {for (w in n) if (r[w] < n[w]) print w}' \
               "$TMP/verdicts" | sort); do
    [[ $w == --help || $w == -h ]] && continue
    # not rejected as unknown (it may still miss a value or an argument): the help must list it
    checks=$((checks + 1))
    grep -qE -- "(^|[^a-zA-Z0-9-])$w([^a-zA-Z0-9-]|$)" "$TMP/help_$c.txt" ||
      fail "grove $c accepts $w but its --help does not mention it"
  done
  checks=$((checks + 1))
  [[ $(wc -l <"$TMP/verdicts") -eq $(( $(echo $unmentioned | wc -w) * $(echo ${subs:-x} | wc -w) )) ]] ||
    fail "grove $c: $(wc -l <"$TMP/verdicts") verdicts for $(echo $unmentioned | wc -w) words"
done

# help params: the defaults the algorithms apply, a seed range the parser takes
expect_exit 0 "$GROVE" help params
grep -E '^  max_depth ' "$TMP/out" | grep -q 'gbdt: 6' || fail "help params: max_depth does not say gbdt's 6"
grep -E '^  base_score ' "$TMP/out" | grep -q 'label mean when unset' || fail "help params: base_score default"
hi=$(grep -E '^  seed ' "$TMP/out" | grep -oE '\[0, [0-9]+\]' | grep -oE '[0-9]+\]' | tr -d ']')
expect_exit 0 "$GROVE" train "$DATA/iris.csv" -o "$TMP/m" --seed "$hi" -q
expect_exit 1 "$GROVE" train "$DATA/iris.csv" -o "$TMP/m" --seed "${hi}0" -q
expect_in "$TMP/err" "seed: must be an integer in [0, $hi]"
# gbdt's depth 6 is what an unset max_depth gives
expect_exit 0 "$GROVE" train "$DATA/breast_cancer_train.csv" -o "$TMP/g" --algo gbdt -r 20 -q
"$GROVE" info "$TMP/g" --json | grep -q '"max_tree_depth": *6' || fail "gbdt's default depth is not 6"
expect_exit 1 "$GROVE" help nonsense
expect_in "$TMP/err" "unknown topic 'nonsense'"
finish
