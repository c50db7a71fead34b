#!/usr/bin/env bash
# Run here (tmc needs LLVM and ANTLR, which the GPU machine lacks): compiles
# the graphs that bench/gpu/graph_bench.py times (the fused MLP, the
# transformer block, a custom op fused into a matmul) for sm_90a into
# bench/gpu/graph_ptx/GRAPH.ptx and GRAPH.json (the kernels' metadata and
# the launch plan, as tmc_graph_launch reads them).
#   usage: bash bench/gpu/prepare_graphs.sh   (TMC=path/to/tmc to use another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
tmc=${TMC:-build/bin/tmc}
export TMC_STDLIB_DIR=${TMC_STDLIB_DIR:-$PWD/stdlib}
out=bench/gpu/graph_ptx
rm -rf "$out"
mkdir -p "$out"
for spec in examples/mlp.tm:mlp examples/transformer_block.tm:ffn_block examples/custom_op_fusion.tm:ffn_relu2; do
  file=${spec%%:*}
  graph=${spec##*:}
  "$tmc" "$file" --graph "$graph" --arch=sm_90a --emit=ptx -o "$out/$graph.ptx"
  "$tmc" "$file" --graph "$graph" --arch=sm_90a --emit=meta -o "$out/$graph.json"
  # The unfused plan too: what fusion saves, on the same machine.
  "$tmc" "$file" --graph "$graph" --arch=sm_90a --no-fuse --emit=ptx -o "$out/${graph}_unfused.ptx"
  "$tmc" "$file" --graph "$graph" --arch=sm_90a --no-fuse --emit=meta -o "$out/${graph}_unfused.json"
done
echo "prepared $(ls "$out"/*.json | wc -l) plans in $out ($(du -sh "$out" | cut -f1))"
