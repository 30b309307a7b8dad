#!/usr/bin/env bash
# Installation: `cmake --install` into a temporary prefix installs the CLI, both
# libraries, grove.h, grove.pc, the CMake package, the man page and the docs; a small C program
# builds and runs against it four ways (pkg-config shared; the static link line of
# docs/install.md; find_package shared and static), and prints the training accuracy that
# `grove eval` reports for the same model; the man page names every command of `grove help`.
source "$(dirname "$0")/lib_cli.sh"

BIN=${GROVE_BIN:-build}
P=$TMP/prefix
CC=${CC:-cc}
extra=""
grep -q '^GROVE_SANITIZE:BOOL=ON' "$BIN/CMakeCache.txt" && extra="-fsanitize=address,undefined"
cmake --install "$BIN" --prefix "$P" >"$TMP/install.log" 2>&1 || { fail "cmake --install failed"; cat "$TMP/install.log" >&2; finish; exit 1; }
libdir=$(dirname "$(find "$P" -name libgrove.a | head -1)")
for f in bin/grove include/grove.h share/man/man1/grove.1 share/doc/grove/cli.md share/doc/grove/install.md \
         share/doc/grove/README.md; do
  checks=$((checks + 1)); [[ -f $P/$f ]] || fail "not installed: $f"
done
for f in libgrove.a libgrove.so pkgconfig/grove.pc cmake/grove/groveConfig.cmake cmake/grove/groveTargets.cmake; do
  checks=$((checks + 1)); [[ -e $libdir/$f ]] || fail "not installed: ${libdir#"$P"/}/$f"
done

# the man page lists every command
for c in $("$P/bin/grove" help | sed -n '/^commands:/,/^$/p' | awk 'NF >= 2 {print $1}'); do
  checks=$((checks + 1)); grep -qx ".B $c" "$P/share/man/man1/grove.1" || fail "grove.1 lacks the command $c"
done

cat >"$TMP/app.c" <<'C'
/* trains a depth-3 tree on argv[1] and prints its training accuracy */
#include <grove.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    grove_params *p = NULL;
    grove_dataset *d = NULL;
    grove_model *m = NULL;
    grove_eval *e = NULL;
    double acc = -1;
    if (argc < 2 || grove_params_create(&p) || grove_params_set(p, "max_depth", "3") ||
        grove_dataset_load(argv[1], p, NULL, &d) || grove_train(d, NULL, p, &m) ||
        grove_model_evaluate(m, d, 0, &e) || grove_eval_get(e, "accuracy", &acc)) {
        fprintf(stderr, "app: %s\n", grove_last_error());
        return 1;
    }
    printf("%.6f\n", acc);
    grove_eval_free(e);
    grove_model_free(m);
    grove_dataset_free(d);
    grove_params_free(p);
    return 0;
}
C
data=$DATA/breast_cancer_train.csv
"$GROVE" train "$data" -o "$TMP/m" --set max_depth=3 -q
want=$("$GROVE" eval "$TMP/m" "$data" | awk '$1 == "accuracy" {print $2}')
runs() { # WHAT BINARY [env...]: runs it, compares with grove eval
  local what=$1; shift
  checks=$((checks + 1))
  got=$("$@" "$data" 2>"$TMP/app.err") || { fail "$what: the program failed: $(cat "$TMP/app.err")"; return; }
  [[ $got == "$want" ]] || fail "$what: accuracy $got, grove eval says $want"
}
export PKG_CONFIG_PATH=$libdir/pkgconfig
# pkg-config, shared
if $CC $extra "$TMP/app.c" -o "$TMP/app_pc" $(pkg-config --cflags --libs grove) 2>"$TMP/cc.err"; then
  runs "pkg-config (shared)" env LD_LIBRARY_PATH="$libdir" "$TMP/app_pc"
  LD_LIBRARY_PATH="$libdir" ldd "$TMP/app_pc" | grep -q "$libdir/libgrove.so" || fail "pkg-config build does not use the installed libgrove.so"
else
  fail "cc with pkg-config --libs grove: $(head -5 "$TMP/cc.err")"
fi
checks=$((checks + 1))
pkg-config --static --libs grove | grep -q -- "-ljansson" || fail "pkg-config --static lacks the dependencies"
# the static link line of docs/install.md (no MPI: grove loads its MPI module under mpirun only)
if [[ -e ${GROVE_BIN:-build}/libgrove-mpi.so ]]; then
  checks=$((checks + 1))
  [[ -e $libdir/libgrove-mpi.so ]] || fail "the MPI module libgrove-mpi.so is not installed in $libdir"
fi
if $CC $extra "$TMP/app.c" -o "$TMP/app_static" -I "$P/include" "$libdir/libgrove.a" \
     $(pkg-config --libs jansson libisal zlib libpng libjpeg libxml-2.0) -lm -fopenmp 2>"$TMP/cc.err"; then
  runs "static link line" "$TMP/app_static"
  ldd "$TMP/app_static" | grep -q libgrove && fail "the static build still loads libgrove.so"
else
  fail "the static link line: $(head -5 "$TMP/cc.err")"
fi
# CMake find_package
mkdir -p "$TMP/cm"
cp "$TMP/app.c" "$TMP/cm/app.c"
cat >"$TMP/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(app C)
find_package(grove 0.1 REQUIRED)
add_executable(app_shared app.c)
target_link_libraries(app_shared PRIVATE grove::grove)
add_executable(app_static app.c)
target_link_libraries(app_static PRIVATE grove::grove_static)
CM
if cmake -S "$TMP/cm" -B "$TMP/cm/build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$extra" \
     -DCMAKE_EXE_LINKER_FLAGS="$extra" >"$TMP/cm.log" 2>&1 && cmake --build "$TMP/cm/build" >>"$TMP/cm.log" 2>&1; then
  runs "find_package grove::grove" "$TMP/cm/build/app_shared"
  runs "find_package grove::grove_static" "$TMP/cm/build/app_static"
  ldd "$TMP/cm/build/app_static" | grep -q libgrove && fail "grove::grove_static loads libgrove.so"
else
  fail "find_package(grove): $(tail -8 "$TMP/cm.log")"
fi
finish
