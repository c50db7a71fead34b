#!/usr/bin/env bash
# End-to-end time of `tmc run` (compile, run on the CPU executor, compute the
# op's reference, compare) at the shapes of issue 7: a 512^3 SIMT matmul and
# a 4x16x56x56 3x3 convolution. The reference is compiled to host code and
# runs on all cores (codegen/cpu/op_reference_jit); the target is < 3 s each
# on the 2-core development machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
time_run() {
  local start end
  start=$(date +%s.%N)
  build/bin/tmc run "$@" > /dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}
for i in 1 2 3; do
  m[$i]=$(time_run examples/matmul_simt.tm --shape M=512,N=512,K=512)
  c[$i]=$(time_run bench/cpu/conv2d.tm --shape N=4,C=16,H=56,W=56,K=16,R=3,S=3)
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
echo "tmc run matmul_simt 512^3:           $(median "${m[@]}") s (median of 3)"
echo "tmc run conv2d_direct 4x16x56x56 3x3: $(median "${c[@]}") s (median of 3)"
