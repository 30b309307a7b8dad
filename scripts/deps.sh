#!/usr/bin/env bash
# Installs (as root, from Debian's packages) what grove needs to build and test; idempotent:
# asks apt only for packages that are missing.  Usage: scripts/deps.sh [--bench]
set -euo pipefail
pkgs=(build-essential cmake pkg-config libjansson-dev libisal-dev zlib1g-dev libpng-dev libjpeg-dev libxml2-dev
      python3 python3-numpy python3-sklearn python3-xgboost python3-opencv opencv-data
      libxml2-utils chromium python3-pandas python3-pytest python3-setuptools python3-wheel python3-pip
      clang libclang-rt-14-dev libomp-dev libopenmpi-dev openmpi-bin)
# libxml2-utils: xmllint checks the HTML of `grove report`; chromium renders it in the browser
# test (its install took 18 s here: 14 packages, 348 MB on disk; the test skips without it).
# clang, libclang-rt-14-dev (libFuzzer), libomp-dev (OpenMP for clang): the fuzz targets, fuzz/.
# libopenmpi-dev, openmpi-bin: data-parallel training over MPI (src/dist/, docs/distributed.md).
# python3-pandas, -pytest, -setuptools, -wheel, -pip: the Python package's tests and install.
# linux-perf (--bench): bench/matrix/profile.sh records where each workload's time goes.
[[ "${1:-}" == "--bench" ]] && pkgs+=(time bc r-cran-ranger python3-matplotlib linux-perf)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  SUDO=; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  # another apt (unattended upgrades, a second shell) may hold the locks: wait for it, at most
  # 10 minutes (DPkg::Lock::Timeout; apt-get update has no such option: retried for 5); apt's and
  # dpkg's output goes to a log, shown when they fail
  log=$(mktemp)
  echo "deps.sh: installing ${#missing[@]} packages from Debian (log: $log)"
  for try in $(seq 30); do
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >>"$log" 2>&1 && break
    ((try < 30)) || { tail -20 "$log" >&2; exit 1; }
    sleep 10
  done
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" \
    >>"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
fi
