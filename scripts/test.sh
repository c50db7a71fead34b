#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite (lit tests, unit tests and
# the diagnostic-coverage check); ends with one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 test/run_tests.py build
