#!/usr/bin/env bash
# Lays out build/bin/tmc's machine code by a profile of tmc's own compiles,
# with LLVM's BOLT (package bolt-19): the blocks and functions a compile
# runs end up together and in the order they run, the rest out of the way.
# Most of a compile is LLVM's code, which Debian builds without such a
# layout; laid out, a compile of a large kernel takes 15-30% less CPU time
# and ~40% fewer page faults (docs/benchmarks.md, compile speed, tenth pass).
#
# Usage: bash scripts/optimize_layout.sh [BUILD_DIR]   (default: build)
# scripts/setup.sh runs it after each build. It rewrites BUILD_DIR/bin/tmc
# in place when the linker wrote it (and kept its relocations, which BOLT
# needs to move functions: TMC_BOLT, tools/tmc/CMakeLists.txt); a binary
# it already laid out is left as it is, so a second run costs nothing. The
# next link of tmc replaces it with an unoptimized one, which works the
# same, only slower, until this runs again.
#
# The profile comes from an instrumented copy of tmc compiling kernels of
# stdlib/ and examples/ to PTX and CUDA C and running one on the CPU: the
# paths every user takes (parse, check, the IR passes, LLVM's optimization
# and the NVPTX back end, the CPU executor). About 3 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tmc="$build/bin/tmc"
if [ "${TMC_LAYOUT:-1}" = 0 ]; then
  exit 0  # TMC_LAYOUT=0: keep the linker's layout (quicker edit-build-test loops)
fi
# From LLVM's own directory: llvm-bolt finds its instrumentation runtime
# relative to where it runs from (/usr/bin/llvm-bolt-19 looks in /usr/lib).
llvm_bin=/usr/lib/llvm-19/bin
bolt="$llvm_bin/llvm-bolt"
merge="$llvm_bin/merge-fdata"

if [ ! -x "$tmc" ]; then
  echo "optimize_layout: $tmc is not built" >&2
  exit 1
fi
if [ ! -x "$bolt" ] || [ ! -x "$merge" ]; then
  echo "optimize_layout: warning: $bolt or $merge not found (package bolt-19): $tmc keeps the linker's layout" >&2
  exit 0
fi
sections=$(readelf -SW "$tmc")
if grep -q '\.note\.bolt_info' <<<"$sections"; then
  exit 0  # laid out already
fi
if ! grep -q '\.rela\.text' <<<"$sections"; then
  echo "optimize_layout: $tmc was linked without its relocations (TMC_BOLT=OFF, TMC_LLVM_STATIC=OFF or TMC_SANITIZE=ON): it keeps the linker's layout"
  exit 0
fi

# An absolute path: the training preloads a library from it (LD_PRELOAD,
# a list separated by spaces and colons, which the path must not contain).
work="$(cd "$build" && pwd -P)/optimize_layout"
case "$work" in
  *[[:space:]:]*)
    echo "optimize_layout: warning: the build directory's path contains a space or a colon: $tmc keeps the linker's layout" >&2
    exit 0
    ;;
esac
rm -rf "$work"
mkdir -p "$work"
# A failure from here on leaves the linker's tmc, which works the same,
# only slower: the set-up goes on (CI checks that the layout was done).
keep_linked() {
  echo "optimize_layout: warning: $1; $tmc keeps the linker's layout" >&2
  if [ -n "${2:-}" ] && [ -f "$2" ]; then tail -n 20 "$2" >&2; fi
  rm -f "$work/tmc.instrumented" "$work"/profile.*  # ~300 MB
  exit 0
}

echo "optimize_layout: instrumenting $tmc"
"$bolt" "$tmc" -o "$work/tmc.instrumented" -instrument \
  -instrumentation-file="$work/profile" -instrumentation-file-append-pid >"$work/instrument.log" 2>&1 ||
  keep_linked "instrumenting it failed" "$work/instrument.log"

# tmc ends its process with _Exit (main.cpp: no teardown of the syntax
# trees), which skips the exit handlers where the instrumented copy writes
# its profile; during training, _Exit is exit.
cat >"$work/exit_normally.c" <<'EOF'
#include <stdlib.h>
void _Exit(int status) { exit(status); }
EOF
cc -shared -fPIC -o "$work/exit_normally.so" "$work/exit_normally.c" || keep_linked "cc failed"

# A training command that fails still leaves a profile of what it ran, but
# a thinner one: said, with its output in train.log.
train() {
  echo "+ tmc $*" >>"$work/train.log"
  if ! LD_PRELOAD="$work/exit_normally.so" "$work/tmc.instrumented" "$@" >>"$work/train.log" 2>&1; then
    echo "optimize_layout: warning: the training command 'tmc $*' failed (see $work/train.log)" >&2
  fi
}
# Each instrumented process costs seconds (it writes a 30 MB profile), so
# the training is a few processes that together take every path: the
# SIMT, tensor-core, wgmma/TMA and math-library kernels to PTX, CUDA C, a
# graph with fusion, and the CPU executor.
for f in stdlib/attention.tm stdlib/hopper.tm stdlib/matmul.tm stdlib/conv.tm stdlib/norm.tm; do
  train "$f" --emit=ptx --arch=sm_90a -o "$work/out.ptx"
done
train stdlib/attention.tm --emit=cuda -o "$work/out.cu"
train examples/mlp.tm --graph mlp --emit=ptx --arch=sm_90a -o "$work/out.ptx"
train run stdlib/nn.tm --op softmax --shape R=37,C=300

profiles=("$work"/profile.*)
[ -f "${profiles[0]}" ] || keep_linked "the instrumented tmc wrote no profile"
"$merge" "${profiles[@]}" -o "$work/profile.fdata" >"$work/merge.log" 2>&1 || keep_linked "merging the profiles failed"

# Blocks ordered by the extended TSP model, functions by call-chain
# clustering, cold blocks split off into a section of their own. No
# identical-code folding: LLVM compares some function addresses.
"$bolt" "$tmc" -o "$work/tmc" -data="$work/profile.fdata" \
  -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold \
  -use-gnu-stack >"$work/optimize.log" 2>&1 || keep_linked "BOLT failed" "$work/optimize.log"
# The laid-out tmc must do what the linked one did.
"$tmc" examples/matmul_simt.tm --emit=ptx --arch=sm_90a -o "$work/before.ptx" || keep_linked "the linked tmc failed"
"$work/tmc" examples/matmul_simt.tm --emit=ptx --arch=sm_90a -o "$work/after.ptx" || keep_linked "the laid-out tmc failed"
cmp -s "$work/before.ptx" "$work/after.ptx" || keep_linked "the laid-out tmc writes other PTX than the linked one"
mv "$work/tmc" "$tmc"
rm -rf "$work"
echo "optimize_layout: $tmc laid out by its profile"
