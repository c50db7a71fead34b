// Checking a kernel's output against its reference, shared by `tmc run`
// and tmc-replay: the poison that marks never-written elements, the
// per-type tolerances, and the comparison itself (NaN and Inf counted as
// such, never folded into an error norm).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/tmc_runtime.h"

namespace tmc::runtime {

/// An element passes when |got - want| <= atol + rtol * |want|; the output
/// passes when every element does, or when its relative L2 error is at
/// most rtol (docs/runtime.md, "Tolerances").
struct Tolerance {
  double rtol = 0, atol = 0;
};

/// The defaults: f32 1e-4 / 1e-5, f16 and bf16 1e-2 / 1e-2, f64 1e-10 /
/// 1e-12; integers and bool exact.
Tolerance DefaultTolerance(tmc_dtype t);

/// Bytes of one element (bool is a byte).
int ElementBytes(tmc_dtype t);
/// Element `i` of `data`, as a double.
double ElementValue(const void* data, tmc_dtype t, int64_t i);
/// Writes `v` (converted to `t`) into element `i`.
void SetElement(void* data, tmc_dtype t, int64_t i, double v);

/// Fills `count` elements with poison `pattern` (0 or 1): for floats a NaN
/// whose payload no arithmetic produces; for integers and bool a fixed bit
/// pattern (0xA5... or 0x5A...), which a kernel may also write, so a
/// caller confirms integer poison with the other pattern.
void Poison(void* data, tmc_dtype t, int64_t count, int pattern);
bool IsPoison(const void* data, tmc_dtype t, int64_t i, int pattern);

struct Comparison {
  int64_t count = 0;       // elements
  int64_t unwritten = 0;   // never written (per the caller's mask)
  int64_t nan = 0, inf = 0;          // written NaN / Inf elements of the output
  int64_t ref_nan = 0, ref_inf = 0;  // NaN / Inf elements of the reference
  int64_t nonfinite_mismatch = 0;    // NaN or Inf where the reference differs
  int64_t compared = 0;              // elements where both are finite
  int64_t outside = 0;               // of those, outside atol + rtol * |want|
  double rel_l2 = 0, max_abs = 0;    // over the compared elements
  bool pass = false;
};

/// Compares output `data` (`count` elements of type `t`) with `reference`.
/// `unwritten[i]` marks elements the kernel never wrote (may be empty).
Comparison CompareOutput(const void* data, tmc_dtype t, int64_t count, const double* reference, Tolerance tol,
                         const std::vector<bool>& unwritten);

}  // namespace tmc::runtime
