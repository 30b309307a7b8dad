#!/usr/bin/env bash
# Process start-up: `grove` outside an MPI launcher neither links nor loads libmpi (the MPI
# module libgrove-mpi.so is loaded with dlopen only under mpirun, src/dist/dist_module.h), and
# it does not start itself a second time to set OpenMP's wait policy (it sets
# OMP_WAIT_POLICY=passive before libgomp initializes, cli/main.c): libgomp reports its settings
# once, and they say PASSIVE; a policy the user chose stays.  Under a launcher whose module
# cannot be loaded, grove says so by name.  The start-up time is printed, not asserted (a
# loaded machine would make any bound flaky).
source "$(dirname "$0")/lib_cli.sh"
BIN=${GROVE_BIN:-$(dirname "$GROVE")}

if command -v ldd >/dev/null; then
  checks=$((checks + 1))
  ldd "$GROVE" >"$TMP/ldd" 2>&1
  if grep -qE 'libmpi|libopen-(pal|rte)|libpmix|libhwloc' "$TMP/ldd"; then
    fail "grove links MPI: $(grep -oE 'lib(mpi|open-pal|open-rte|pmix|hwloc)[^ ]*' "$TMP/ldd" | tr '\n' ' ')"
  fi
  if [[ -e $BIN/libgrove.so ]]; then
    checks=$((checks + 1))
    ! ldd "$BIN/libgrove.so" | grep -q libmpi || fail "libgrove.so links libmpi"
  fi
fi

# one process, one libgomp initialization, passive waiting (only in an OpenMP build)
expect_exit 0 env OMP_DISPLAY_ENV=true "$GROVE" --version
if grep -q "OPENMP DISPLAY ENVIRONMENT BEGIN" "$TMP/err"; then
  checks=$((checks + 1))
  n=$(grep -c "OPENMP DISPLAY ENVIRONMENT BEGIN" "$TMP/err")
  [[ $n -eq 1 ]] || fail "libgomp initialized $n times: grove started itself again"
  expect_in "$TMP/err" "OMP_WAIT_POLICY = 'PASSIVE'"
  expect_exit 0 env OMP_DISPLAY_ENV=true OMP_WAIT_POLICY=active "$GROVE" --version
  expect_in "$TMP/err" "OMP_WAIT_POLICY = 'ACTIVE'"
  # the child processes of a training run see the policy too (it is in the environment)
  expect_exit 0 env OMP_DISPLAY_ENV=true "$GROVE" train "$DATA/iris.csv" -o "$TMP/m" -a forest -r 3 -q
  checks=$((checks + 1))
  [[ $(grep -c "OPENMP DISPLAY ENVIRONMENT BEGIN" "$TMP/err") -eq 1 ]] || fail "train: libgomp initialized more than once"
fi
if command -v strace >/dev/null && strace -f -qq -e trace=execve -o "$TMP/trace" true 2>/dev/null; then
  strace -f -qq -e trace=execve -o "$TMP/trace" "$GROVE" --version >/dev/null 2>&1
  checks=$((checks + 1))
  [[ $(grep -c 'execve(' "$TMP/trace") -eq 1 ]] || fail "grove --version ran execve $(grep -c 'execve(' "$TMP/trace") times"
fi

# under a launcher, a module that cannot be loaded is an error that names it
if [[ -e $BIN/libgrove-mpi.so ]]; then
  expect_exit 3 env OMPI_COMM_WORLD_SIZE=1 GROVE_MPI_MODULE="$TMP/none.so" "$GROVE" --version
  expect_in "$TMP/err" "started by an MPI launcher, but the MPI module libgrove-mpi.so cannot be loaded"
  expect_exit 1 env OMPI_COMM_WORLD_SIZE=1 GROVE_DIST_TIMEOUT=soon "$GROVE" --version
  expect_in "$TMP/err" 'GROVE_DIST_TIMEOUT: expected seconds in [0, 1e9], found "soon"'
fi

# the time to start (printed): the median of 20 starts of `grove --version`
t0=$(date +%s%N)
for _ in $(seq 20); do "$GROVE" --version >/dev/null; done
echo "grove --version: $(( ($(date +%s%N) - t0) / 20000 )) us a start (mean of 20, wall clock)"
finish
