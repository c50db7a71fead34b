#!/usr/bin/env bash
# Run on the GPU machine (bench/gpu/check.sh calls it after the replay
# cases): times every standard-library kernel prepared by
# bench/gpu/prepare_stdlib.sh (carry bench/gpu/stdlib_ptx) against PyTorch,
# torch.compile and Triton, and prints a table last. Builds libtmc_bench.so
# (the runtime, for ctypes) from runtime/ with cmake. Stays within
# STDLIB_BENCH_BUDGET_S seconds (default 420): each case checks the time
# left, torch.compile and Triton have budgets of their own, and a run that
# dies in a case (a kernel fault poisons the CUDA context; a hang meets the
# deadline) is resumed after that case. With $OUT set, the log, the results
# (JSON lines) and the table are copied there. STDLIB_BENCH_ARGS adds
# options (--only REGEX; --device cpu, a smoke test without a GPU).
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=${STDLIB_BENCH_BUDGET_S:-420}
start=$(date +%s)
build=${TMC_BENCH_BUILD:-${TMPDIR:-/tmp}/tmc-replay-build}
work=${TMPDIR:-/tmp}/tmc-stdlib-bench
if [ ! -f bench/gpu/stdlib_ptx/matmul/matmul_tc/index.json ]; then
  echo "stdlib bench: bench/gpu/stdlib_ptx is missing: run bench/gpu/prepare_stdlib.sh where tmc runs and carry it"
  exit 1
fi
if ! { cmake -S bench/gpu -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null &&
       cmake --build "$build" -j --target tmc_bench > /dev/null; }; then
  echo "stdlib bench: building libtmc_bench.so failed"
  exit 1
fi
rm -rf "$work"
mkdir -p "$work"
deadline=$((start + budget))
export PYTHONUNBUFFERED=1
status=1
for attempt in 1 2 3 4 5; do
  left=$((deadline - $(date +%s)))
  if [ "$left" -le 20 ]; then
    echo "stdlib bench: the time budget is spent; the cases not reached are not in the table"
    break
  fi
  # shellcheck disable=SC2086 # STDLIB_BENCH_ARGS: extra options (--only REGEX, --device cpu)
  timeout -k 5 "$((left + 10))" python3 bench/gpu/stdlib_bench.py --lib "$build/libtmc_bench.so" \
    --results "$work/results.jsonl" --deadline "$deadline" ${STDLIB_BENCH_ARGS:-} 2>&1 | tee -a "$work/log.txt"
  status=${PIPESTATUS[0]}
  # 3: the CUDA context was lost in a case; 125 and up: the process died
  # (a signal). Either way, resume after the case it was in.
  if [ "$status" -ne 3 ] && [ "$status" -lt 125 ]; then break; fi
  echo "stdlib bench: the run ended with status $status; resuming after the case it was in (attempt $attempt)"
done
[ "$status" -eq 124 ] && echo "stdlib bench: stopped at the deadline (a hang?); the case in flight is reported"
python3 bench/gpu/stdlib_bench.py --report --results "$work/results.jsonl" | tee "$work/table.txt"
report=${PIPESTATUS[0]}
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  cp "$work/log.txt" "$OUT/stdlib_log.txt"
  cp "$work/results.jsonl" "$OUT/stdlib_results.jsonl"
  cp "$work/table.txt" "$OUT/stdlib_table.txt"
fi
echo "stdlib bench: $(($(date +%s) - start)) s"
[ "$status" -eq 0 ] && exit "$report"
exit 1
