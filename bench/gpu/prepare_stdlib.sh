#!/usr/bin/env bash
# Run here (tmc needs LLVM and ANTLR, which the GPU machine lacks): compiles
# every candidate of every standard-library kernel for sm_90a into
# bench/gpu/stdlib_ptx/MODULE/KERNEL/ (PTX, metadata JSON and index.json per
# kernel, from tmc --all-candidates), for bench/gpu/stdlib.sh on the GPU
# machine, which picks among them at run time: the first candidate whose
# launch conditions ("requires") hold, or the fastest where the benchmark
# tunes a kernel's space (matmul tiles, vector widths). No input data is
# written: the GPU machine makes its inputs with torch.
#   usage: bash bench/gpu/prepare_stdlib.sh   (TMC=path/to/tmc to use another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
tmc=${TMC:-build/bin/tmc}
export TMC_STDLIB_DIR=${TMC_STDLIB_DIR:-$PWD/stdlib}
out=bench/gpu/stdlib_ptx
rm -rf "$out"
mkdir -p "$out"
count=0
failed=()
for file in stdlib/*.tm; do
  module=$(basename "$file" .tm)
  # Kernels as declared ("kernel NAME<" or "kernel NAME("); std.nn and
  # std.mma declare ops and mappings only.
  for kernel in $(sed -n 's/^[[:space:]]*kernel[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$file"); do
    # A module that does not compile (one being written) leaves the others
    # prepared; the failure is reported and the exit status says so.
    if ! "$tmc" "$file" --all-candidates --kernel="$kernel" --arch=sm_90a --emit=ptx \
         -o "$out/$module/$kernel" 2> "$out/log.txt"; then
      cat "$out/log.txt" >&2
      rm -rf "${out:?}/$module/$kernel"
      failed+=("$module.$kernel")
      continue
    fi
    count=$((count + $(grep -c '"status": "ok"' "$out/$module/$kernel/index.json")))
  done
done
rm -f "$out/log.txt"
echo "prepared $count candidates of $(find "$out" -name index.json | wc -l) kernels in $out" \
  "($(du -sh "$out" | cut -f1); a device run carries at most 64 MiB)"
if [ ${#failed[@]} -gt 0 ]; then
  echo "not prepared (tmc failed): ${failed[*]}" >&2
  exit 1
fi
