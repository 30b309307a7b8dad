#!/usr/bin/env bash
# Failures in data-parallel training (label mpi; docs/distributed.md, "Failures"): whatever
# fails on one rank ends every rank, rank 0 says it once naming the rank (and the file and
# line, for data), every rank exits with the bad-input code 2, and no model file is written.
#  - a rank that fails mid-training: the test hook GROVE_DIST_FAIL=R:T (dist.h) fails rank R at
#    round T, for gbdt, AdaBoost and a forest;
#  - a rank that dies (GROVE_DIST_FAIL=R:T:kill, SIGKILL at round T): Open MPI ends the job;
#    mpirun exits non-zero and no model is written;
#  - a shard that cannot be read on one rank only ({rank} files, rank 2's missing).
# (A shard that fails to parse, naming its file:line, is mpi_gbdt's case.)
source "$(dirname "$0")/lib_mpi.sh"
D=$SRC/examples/data

for algo in gbdt adaboost forest; do
  rm -f "$TMP/m"
  if GROVE_DIST_FAIL=2:3 expect_exit 2 "${MPIRUN[@]}" -x GROVE_DIST_FAIL -np 3 "$GROVE" train \
      "$D/breast_cancer_train.csv" -a $algo -r 6 -o "$TMP/m"; then
    expect_in "$TMP/err" "grove: train: rank 2: round 3: failure injected by GROVE_DIST_FAIL=2:3 (a test hook)"
    checks=$((checks + 1))
    [[ $(grep -c "failure injected" "$TMP/err") -eq 1 ]] || fail "$algo: the error is not said once"
  fi
  checks=$((checks + 1))
  [[ ! -e "$TMP/m" ]] || fail "$algo: a model was written after rank 2 failed"
done

checks=$((checks + 1))
GROVE_DIST_FAIL=1:2:kill "${MPIRUN[@]}" -x GROVE_DIST_FAIL -np 3 "$GROVE" train \
  "$D/breast_cancer_train.csv" -a gbdt -r 6 -o "$TMP/m" >"$TMP/out" 2>"$TMP/err" &&
  fail "mpirun exited 0 although rank 1 was killed"
expect_in "$TMP/err" "exited on signal 9"
checks=$((checks + 1))
[[ ! -e "$TMP/m" ]] || fail "a model was written after rank 1 died"

# a rank that stops (GROVE_DIST_FAIL=1:2:stop, SIGSTOP at round 2) and never answers: with
# GROVE_DIST_TIMEOUT=2 the others give up waiting in their next collective, say so, and end the
# job; without a timeout they would wait forever (timeout(1) bounds the test if that regresses)
checks=$((checks + 1))
GROVE_DIST_TIMEOUT=2 GROVE_DIST_FAIL=1:2:stop timeout -k 10 120 "${MPIRUN[@]}" -x GROVE_DIST_FAIL \
  -x GROVE_DIST_TIMEOUT -np 3 "$GROVE" train "$D/breast_cancer_train.csv" -a gbdt -r 6 -o "$TMP/m" \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -ne 0 && $rc -ne 124 && $rc -ne 137 ]] || fail "a stopped rank: mpirun exited $rc (124/137: it hung)"
expect_in "$TMP/err" "for the other ranks (GROVE_DIST_TIMEOUT=2): a rank is stopped, lost or far behind; ending the job"
checks=$((checks + 1))
[[ ! -e "$TMP/m" ]] || fail "a model was written after rank 1 stopped"

{ head -1 "$D/breast_cancer_train.csv"; sed -n 2,150p "$D/breast_cancer_train.csv"; } > "$TMP/part0.csv"
{ head -1 "$D/breast_cancer_train.csv"; sed -n 151,300p "$D/breast_cancer_train.csv"; } > "$TMP/part1.csv"
if expect_exit 2 "${MPIRUN[@]}" -np 3 "$GROVE" train "$TMP/part{rank}.csv" -a forest -r 4 -o "$TMP/m"; then
  expect_in "$TMP/err" "grove: rank 2: $TMP/part2.csv: cannot open"
fi
checks=$((checks + 1))
[[ ! -e "$TMP/m" ]] || fail "a model was written after rank 2 could not read its file"
finish
