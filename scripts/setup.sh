#!/usr/bin/env bash
# Sets tmc up on a fresh Debian 12 machine: installs the packages it needs
# (only those missing, so a second run is quick), then configures and builds.
# Usage: bash scripts/setup.sh [extra cmake arguments]   (build directory: $TMC_BUILD_DIR, default build)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ python3
  antlr4 libantlr4-runtime-dev          # parser generator (build time) and runtime
  llvm-19-dev llvm-19-tools             # code generation; lit and FileCheck for tests
  libfmt-dev libsqlite3-dev libgtest-dev
  libzstd-dev zlib1g-dev                # LLVMSupport links zstd and zlib (their static archives: codegen/CMakeLists.txt)
  libjemalloc-dev                       # tmc's allocator (faster LLVM, above all on several threads)
  pkg-config binutils                   # the deployment tests: pkg-config files, ar for tmc lib
  lld                                   # the linker: faster links, and tmc's hot code laid out together
  bolt-19                               # tmc's code laid out by a profile of its compiles (scripts/optimize_layout.sh)
  python3-numpy python3-pytest python3-torch  # the Python package (python/tmc) and its tests
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

# The CUDA toolkit is not a Debian package: it must already be at
# /usr/local/cuda (or CUDA_HOME). tmc builds and checks kernels without it,
# but PTX math functions need libdevice, cubins need ptxas, and the tests
# that assemble PTX or compile CUDA C are skipped without ptxas and nvcc.
cuda=${CUDA_HOME:-/usr/local/cuda}
cuda_missing=()
[ -x "$cuda/bin/ptxas" ] || cuda_missing+=("$cuda/bin/ptxas (cubins, -v, the PTX tests)")
[ -x "$cuda/bin/nvcc" ] || cuda_missing+=("$cuda/bin/nvcc (the CUDA C tests)")
[ -f "$cuda/nvvm/libdevice/libdevice.10.bc" ] || cuda_missing+=("$cuda/nvvm/libdevice/libdevice.10.bc (math functions in PTX)")
[ -f "$cuda/include/cuda.h" ] || cuda_missing+=("$cuda/include/cuda.h")
if ((${#cuda_missing[@]})); then
  echo "setup: warning: the CUDA toolkit (13.x) is incomplete or missing at $cuda; missing:"
  printf 'setup:   %s\n' "${cuda_missing[@]}"
  echo "setup: install NVIDIA's CUDA toolkit 13 for Debian 12 (package cuda-toolkit-13-0 from NVIDIA's"
  echo "setup: repository, or the runfile installer) at /usr/local/cuda, or set CUDA_HOME; tmc builds"
  echo "setup: without it, and the tests that need it are skipped"
fi

build=${TMC_BUILD_DIR:-build}
# Configured once; again when cmake arguments are given (they may change
# an option of an existing build directory).
if [ ! -f "$build/build.ninja" ] || (($# > 0)); then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$build"
bash scripts/optimize_layout.sh "$build"

# The Python package (build/python/tmc): a .pth file in the site directory
# of Debian's python3 (where python3-numpy and python3-torch are) makes
# `import tmc` work there without pip; elsewhere, PYTHONPATH=build/python.
site=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || true)
if [ -n "$site" ] && mkdir -p "$site" 2>/dev/null && [ -w "$site" ]; then
  echo "$(cd "$build" && pwd)/python" > "$site/tmc.pth"
else
  echo "setup: note: to import the Python package, set PYTHONPATH=$(cd "$build" && pwd)/python"
fi
