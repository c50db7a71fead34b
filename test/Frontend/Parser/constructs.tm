// Every construct of the language, parsed and checked; the AST dump is the
// format `tmc --emit=ast` promises (stable, one line per node).
// RUN: %tmc %s --emit=ast | FileCheck %s

import std.nn;

let TILE = 4 * 8;
let lanes: i32 = 32;
let m2 = spatial(4, 8) * repeat(2, 2);

op axpy(X: f32[N], Y: f32[N], alpha: f32) -> f32[N] { out[i] = alpha * X[i] + Y[i]; }

func clampf(x: f32, lo: f32, hi: f32) -> f32 {
  if (x < lo) {
    return lo;
  } else if (x > hi) {
    return hi;
  } else {
    return x;
  }
}

kernel everything<B: int in [128, 256] = 128, USE: bool = true>
    (X: f32[N], Y: f32[N] col_major, alpha: f32, O: f32[N])
    implements axpy
    where B % 32 == 0
    grid(cdiv(N, B)) block(B)
{
  shared s: f32[32, 33];
  shared sw: f16[64, 64] swizzle(3, 3, 3);
  register r: f32[4];
  let m = repeat(2) * spatial(B / 2);
  register d: f32[B] by m;
  var acc: f32 = 0.0;
  var k = 0;
  var flags: u32;
  flags = 0xFFu32;
  flags &= ~0b1010u;
  flags <<= 2;
  for i in m on threadIdx.x { d[i] = X[blockIdx.x * B + i % B]; }
  for j in range(0, N, 2) { acc += f32(j) * 0.5f; }
  for u in unroll(4) { r[u] = 1.5e-3; }
  while (k < 10 && USE) {
    k += 1;
    if (k == 3) { continue; }
    if (k > 8) { break; }
  }
  let t = threadIdx.x;
  s[t / 33, t % 32] = select(t < 32, acc, -acc);
  sync;
  let v = shfl_xor(acc, 1) + shfl_down(acc, 2) + f32(lane_id + warp_id);
  let old = atomic_add(Y[0], v);
  Y[t % N] = clampf(exp(v) * sqrt(abs(old)), 0.0, 1.0) + r[0] + alpha;
  O[t % N] = f32(f16(sw[0, 1]));
  if (t == 0) { return; }
}

// CHECK: Module "{{.*}}constructs.tm"
// CHECK-NEXT:   Import <5:1> std.nn
// CHECK-NEXT:   Const <7:1> TILE = (4 * 8)
// CHECK-NEXT:   Const <8:1> lanes: i32 = 32
// CHECK-NEXT:   Const <9:1> m2 = (spatial(4, 8) * repeat(2, 2))
// CHECK-NEXT:   Op <11:1> axpy
// CHECK-NEXT:     Param <11:9> X: f32[N]
// CHECK-NEXT:     Param <11:20> Y: f32[N]
// CHECK-NEXT:     Param <11:31> alpha: f32
// CHECK-NEXT:     Result <11:46> f32[N]
// CHECK-NEXT:     OpOut <11:55> out[i] = ((alpha * X[i]) + Y[i])
// CHECK-NEXT:   Func <13:1> clampf -> f32
// CHECK-NEXT:     Param <13:13> x: f32
// CHECK-NEXT:     Param <13:21> lo: f32
// CHECK-NEXT:     Param <13:30> hi: f32
// CHECK-NEXT:     Block <13:46>
// CHECK-NEXT:       If <14:3> (x < lo)
// CHECK-NEXT:         Block <14:15>
// CHECK-NEXT:           Return <15:5> lo
// CHECK-NEXT:       Else <16:10>
// CHECK-NEXT:         If <16:10> (x > hi)
// CHECK-NEXT:           Block <16:22>
// CHECK-NEXT:             Return <17:5> hi
// CHECK-NEXT:         Else <18:10>
// CHECK-NEXT:           Block <18:10>
// CHECK-NEXT:             Return <19:5> x
// CHECK-NEXT:   Kernel <23:1> everything
// CHECK-NEXT:     CtParam <23:19> B: i32 in [128, 256] = 128
// CHECK-NEXT:     CtParam <23:47> USE: bool = true
// CHECK-NEXT:     Param <24:6> X: f32[N]
// CHECK-NEXT:     Param <24:17> Y: f32[N] col_major
// CHECK-NEXT:     Param <24:38> alpha: f32
// CHECK-NEXT:     Param <24:50> O: f32[N]
// CHECK-NEXT:     Implements <25:16> axpy
// CHECK-NEXT:     Where <26:11> ((B % 32) == 0)
// CHECK-NEXT:     LaunchGrid <27:5> cdiv(N, B)
// CHECK-NEXT:     LaunchBlock <27:22> B
// CHECK-NEXT:     Block <28:1>
// CHECK-NEXT:       Shared <29:3> s: f32[32, 33]
// CHECK-NEXT:       Shared <30:3> sw: f16[64, 64] swizzle(3, 3, 3)
// CHECK-NEXT:       Register <31:3> r: f32[4]
// CHECK-NEXT:       Let <32:3> m = (repeat(2) * spatial((B / 2)))
// CHECK-NEXT:       Register <33:3> d: f32[B] by m
// CHECK-NEXT:       Var <34:3> acc: f32 = 0.0
// CHECK-NEXT:       Var <35:3> k = 0
// CHECK-NEXT:       Var <36:3> flags: u32
// CHECK-NEXT:       Assign <37:3> flags = 255u32
// CHECK-NEXT:       Assign <38:3> flags &= (~10u32)
// CHECK-NEXT:       Assign <39:3> flags <<= 2
// CHECK-NEXT:       For <40:3> i in m on threadIdx.x
// CHECK-NEXT:         Block <40:29>
// CHECK-NEXT:           Assign <40:31> d[i] = X[((blockIdx.x * B) + (i % B))]
// CHECK-NEXT:       For <41:3> j in range(0, N, 2)
// CHECK-NEXT:         Block <41:27>
// CHECK-NEXT:           Assign <41:29> acc += (f32(j) * 0.5f)
// CHECK-NEXT:       For <42:3> u in unroll(4)
// CHECK-NEXT:         Block <42:22>
// CHECK-NEXT:           Assign <42:24> r[u] = 1.5e-3
// CHECK-NEXT:       While <43:3> ((k < 10) && USE)
// CHECK-NEXT:         Block <43:25>
// CHECK-NEXT:           Assign <44:5> k += 1
// CHECK-NEXT:           If <45:5> (k == 3)
// CHECK-NEXT:             Block <45:17>
// CHECK-NEXT:               Continue <45:19>
// CHECK-NEXT:           If <46:5> (k > 8)
// CHECK-NEXT:             Block <46:16>
// CHECK-NEXT:               Break <46:18>
// CHECK-NEXT:       Let <48:3> t = threadIdx.x
// CHECK-NEXT:       Assign <49:3> s[(t / 33), (t % 32)] = select((t < 32), acc, (-acc))
// CHECK-NEXT:       Sync <50:3>
// CHECK-NEXT:       Let <51:3> v = ((shfl_xor(acc, 1) + shfl_down(acc, 2)) + f32((lane_id + warp_id)))
// CHECK-NEXT:       Let <52:3> old = atomic_add(Y[0], v)
// CHECK-NEXT:       Assign <53:3> Y[(t % N)] = ((clampf((exp(v) * sqrt(abs(old))), 0.0, 1.0) + r[0]) + alpha)
// CHECK-NEXT:       Assign <54:3> O[(t % N)] = f32(f16(sw[0, 1]))
// CHECK-NEXT:       If <55:3> (t == 0)
// CHECK-NEXT:         Block <55:15>
// CHECK-NEXT:           Return <55:17>
