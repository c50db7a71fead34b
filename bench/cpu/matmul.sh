#!/usr/bin/env bash
# CPU executor speed: the SIMT matmul example at 256^3 under `tmc run
# --bench` (all cores), against a plain matmul loop (one core, g++ -O2),
# run side by side. Prints both medians and their ratio.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-256}
g++ -O2 -o /tmp/tmc-native-matmul bench/cpu/native_matmul.cpp
tmc_ms=$(build/bin/tmc run examples/matmul_simt.tm --shape M=$n,N=$n,K=$n --bench | awk '/^time:/ {print $2}')
native_ms=$(/tmp/tmc-native-matmul "$n")
cores=$(nproc)
echo "matmul ${n}^3 f32: tmc CPU executor ${tmc_ms} ms on ${cores} cores; plain loop ${native_ms} ms on 1 core"
awk -v a="$tmc_ms" -v b="$native_ms" -v c="$cores" 'BEGIN { printf "ratio tmc/plain: %.2f (per core: %.2f)\n", a / b, a * c / b }'
