// --all-candidates with some parameters fixed by -D: each candidate is
// compiled with the -D values applied to its own kernel only, so another
// kernel of the module with parameters of the same names, at its own
// default values, cannot exclude it through its 'where'.
// RUN: rm -rf %t && %tmc %s --all-candidates -D A=128 -D B=128 -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=INDEX < %t/index.json
// CHECK: tmc: 4 candidates: 2 compiled, 2 excluded by 'where', 0 failed
// INDEX: {"kernel": "k", "params": {"A": 128, "B": 128, "C": 4}, "default": true, "status": "excluded"
// INDEX: {"kernel": "k", "params": {"A": 128, "B": 128, "C": 8}, "status": "ok"
// INDEX: {"kernel": "k2", "params": {"A": 128, "B": 128, "C": 4}, "default": true, "status": "excluded"
// INDEX: {"kernel": "k2", "params": {"A": 128, "B": 128, "C": 8}, "status": "ok"

op cp(X: f32[N]) -> f32[N] { out[i] = X[i]; }

kernel k<A: int in [64, 128], B: int in [64, 128] = 64, C: int in [4, 8] = 4>(X: f32[N], Y: f32[N])
    implements cp where A * (B / C) <= 2048 grid(cdiv(N, 32)) block(32)
{
  let i = blockIdx.x * 32 + threadIdx.x;
  if (i < N) { Y[i] = X[i]; }
}

kernel k2<A: int in [64, 128], B: int in [64, 128] = 64, C: int in [4, 8] = 4>(X: f32[N], Y: f32[N])
    implements cp where A * (B / C) <= 2048 grid(cdiv(N, 32)) block(32)
{
  let i = blockIdx.x * 32 + threadIdx.x;
  if (i < N) { Y[i] = X[i]; }
}
