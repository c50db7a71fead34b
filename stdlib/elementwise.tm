// std.elementwise: element-wise and broadcast operators on rows, with
// kernels for f32, f16 and bf16. A block of 256 threads covers 256 * V
// columns of one row; each thread handles V contiguous elements, which the
// compiler turns into one 16-byte load and store (V = 8 for 16-bit types,
// 4 for f32) when the row length allows it, and element by element in the
// tail. The math runs in f32. The grid is one-dimensional (the row's
// blocks, row after row), so R may exceed the 65535 blocks of a grid's y
// extent.

import std.nn;  // ops relu, gelu (erf), add_bias

func gelu_erf(x: f32) -> f32 { return 0.5 * x * (1.0 + erf(x * 0.7071067811865476)); }
func gelu_tanh(x: f32) -> f32 { return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
func silu(x: f32) -> f32 { return x / (1.0 + exp(-x)); }

op gelu_approx<T>(X: T[R, C]) -> T[R, C] { out[i, j] = gelu_tanh(f32(X[i, j])); }
op silu_op<T>(X: T[R, C]) -> T[R, C] { out[i, j] = silu(f32(X[i, j])); }
op sigmoid_op<T>(X: T[R, C]) -> T[R, C] { out[i, j] = sigmoid(X[i, j]); }
op tanh_op<T>(X: T[R, C]) -> T[R, C] { out[i, j] = tanh(X[i, j]); }
op exp_op<T>(X: T[R, C]) -> T[R, C] { out[i, j] = exp(X[i, j]); }
op abs_op<T>(X: T[R, C]) -> T[R, C] { out[i, j] = abs(X[i, j]); }
op neg_op<T>(X: T[R, C]) -> T[R, C] { out[i, j] = -X[i, j]; }

// Binary arithmetic with broadcasting: Y is [R, C], [1, C] (a row for
// every row), [R, 1] (a value per row) or [1, 1]; a kernel's launch
// condition says which of the four it was compiled for.
op add<T>(X: T[R, C], Y: T[RY, CY]) -> T[R, C] { out[i, j] = X[i, j] + Y[i % RY, j % CY]; }
op sub<T>(X: T[R, C], Y: T[RY, CY]) -> T[R, C] { out[i, j] = X[i, j] - Y[i % RY, j % CY]; }
op mul<T>(X: T[R, C], Y: T[RY, CY]) -> T[R, C] { out[i, j] = X[i, j] * Y[i % RY, j % CY]; }
op div<T>(X: T[R, C], Y: T[RY, CY]) -> T[R, C] { out[i, j] = X[i, j] / Y[i % RY, j % CY]; }
op maximum<T>(X: T[R, C], Y: T[RY, CY]) -> T[R, C] { out[i, j] = max(X[i, j], Y[i % RY, j % CY]); }
op minimum<T>(X: T[R, C], Y: T[RY, CY]) -> T[R, C] { out[i, j] = min(X[i, j], Y[i % RY, j % CY]); }
op cast<T, U>(X: T[R, C]) -> U[R, C] { out[i, j] = X[i, j]; }

kernel relu_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements relu grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(max(f32(X[row, c]), 0.0)); }
  }
}

kernel gelu_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements gelu grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  // Loads, math, stores in separate loops: the math's calls would
  // otherwise split the accesses that become one vector access.
  register v: f32[256 * V] by spatial(256) * repeat(V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    v[i] = c < C ? f32(X[row, c]) : 0.0;
  }
  for i in spatial(256) * repeat(V) on threadIdx.x { v[i] = gelu_erf(v[i]); }
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(v[i]); }
  }
}

kernel gelu_tanh_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements gelu_approx grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  // Loads, math, stores in separate loops: the math's calls would
  // otherwise split the accesses that become one vector access.
  register v: f32[256 * V] by spatial(256) * repeat(V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    v[i] = c < C ? f32(X[row, c]) : 0.0;
  }
  for i in spatial(256) * repeat(V) on threadIdx.x { v[i] = gelu_tanh(v[i]); }
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(v[i]); }
  }
}

kernel silu_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements silu_op grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(silu(f32(X[row, c]))); }
  }
}

kernel sigmoid_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements sigmoid_op grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(sigmoid(f32(X[row, c]))); }
  }
}

kernel tanh_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements tanh_op grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  register v: f32[256 * V] by spatial(256) * repeat(V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    v[i] = c < C ? f32(X[row, c]) : 0.0;
  }
  for i in spatial(256) * repeat(V) on threadIdx.x { v[i] = tanh(v[i]); }
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(v[i]); }
  }
}

kernel exp_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements exp_op grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  register v: f32[256 * V] by spatial(256) * repeat(V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    v[i] = c < C ? f32(X[row, c]) : 0.0;
  }
  for i in spatial(256) * repeat(V) on threadIdx.x { v[i] = exp(v[i]); }
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(v[i]); }
  }
}

kernel abs_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements abs_op grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(abs(f32(X[row, c]))); }
  }
}

kernel neg_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], Y: T[R, C])
    implements neg_op grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(-f32(X[row, c])); }
  }
}

// Binary kernels: RB and CB say whether Y is broadcast along rows (Y has
// one row) and along columns (Y has one column); `tmc run` and a
// deployment pick the candidate whose launch condition holds. A broadcast
// index is the constant 0, so the accesses to Y stay 16-byte vectors when
// Y is not broadcast along columns.
kernel add_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8, RB: bool in [false, true], CB: bool in [false, true]>(
    X: T[R, C], Y: T[RY, CY], Z: T[R, C])
    implements add where (RB && RY == 1 || !RB && RY == R) && (CB && CY == 1 || !CB && CY == C)
    grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  let ry = RB ? 0 : row;
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) {
      let a = f32(X[row, c]);
      let b = f32(Y[ry, CB ? 0 : c]);
      Z[row, c] = T(a + b);
    }
  }
}

kernel sub_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8, RB: bool in [false, true], CB: bool in [false, true]>(
    X: T[R, C], Y: T[RY, CY], Z: T[R, C])
    implements sub where (RB && RY == 1 || !RB && RY == R) && (CB && CY == 1 || !CB && CY == C)
    grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  let ry = RB ? 0 : row;
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) {
      let a = f32(X[row, c]);
      let b = f32(Y[ry, CB ? 0 : c]);
      Z[row, c] = T(a - b);
    }
  }
}

kernel mul_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8, RB: bool in [false, true], CB: bool in [false, true]>(
    X: T[R, C], Y: T[RY, CY], Z: T[R, C])
    implements mul where (RB && RY == 1 || !RB && RY == R) && (CB && CY == 1 || !CB && CY == C)
    grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  let ry = RB ? 0 : row;
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) {
      let a = f32(X[row, c]);
      let b = f32(Y[ry, CB ? 0 : c]);
      Z[row, c] = T(a * b);
    }
  }
}

kernel div_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8, RB: bool in [false, true], CB: bool in [false, true]>(
    X: T[R, C], Y: T[RY, CY], Z: T[R, C])
    implements div where (RB && RY == 1 || !RB && RY == R) && (CB && CY == 1 || !CB && CY == C)
    grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  let ry = RB ? 0 : row;
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) {
      let a = f32(X[row, c]);
      let b = f32(Y[ry, CB ? 0 : c]);
      Z[row, c] = T(a / b);
    }
  }
}

kernel maximum_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8, RB: bool in [false, true], CB: bool in [false, true]>(
    X: T[R, C], Y: T[RY, CY], Z: T[R, C])
    implements maximum where (RB && RY == 1 || !RB && RY == R) && (CB && CY == 1 || !CB && CY == C)
    grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  let ry = RB ? 0 : row;
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) {
      let a = f32(X[row, c]);
      let b = f32(Y[ry, CB ? 0 : c]);
      Z[row, c] = T(max(a, b));
    }
  }
}

kernel minimum_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8, RB: bool in [false, true], CB: bool in [false, true]>(
    X: T[R, C], Y: T[RY, CY], Z: T[R, C])
    implements minimum where (RB && RY == 1 || !RB && RY == R) && (CB && CY == 1 || !CB && CY == C)
    grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  let ry = RB ? 0 : row;
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) {
      let a = f32(X[row, c]);
      let b = f32(Y[ry, CB ? 0 : c]);
      Z[row, c] = T(min(a, b));
    }
  }
}

// Broadcast: a bias row added to every row.
kernel add_bias_rows<T: type in [f32, f16, bf16], V: int in [4, 8] = 8>(X: T[R, C], b: T[C], Y: T[R, C])
    implements add_bias grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = T(f32(X[row, c]) + f32(b[c])); }
  }
}

// Conversions between the float types (rounded to nearest even).
kernel cast_rows<T: type in [f32, f16, bf16], U: type in [f32, f16, bf16] = f16, V: int in [4, 8] = 8>(
    X: T[R, C], Y: U[R, C]) implements cast grid(cdiv(C, 256 * V) * R) block(256)
{
  let row = blockIdx.x / cdiv(C, 256 * V);
  let cb = blockIdx.x % cdiv(C, 256 * V);
  for i in spatial(256) * repeat(V) on threadIdx.x {
    let c = cb * 256 * V + i;
    if (c < C) { Y[row, c] = U(X[row, c]); }
  }
}
