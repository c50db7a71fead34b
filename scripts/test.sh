#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite (lit tests, unit tests and
# the diagnostic-coverage check); ends with one summary line.
# With --sanitize: the same under ASan + UBSan, in build-sanitize/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  # The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer, in
  # its own build directory (docs/testing.md).
  export TMC_BUILD_DIR=build-sanitize
  # The shared libLLVM: the static link is not tried under the sanitizers.
  bash scripts/setup.sh -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMC_SANITIZE=ON -DTMC_LLVM_STATIC=OFF
  export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0:abort_on_error=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  python3 test/run_tests.py build-sanitize
  exit
fi
bash scripts/setup.sh
python3 test/run_tests.py build
