// tmc run --profile on kernels whose memory behaviour is known: the sector
// efficiency of a coalesced and a strided copy, 32-way bank conflicts of a
// transpose through an unpadded tile (none with the padded tile of the
// example), lanes of a divergent branch, cp_async, barriers, and the bytes
// moved against every tensor once. Expectations are at the end.
// RUN: %tmc run %s --kernel copy_coalesced --shape N=1024 --profile | FileCheck %s --check-prefix=COALESCED
// RUN: %tmc run %s --kernel copy_strided --shape N=1024 --profile | FileCheck %s --check-prefix=STRIDED
// RUN: %tmc run %s --kernel transpose_unpadded --shape R=64,C=64 --profile | FileCheck %s --check-prefix=CONFLICT
// The checking modes see the same accesses: same profile, no findings.
// RUN: %tmc run %s --kernel transpose_unpadded --shape R=64,C=64 --profile --check-bounds --check-races | FileCheck %s --check-prefix=CONFLICT
// RUN: %tmc run %examples/transpose.tm --shape R=64,C=64 --profile | FileCheck %s --check-prefix=PADDED
// RUN: %tmc run %s --kernel divergent --shape N=1024 --profile | FileCheck %s --check-prefix=DIVERGENT
// RUN: %tmc run %s --kernel copy_async --shape N=1024 --profile | FileCheck %s --check-prefix=ASYNC
// Barriers in a loop (K / BK = 8 iterations of two), and three times the
// minimum traffic (each A and B tile is read by two blocks; C is written
// 16 bytes apart, a sector per two lanes).
// RUN: %tmc run %examples/matmul_simt.tm --shape M=128,N=128,K=64 --profile | FileCheck %s --check-prefix=MATMUL
// The same numbers in JSON, one document on standard output.
// RUN: %tmc run %s --kernel transpose_unpadded --shape R=64,C=64 --profile=json > %t.json
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); r=[s for s in d['sites'] if s['memory']=='shared' and s['access']=='read']; sys.exit(not (d['result']=='PASS' and d['barriers']['executed']==4 and r[0]['max_ways']==32 and r[0]['line']==67))" %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json

op copy(X: f32[N]) -> f32[N] { out[i] = X[i]; }
op column0(X: f32[N, 8]) -> f32[N] { out[i] = X[i, 0]; }
op transpose(X: f32[R, C]) -> f32[C, R] { out[i, j] = X[j, i]; }

kernel copy_coalesced(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 256)) block(256)
{
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) {
      Y[g] = X[g];
    }
  }
}

// Lane l reads X[g, 0]: one float of each 32-byte row.
kernel copy_strided(X: f32[N, 8], Y: f32[N]) implements column0 grid(cdiv(N, 256)) block(256)
{
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) {
      Y[g] = X[g, 0];
    }
  }
}

// The tile's column tile[j, i] lies in one bank for all 32 lanes.
kernel transpose_unpadded(X: f32[R, C], Y: f32[C, R])
    implements transpose
    grid(cdiv(C, 32), cdiv(R, 32)) block(256)
{
  shared tile: f32[32, 32];
  let m = repeat(4, 1) * spatial(8, 32);
  for (i, j) in m on threadIdx.x {
    let r = blockIdx.y * 32 + i;
    let c = blockIdx.x * 32 + j;
    if (r < R && c < C) {
      tile[i, j] = X[r, c];
    }
  }
  sync;
  for (i, j) in m on threadIdx.x {
    let r = blockIdx.x * 32 + i;
    let c = blockIdx.y * 32 + j;
    if (r < C && c < R) {
      Y[r, c] = tile[j, i];
    }
  }
}

// One lane in four takes the first branch.
kernel divergent(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 256)) block(256)
{
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (i % 4 == 0) {
      Y[g] = X[g];
    } else {
      Y[g] = X[g] * 1.0;
    }
  }
}

// 16-byte copies from global to shared memory, then a coalesced copy out.
kernel copy_async(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 1024)) block(256)
{
  shared s: f32[1024];
  let base = blockIdx.x * 1024;
  cp_async(s[4 * threadIdx.x], X[base + 4 * threadIdx.x], 16);
  cp_async_commit();
  cp_async_wait(0);
  sync;
  for i in repeat(4) * spatial(256) on threadIdx.x {
    Y[base + i] = s[i];
  }
}

// COALESCED: result: {{ *}}PASS
// COALESCED: profile: {{ *}}4 blocks of 256 threads on the CPU executor
// COALESCED: global: {{ *}}8192 bytes moved (256 sectors of 32 bytes): 1.00x the minimum of 8192 bytes (its 2 tensors once)
// COALESCED-NEXT: 64 warp instructions requested 8192 bytes: 100.0% sector efficiency
// COALESCED: shared: {{ *}}no accesses
// COALESCED: barriers: {{ *}}0 executed
// COALESCED: location access tensor warp insts lanes requested sectors per inst efficiency
// COALESCED-NEXT: profile_memory.tm:32:7 write Y 32 32.0 4096 128 4.0 100.0%
// COALESCED-NEXT: profile_memory.tm:32:14 read X 32 32.0 4096 128 4.0 100.0%

// A sector per lane: 12.5% of what is moved is used.
// STRIDED: global: {{ *}}36864 bytes moved (1152 sectors of 32 bytes)
// STRIDED: profile_memory.tm:43:14 read X 32 32.0 4096 1024 32.0 12.5%
// STRIDED-NEXT: profile_memory.tm:43:7 write Y 32 32.0 4096 128 4.0 100.0%

// CONFLICT: result: {{ *}}PASS
// CONFLICT: shared: {{ *}}4224 wavefronts for 256 warp instructions, 256 without conflicts: 3968 bank conflicts
// CONFLICT: barriers: {{ *}}4 executed (1 per block)
// CONFLICT: global memory, by sectors:
// CONFLICT: profile_memory.tm:59:20 read X 128 32.0 16384 512 4.0 100.0%
// CONFLICT-NEXT: profile_memory.tm:67:7 write Y 128 32.0 16384 512 4.0 100.0%
// CONFLICT: shared memory, by wavefronts:
// CONFLICT-NEXT: location access tensor warp insts lanes requested wavefronts ideal max ways conflicts
// CONFLICT-NEXT: profile_memory.tm:67:17 read tile 128 32.0 16384 4096 128 32 3968
// CONFLICT-NEXT: profile_memory.tm:59:7 write tile 128 32.0 16384 128 128 1 0
// CONFLICT: barriers, by count:
// CONFLICT-NEXT: location executed
// CONFLICT-NEXT: profile_memory.tm:62:3 4

// PADDED: shared: {{ *}}256 wavefronts for 256 warp instructions, 256 without conflicts: 0 bank conflicts
// PADDED: transpose.tm:21:7 write tile 128 32.0 16384 128 128 1 0
// PADDED-NEXT: transpose.tm:29:17 read tile 128 32.0 16384 128 128 1 0

// 8 and 24 active lanes: the sectors are the same, so the efficiency is
// 25% and 75%, and every sector is moved twice.
// DIVERGENT: global: {{ *}}16384 bytes moved (512 sectors of 32 bytes): 2.00x the minimum of 8192 bytes
// DIVERGENT: profile_memory.tm:78:7 write Y 32 8.0 1024 128 4.0 25.0%
// DIVERGENT-NEXT: profile_memory.tm:78:14 read X 32 8.0 1024 128 4.0 25.0%
// DIVERGENT-NEXT: profile_memory.tm:80:7 write Y 32 24.0 3072 128 4.0 75.0%
// DIVERGENT-NEXT: profile_memory.tm:80:14 read X 32 24.0 3072 128 4.0 75.0%

// 16 bytes per lane: 16 sectors per warp from global memory, four
// quarter-warp wavefronts into shared memory.
// ASYNC: profile: {{ *}}1 block of 256 threads
// ASYNC: profile_memory.tm:90:3 cp_async X 8 32.0 4096 128 16.0 100.0%
// ASYNC-NEXT: profile_memory.tm:95:5 write Y 32 32.0 4096 128 4.0 100.0%
// ASYNC: profile_memory.tm:90:3 cp_async s 8 32.0 4096 32 32 1 0
// ASYNC-NEXT: profile_memory.tm:95:19 read s 32 32.0 4096 32 32 1 0
// ASYNC: profile_memory.tm:93:3 1

// MATMUL: result: {{ *}}PASS
// MATMUL: global: {{ *}}393216 bytes moved (12288 sectors of 32 bytes): 3.00x the minimum of 131072 bytes (its 3 tensors once)
// MATMUL: barriers: {{ *}}64 executed (16 per block)
// MATMUL: matmul_simt.tm:47:7 write C 512 32.0 65536 8192 16.0 25.0%

// JSON: "kernel": "transpose_unpadded",
// JSON: "shapes": {"C": 64, "R": 64},
// JSON: "result": "PASS",
// JSON: "global": {"warp_instructions": 256, "requested_bytes": 32768, "sectors": 1024, "bytes_moved": 32768, "min_bytes": 32768, "moved_over_min": 1, "efficiency": 1},
// JSON: "shared": {"warp_instructions": 256, "requested_bytes": 32768, "wavefronts": 4224, "ideal_wavefronts": 256, "bank_conflicts": 3968},
// JSON: "barriers": {"executed": 4, "per_block": 1},
// JSON: "sites": [
// JSON: {"file": "{{.*}}profile_memory.tm", "line": 67, "column": 17, "memory": "shared", "access": "read", "tensor": "tile", "bytes_per_lane": 4, "warp_instructions": 128, "active_lanes": 4096, "average_active_lanes": 32, "requested_bytes": 16384, "wavefronts": 4096, "ideal_wavefronts": 128, "max_ways": 32, "bank_conflicts": 3968}
// JSON: {"file": "{{.*}}profile_memory.tm", "line": 62, "column": 3, "memory": "none", "access": "sync", "executed": 4}
