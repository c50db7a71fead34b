// A kernel's signature as its metadata describes it, and the argument
// checks done before every launch (host side, no driver needed).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/tmc_runtime.h"

namespace tmc::runtime {

struct Json;

struct ParamInfo {
  std::string name;
  enum class Kind { Tensor, Scalar, Shape } kind = Kind::Scalar;
  tmc_dtype dtype = TMC_F32;
  std::vector<std::string> shape;  // tensors: formulas over shape symbols
  bool dense = true;               // tensors: row- or col-major (not strided or swizzled)
  // Tensors passed as TMA tensor maps (`by tma`): the box (outermost
  // dimension first; empty when the kernel never copies through the map)
  // and the swizzle span in bytes (0, 32, 64, 128).
  bool tma = false;
  std::vector<int64_t> tma_box;
  int tma_swizzle = 0;
};

struct KernelSignature {
  std::string name;
  std::string implements;
  std::vector<ParamInfo> params;
  std::vector<std::string> grid;   // formulas over parameter names
  std::vector<int64_t> block;
  int64_t cluster[3] = {1, 1, 1};  // blocks per thread-block cluster
  int64_t shared_bytes = 0;
  bool dynamic_shared = false;
  /// Width of the kernel's element offsets into dense tensors: with 32, a
  /// launch with a tensor of 2^31 or more elements is refused.
  int index_bits = 64;
  /// Launch conditions (formulas that must be nonzero), from `where`
  /// constraints over shape symbols.
  std::vector<std::string> launch_conditions;
};

/// Reads the kernels of `tmc --emit=meta` output.
bool ParseKernelMetadata(const std::string& json, std::vector<KernelSignature>* kernels, std::string* error);

/// The most blocks a grid may have along x, y and z (CUDA's limits, which
/// the CPU executor enforces too).
constexpr int64_t kMaxGridDim[3] = {2147483647, 65535, 65535};

/// Evaluates a launch or shape formula (integers, names, + - * / %,
/// parentheses, max(a, b) and min(a, b); comparisons, &&, || and ! giving
/// 1 or 0) with the given
/// values of the names, exactly: a division by zero or a value past 64
/// bits is an error.
std::optional<int64_t> EvalFormula(const std::string& formula, const std::map<std::string, int64_t>& names,
                                   std::string* error);

/// What a launch needs once the arguments are checked.
struct CheckedLaunch {
  std::map<std::string, int64_t> symbols;  // shape symbols and integer scalars, by name
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t cluster[3] = {1, 1, 1};
};

/// Why a grid cannot be launched in clusters of `cluster` blocks (each
/// dimension must be a multiple of the cluster's), or "" when it can.
std::string ClusterGridError(const int64_t grid[3], const int64_t cluster[3]);

/// Checks `args` (the parameters as written, without shape symbols) against
/// the signature: count, tensor-ness, dtype, rank, shape symbols bound
/// consistently, fixed dimensions; then evaluates the grid. On a mismatch,
/// returns false with a message naming the argument.
bool CheckArguments(const KernelSignature& sig, const tmc_arg* args, int num_args, CheckedLaunch* out,
                    std::string* error);

/// Why a tensor of `shape` cannot be passed as a TMA tensor map (its
/// strides must be multiples of 16 bytes, so its rows), or "" when it can.
std::string TmaShapeError(const std::vector<int64_t>& shape, size_t elem_bytes);

/// A scalar argument as the kernel's parameter of type `dtype` holds it, in
/// the low bytes of a 64-bit slot: floating-point types from `a.value.f`
/// (f16 and bf16 rounded to nearest even), the others from `a.value.i`.
uint64_t PackScalar(tmc_dtype dtype, const tmc_arg& a);

/// "f16" -> TMC_F16.
bool ParseDtype(const std::string& s, tmc_dtype* d);
/// One parameter of the metadata ({"name", "kind", "dtype", "shape",
/// "layout"}); false when malformed.
bool ParseParamInfo(const Json& p, ParamInfo* info);

const char* DtypeName(tmc_dtype d);
size_t DtypeBytes(tmc_dtype d);

}  // namespace tmc::runtime
