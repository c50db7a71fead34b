#!/usr/bin/env bash
# Run on the GPU machine: builds tmc-replay from runtime/ alone, replays
# every case of bench/gpu/cases (made here by bench/gpu/prepare.sh), and
# prints one line per case and a summary: numerics against the f64
# reference, and the median kernel time over 20 launches.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${TMPDIR:-/tmp}/tmc-replay-build
cmake -S bench/gpu -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j > /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$build/tmc-replay" bench/gpu/cases/*
