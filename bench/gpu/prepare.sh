#!/usr/bin/env bash
# Run here (with LLVM and ANTLR): writes replay cases for every example at
# shapes that do and do not divide the tile sizes into bench/gpu/cases/,
# compiled for sm_90a (the H200). Each case is first checked on the CPU.
# TMC=path/to/tmc uses another build of tmc.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmc=${TMC:-build/bin/tmc}
out=bench/gpu/cases
rm -rf "$out"
mkdir -p "$out"
case_run() {  # name file shapes [defines]
  local name=$1 file=$2 shapes=$3
  shift 3
  "$tmc" run "$file" --shape "$shapes" "$@" --arch=sm_90a --save-case "$out/$name" > /dev/null
}
case_run vector_add_1000 examples/vector_add.tm N=1000
case_run vector_add_256K examples/vector_add.tm N=262144
case_run transpose_129x127 examples/transpose.tm R=129,C=127
case_run transpose_1024 examples/transpose.tm R=1024,C=1024
case_run row_sum_1000x1000 examples/row_sum.tm R=1000,C=1000
case_run matmul_simt_129 examples/matmul_simt.tm M=129,N=127,K=70
case_run matmul_simt_512 examples/matmul_simt.tm M=512,N=512,K=512 -D BM=128 -D BN=128 -D BK=8
case_run matmul_tc_127 examples/matmul_tensor_core.tm M=127,N=129,K=70
case_run matmul_tc_512 examples/matmul_tensor_core.tm M=512,N=512,K=512
echo "prepared $(ls "$out" | wc -l) cases in $out ($(du -sh "$out" | cut -f1); a device run carries at most 64 MiB)"
