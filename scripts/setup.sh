#!/usr/bin/env bash
# Sets tmc up on a fresh Debian 12 machine: installs the packages it needs
# (only those missing, so a second run is quick), then configures and builds.
# Usage: bash scripts/setup.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ python3
  antlr4 libantlr4-runtime-dev          # parser generator (build time) and runtime
  llvm-19-dev llvm-19-tools             # code generation; lit and FileCheck for tests
  libfmt-dev libsqlite3-dev libgtest-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build build
