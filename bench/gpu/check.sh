#!/usr/bin/env bash
# Run on the GPU machine: builds tmc-replay from runtime/ alone, replays
# every case of bench/gpu/cases (made here by bench/gpu/prepare.sh), and
# prints one line per case and a summary: numerics against the f64
# reference, and the median kernel time over 20 launches; then the same
# operations timed through PyTorch in the same run, and tmc's time over
# theirs. Device run: carry bench/gpu/cases (it is ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${TMPDIR:-/tmp}/tmc-replay-build
cmake -S bench/gpu -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j > /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
# One line per case, then the peers (PyTorch / cuBLAS) timed in the same run.
set +e
"$build/tmc-replay" bench/gpu/cases/* | tee "${TMPDIR:-/tmp}/tmc-replay.log"
status=${PIPESTATUS[0]}
python3 bench/gpu/peers.py < "${TMPDIR:-/tmp}/tmc-replay.log"
exit "$status"
