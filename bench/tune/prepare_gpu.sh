#!/usr/bin/env bash
# Run here (tmc needs LLVM and ANTLR, which the GPU machine lacks): the part
# of tuning that needs no GPU, for bench/tune/gpu.plan:
#   - `tmc tune` with the static model: every candidate compiled, filtered
#     by its resources and checked on the CPU executor (a wrong or dropped
#     candidate is never timed on the GPU); its time is the "here" part of
#     the tuning time; the statuses go to bench/tune/gpu/here.json;
#   - every candidate's PTX and metadata (tmc --all-candidates), with the
#     tuning database's key (source hash, tmc version) in index.json.
# On the GPU machine, bench/tune/gpu_tune.py times them (docs/tuning.md);
# `tmc db import` brings its measurements back here.
#   usage: bash bench/tune/prepare_gpu.sh   (TMC=path/to/tmc to use another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
tmc=${TMC:-build/bin/tmc}
export TMC_STDLIB_DIR=${TMC_STDLIB_DIR:-$PWD/stdlib}
out=bench/tune/gpu
rm -rf "$out"
mkdir -p "$out/ptx"
start=$(date +%s.%N)
"$tmc" tune stdlib/matmul.tm --plan bench/tune/gpu.plan --arch sm_90a -D T=bf16 --db "$out/here.db" \
  > "$out/here.txt" 2> "$out/here.err"
end=$(date +%s.%N)
python3 -c "print(round($end - $start, 1))" > "$out/here_seconds"
"$tmc" db export --db "$out/here.db" -o "$out/here.json"
rm -f "$out"/here.db*
for kernel in $(sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]].*/\1/p' bench/tune/gpu.plan); do
  defines=()
  grep -q "^kernel $kernel<T: type" stdlib/matmul.tm && defines=(-D T=bf16)
  "$tmc" stdlib/matmul.tm --all-candidates --kernel="$kernel" "${defines[@]}" --arch=sm_90a --emit=ptx \
    -o "$out/ptx/$kernel" 2> /dev/null
done
echo "prepared $(grep -c '"status": "ok"' "$out"/ptx/*/index.json | awk -F: '{s += $2} END {print s}') candidates" \
  "in $out ($(du -sh "$out" | cut -f1)); tuning here took $(cat "$out/here_seconds") s"
