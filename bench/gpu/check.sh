#!/usr/bin/env bash
# Run on the GPU machine: builds tmc-replay and libtmc_bench from runtime/
# alone, replays every case of bench/gpu/cases (made here by
# bench/gpu/prepare.sh), and prints one line per case and a summary:
# numerics against the f64 reference, and the median kernel time over 20
# launches; then the same operations timed through PyTorch in the same run,
# and tmc's time over theirs. Then, when bench/gpu/stdlib_ptx is there
# (made here by bench/gpu/prepare_stdlib.sh), bench/gpu/stdlib.sh times
# every standard-library kernel at realistic sizes against PyTorch,
# torch.compile and Triton (about 7 minutes; STDLIB_BENCH_BUDGET_S); and,
# when bench/gpu/graph_ptx is there (bench/gpu/prepare_graphs.sh), the
# fused graphs against PyTorch eager and torch.compile (graph_bench.py).
# Device run: carry bench/gpu/cases, bench/gpu/stdlib_ptx and bench/gpu/graph_ptx (ignored
# by git); the exact command is in bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${TMPDIR:-/tmp}/tmc-replay-build
cmake -S bench/gpu -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader || true
set +e
status=0
if compgen -G "bench/gpu/cases/*" > /dev/null; then
  # One line per case, then the peers (PyTorch / cuBLAS) timed in the same run.
  "$build/tmc-replay" bench/gpu/cases/* | tee "${TMPDIR:-/tmp}/tmc-replay.log"
  status=${PIPESTATUS[0]}
  python3 bench/gpu/peers.py < "${TMPDIR:-/tmp}/tmc-replay.log"
  if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then cp "${TMPDIR:-/tmp}/tmc-replay.log" "$OUT/replay_log.txt"; fi
else
  echo "check: no replay cases in bench/gpu/cases (bench/gpu/prepare.sh makes them); skipped"
fi
if [ -d bench/gpu/stdlib_ptx ]; then
  TMC_BENCH_BUILD="$build" bash bench/gpu/stdlib.sh || status=1
else
  echo "check: no bench/gpu/stdlib_ptx (bench/gpu/prepare_stdlib.sh makes it); the stdlib benchmark is skipped"
fi
if [ -d bench/gpu/graph_ptx ]; then
  # The fused graphs against PyTorch eager and torch.compile (a few minutes).
  cmake --build "$build" -j --target tmc_bench > /dev/null &&
    timeout "${GRAPH_BENCH_BUDGET_S:-240}" python3 bench/gpu/graph_bench.py --lib "$build/libtmc_bench.so" |
    tee "${TMPDIR:-/tmp}/graph_bench.txt" || status=1
  if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then cp "${TMPDIR:-/tmp}/graph_bench.txt" "$OUT/graph_bench.txt"; fi
else
  echo "check: no bench/gpu/graph_ptx (bench/gpu/prepare_graphs.sh makes it); the graph benchmark is skipped"
fi
exit "$status"
