// The host runtime without a GPU: metadata, argument checks, launch
// formulas, and the no-driver path.
#include <gtest/gtest.h>

#include <cstdlib>

#include "codegen/cpu/cpu_abi.h"
#include "runtime/graph_plan.h"
#include "runtime/kernel_signature.h"
#include "runtime/tmc_runtime.h"
#include "tools/tmc/version.h"

namespace tmc::runtime {
namespace {

// What `tmc examples/matmul_simt.tm --emit=meta` writes.
constexpr const char* kMatmulMeta = R"json({
  "module": "examples/matmul_simt.tm",
  "arch": "sm_80",
  "kernels": [
    {
      "name": "matmul_simt",
      "implements": "matmul",
      "params": [
        {"name": "A", "kind": "tensor", "dtype": "f32", "shape": ["M", "K"], "layout": "row_major"},
        {"name": "B", "kind": "tensor", "dtype": "f32", "shape": ["K", "N"], "layout": "row_major"},
        {"name": "C", "kind": "tensor", "dtype": "f32", "shape": ["M", "N"], "layout": "row_major"},
        {"name": "alpha", "kind": "scalar", "dtype": "f32"},
        {"name": "M", "kind": "shape", "dtype": "i32"},
        {"name": "K", "kind": "shape", "dtype": "i32"},
        {"name": "N", "kind": "shape", "dtype": "i32"}
      ],
      "grid": ["((N + 63) / 64)", "((M + 63) / 64)"],
      "block": [256],
      "shared_bytes": 4096,
      "dynamic_shared": false,
      "index_bits": 32,
      "compile_time": {"BM": 64, "BN": 64, "BK": 8}
    },
    {
      "name": "fixed",
      "implements": null,
      "params": [
        {"name": "X", "kind": "tensor", "dtype": "f16", "shape": ["R", "4"], "layout": "row_major"},
        {"name": "Y", "kind": "tensor", "dtype": "f16", "shape": ["(2 * R)"], "layout": "row_major"},
        {"name": "R", "kind": "shape", "dtype": "i32"}
      ],
      "grid": ["R"],
      "block": [32, 2],
      "shared_bytes": 65536,
      "dynamic_shared": true,
      "compile_time": {}
    }
  ]
})json";

tmc_arg Tensor(tmc_dtype dtype, std::vector<int64_t> shape, uint64_t data = 256) {
  tmc_arg a{};
  a.is_tensor = 1;
  a.tensor.data = data;
  a.tensor.dtype = dtype;
  a.tensor.rank = static_cast<int>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) a.tensor.shape[i] = shape[i];
  return a;
}

tmc_arg Scalar(tmc_dtype dtype, double v) {
  tmc_arg a{};
  a.dtype = dtype;
  a.value.f = v;
  return a;
}

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(ParseKernelMetadata(kMatmulMeta, &kernels, &error)) << error;
    ASSERT_EQ(kernels.size(), 2u);
  }
  std::vector<KernelSignature> kernels;
};

TEST_F(RuntimeTest, ParsesMetadata) {
  const KernelSignature& k = kernels[0];
  EXPECT_EQ(k.name, "matmul_simt");
  EXPECT_EQ(k.implements, "matmul");
  ASSERT_EQ(k.params.size(), 7u);
  EXPECT_EQ(k.params[1].shape, (std::vector<std::string>{"K", "N"}));
  EXPECT_EQ(k.params[4].kind, ParamInfo::Kind::Shape);
  EXPECT_EQ(k.block, (std::vector<int64_t>{256}));
  EXPECT_TRUE(kernels[1].dynamic_shared);
  EXPECT_EQ(kernels[1].shared_bytes, 65536);
  EXPECT_EQ(k.index_bits, 32);
  EXPECT_EQ(kernels[1].index_bits, 64);  // metadata without the field: 64-bit offsets
}

// A kernel with 32-bit element offsets refuses a tensor of 2^31 or more
// elements (each dimension alone is legal); one with 64-bit offsets takes it.
TEST_F(RuntimeTest, RefusesTensorsPast32BitOffsets) {
  CheckedLaunch launch;
  std::string error;
  std::vector<tmc_arg> args = {Tensor(TMC_F32, {65536, 32768}), Tensor(TMC_F32, {32768, 2}),
                               Tensor(TMC_F32, {65536, 2}), Scalar(TMC_F32, 1.0)};
  EXPECT_FALSE(CheckArguments(kernels[0], args.data(), 4, &launch, &error));
  EXPECT_EQ(error,
            "argument 1 ('A') has 2147483648 elements, but kernel 'matmul_simt' was compiled with 32-bit element "
            "offsets (at most 2^31 - 1 elements per tensor); compile it with -findex-bits=64");
  args[0] = Tensor(TMC_F32, {65535, 32768});  // 2^31 - 32768 elements
  args[2] = Tensor(TMC_F32, {65535, 2});
  EXPECT_TRUE(CheckArguments(kernels[0], args.data(), 4, &launch, &error)) << error;
  KernelSignature wide = kernels[0];
  wide.index_bits = 64;
  args[0] = Tensor(TMC_F32, {65536, 32768});
  args[2] = Tensor(TMC_F32, {65536, 2});
  EXPECT_TRUE(CheckArguments(wide, args.data(), 4, &launch, &error)) << error;
}

TEST_F(RuntimeTest, BindsShapesAndComputesTheGrid) {
  std::vector<tmc_arg> args = {Tensor(TMC_F32, {100, 70}), Tensor(TMC_F32, {70, 130}), Tensor(TMC_F32, {100, 130}),
                               Scalar(TMC_F32, 1.5)};
  CheckedLaunch launch;
  std::string error;
  ASSERT_TRUE(CheckArguments(kernels[0], args.data(), 4, &launch, &error)) << error;
  EXPECT_EQ(launch.symbols.at("M"), 100);
  EXPECT_EQ(launch.symbols.at("K"), 70);
  EXPECT_EQ(launch.symbols.at("N"), 130);
  EXPECT_EQ(launch.grid[0], 3);
  EXPECT_EQ(launch.grid[1], 2);
  EXPECT_EQ(launch.block[0], 256);
}

TEST_F(RuntimeTest, RejectsMismatchesBeforeLaunching) {
  CheckedLaunch launch;
  std::string error;
  std::vector<tmc_arg> args = {Tensor(TMC_F32, {100, 70}), Tensor(TMC_F32, {64, 130}), Tensor(TMC_F32, {100, 130}),
                               Scalar(TMC_F32, 1.0)};
  EXPECT_FALSE(CheckArguments(kernels[0], args.data(), 4, &launch, &error));
  EXPECT_EQ(error, "argument 2 ('B'): dimension 0 is 64 but K = 70 from argument 1 ('A')");

  args[1] = Tensor(TMC_F16, {70, 130});
  EXPECT_FALSE(CheckArguments(kernels[0], args.data(), 4, &launch, &error));
  EXPECT_EQ(error, "argument 2 ('B') has dtype f16 but the kernel expects f32");

  args[1] = Tensor(TMC_F32, {70});
  EXPECT_FALSE(CheckArguments(kernels[0], args.data(), 4, &launch, &error));
  EXPECT_EQ(error, "argument 2 ('B') has rank 1 but the kernel expects 2");

  args[1] = Tensor(TMC_F32, {70, 130}, 260);
  EXPECT_FALSE(CheckArguments(kernels[0], args.data(), 4, &launch, &error));
  EXPECT_EQ(error, "argument 2 ('B') is not 16-byte aligned");

  args[1] = Scalar(TMC_F32, 2.0);
  EXPECT_FALSE(CheckArguments(kernels[0], args.data(), 4, &launch, &error));
  EXPECT_EQ(error, "argument 2 ('B') must be a tensor, not a scalar");

  EXPECT_FALSE(CheckArguments(kernels[0], args.data(), 3, &launch, &error));
  EXPECT_EQ(error, "kernel 'matmul_simt' takes 4 arguments, 3 given");
}

TEST_F(RuntimeTest, ChecksFixedAndDerivedDimensions) {
  CheckedLaunch launch;
  std::string error;
  std::vector<tmc_arg> args = {Tensor(TMC_F16, {5, 4}), Tensor(TMC_F16, {10})};
  ASSERT_TRUE(CheckArguments(kernels[1], args.data(), 2, &launch, &error)) << error;
  EXPECT_EQ(launch.grid[0], 5);
  EXPECT_EQ(launch.block[1], 2);
  args[0] = Tensor(TMC_F16, {5, 3});
  EXPECT_FALSE(CheckArguments(kernels[1], args.data(), 2, &launch, &error));
  EXPECT_EQ(error, "argument 1 ('X'): dimension 1 is 3 but the kernel requires 4 = 4");
  args[0] = Tensor(TMC_F16, {5, 4});
  args[1] = Tensor(TMC_F16, {11});
  EXPECT_FALSE(CheckArguments(kernels[1], args.data(), 2, &launch, &error));
  EXPECT_EQ(error, "argument 2 ('Y'): dimension 0 is 11 but the kernel requires (2 * R) = 10");
}

TEST(RuntimeFormula, Evaluates) {
  std::string error;
  EXPECT_EQ(EvalFormula("((N + 63) / 64)", {{"N", 65}}, &error), 2);
  EXPECT_EQ(EvalFormula("i64(M) * 2i64 - -1", {{"M", 4}}, &error), 9);
  EXPECT_FALSE(EvalFormula("N / 0", {{"N", 1}}, &error));
  // Conditions the compiler simplified to a constant (a `where` that holds for every shape).
  EXPECT_EQ(EvalFormula("true", {}, &error), 1);
  EXPECT_EQ(EvalFormula("(N > 2) && false", {{"N", 5}}, &error), 0);
  EXPECT_EQ(error, "in formula 'N / 0': division by zero");
  EXPECT_FALSE(EvalFormula("(N + 1", {{"N", 1}}, &error));
  EXPECT_FALSE(EvalFormula("Q", {}, &error));
  EXPECT_EQ(error, "in formula 'Q': unknown name 'Q'");
}

// Launch conditions: comparisons and logic give 1 or 0, as C orders them.
TEST(RuntimeFormula, EvaluatesConditions) {
  std::string error;
  EXPECT_EQ(EvalFormula("(256 >= C)", {{"C", 256}}, &error), 1);
  EXPECT_EQ(EvalFormula("(256 >= C)", {{"C", 257}}, &error), 0);
  EXPECT_EQ(EvalFormula("C < 4 || C == 8 && !(C != 8)", {{"C", 8}}, &error), 1);
  EXPECT_EQ(EvalFormula("1 + 2 > 2 && 3 <= 3", {}, &error), 1);
  EXPECT_EQ(EvalFormula("(C % 8 == 0)", {{"C", 12}}, &error), 0);
}

// A candidate serves only the shapes its conditions hold for.
TEST_F(RuntimeTest, ChecksLaunchConditions) {
  CheckedLaunch launch;
  std::string error;
  KernelSignature k = kernels[1];
  k.launch_conditions = {"(64 >= R)"};
  std::vector<tmc_arg> args = {Tensor(TMC_F16, {64, 4}), Tensor(TMC_F16, {128})};
  EXPECT_TRUE(CheckArguments(k, args.data(), 2, &launch, &error)) << error;
  args = {Tensor(TMC_F16, {65, 4}), Tensor(TMC_F16, {130})};
  EXPECT_FALSE(CheckArguments(k, args.data(), 2, &launch, &error));
  EXPECT_EQ(error, "compiled for shapes where (64 >= R) holds, not for R = 65: these shapes need a build with other "
                   "compile-time values (-D)");
  std::vector<KernelSignature> parsed;
  ASSERT_TRUE(ParseKernelMetadata(R"json({"kernels": [{"name": "k", "params": [], "requires": ["(1 >= 2)"]}]})json", &parsed,
                                  &error)) << error;
  EXPECT_EQ(parsed.at(0).launch_conditions, std::vector<std::string>{"(1 >= 2)"});
}

// Formulas are exact: past 64 bits is an error, never a wrapped value.
TEST(RuntimeFormula, ReportsOverflow) {
  std::string error;
  EXPECT_EQ(EvalFormula("N * N * N", {{"N", 2000}}, &error), 8000000000);
  EXPECT_FALSE(EvalFormula("N * N * N", {{"N", 3000000}}, &error));
  EXPECT_EQ(error, "in formula 'N * N * N': the value does not fit in 64 bits");
  EXPECT_FALSE(EvalFormula("99999999999999999999", {}, &error));
  EXPECT_FALSE(EvalFormula("-N - N", {{"N", INT64_MAX}}, &error));
}

// The grid is checked against the hardware's limits, naming the formula.
TEST_F(RuntimeTest, ChecksGridLimits) {
  CheckedLaunch launch;
  std::string error;
  KernelSignature k = kernels[1];
  std::vector<tmc_arg> args = {Tensor(TMC_F16, {70000, 4}), Tensor(TMC_F16, {140000})};
  ASSERT_TRUE(CheckArguments(k, args.data(), 2, &launch, &error)) << error;  // x: up to 2^31 - 1
  k.grid = {"1", "R"};
  EXPECT_FALSE(CheckArguments(k, args.data(), 2, &launch, &error));
  EXPECT_EQ(error, "grid dimension 1 (R) is 70000, more than the 65535 blocks the hardware allows");
  k.grid = {"R * R * R"};
  EXPECT_FALSE(CheckArguments(k, args.data(), 2, &launch, &error));
  EXPECT_EQ(error, "grid dimension 0 (R * R * R) is 343000000000000, more than the 2147483647 blocks the hardware allows");
  k.grid = {"R - R"};
  EXPECT_FALSE(CheckArguments(k, args.data(), 2, &launch, &error));
  EXPECT_EQ(error, "grid dimension 0 (R - R) is 0, not positive");
}

TEST(RuntimeMetadata, RejectsMalformedInput) {
  std::vector<KernelSignature> k;
  std::string error;
  EXPECT_FALSE(ParseKernelMetadata("{\"kernels\": [", &k, &error));
  EXPECT_FALSE(ParseKernelMetadata("{}", &k, &error));
  EXPECT_EQ(error, "no \"kernels\" array");
  EXPECT_FALSE(ParseKernelMetadata("{\"kernels\": [{\"name\": \"k\", \"params\": [{\"name\": \"x\", \"kind\": \"tensor\", "
                                   "\"dtype\": \"f8\"}]}]}",
                                   &k, &error));
  EXPECT_EQ(error, "malformed parameter of kernel 'k'");
}

// Without a CUDA driver, the runtime says so and does not crash.
TEST(RuntimeFormula, EvaluatesMaxAndMin) {
  std::string error;
  EXPECT_EQ(EvalFormula("max(((M * 1536 + 255) / 256 * 256), 4096) + min(M, 3)", {{"M", 5}}, &error), 7680 + 3);
  EXPECT_EQ(EvalFormula("max(M, 4096)", {{"M", 5}}, &error), 4096);
  EXPECT_FALSE(EvalFormula("max(M)", {{"M", 5}}, &error));
}

// A graph's plan as `tmc FILE --graph NAME --emit=meta` writes it: two
// kernels, one intermediate, a scalar parameter, alternatives.
constexpr const char* kPlanMeta = R"json({
  "kernels": [
    {"name": "g_k0", "params": [
        {"name": "x", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"], "layout": "row_major"},
        {"name": "s", "kind": "tensor", "dtype": "f32", "shape": ["R"], "layout": "row_major", "output": true},
        {"name": "R", "kind": "shape", "dtype": "i32"}, {"name": "C", "kind": "shape", "dtype": "i32"}],
     "grid": ["R"], "block": [32], "requires": ["(C <= 1024)"]},
    {"name": "g_k0_TPR256", "params": [
        {"name": "x", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"], "layout": "row_major"},
        {"name": "s", "kind": "tensor", "dtype": "f32", "shape": ["R"], "layout": "row_major", "output": true},
        {"name": "R", "kind": "shape", "dtype": "i32"}, {"name": "C", "kind": "shape", "dtype": "i32"}],
     "grid": ["R"], "block": [256], "requires": ["(C > 1024)"]},
    {"name": "g_k1", "params": [
        {"name": "x", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"], "layout": "row_major"},
        {"name": "s", "kind": "tensor", "dtype": "f32", "shape": ["R"], "layout": "row_major"},
        {"name": "a", "kind": "scalar", "dtype": "f32"},
        {"name": "b", "kind": "scalar", "dtype": "f32"},
        {"name": "out", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"], "layout": "row_major", "output": true},
        {"name": "R", "kind": "shape", "dtype": "i32"}, {"name": "C", "kind": "shape", "dtype": "i32"}],
     "grid": ["R"], "block": [128]}
  ],
  "graphs": [
    {
      "name": "g",
      "params": [
        {"name": "x", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"]},
        {"name": "alpha", "kind": "scalar", "dtype": "f32"},
        {"name": "out", "kind": "tensor", "dtype": "f32", "shape": ["R", "C"], "value": "(x * s)", "output": true}
      ],
      "buffers": [
        {"value": "s", "dtype": "f32", "shape": ["R"], "bytes": "((R * 4 + 255) / 256 * 256)", "slot": 0, "offset": "0", "written_by": 0, "last_read_by": 1}
      ],
      "workspace": "((R * 4 + 255) / 256 * 256)",
      "launches": [
        {"kernel": "g_k0", "alternatives": ["g_k0", "g_k0_TPR256"], "op": "g_k0", "schedule": "automatic", "args": [{"param": 0}, {"buffer": 0}]},
        {"kernel": "g_k1", "op": "g_k1", "schedule": "automatic", "args": [{"param": 0}, {"buffer": 0}, {"param": 1}, {"literal": "2.5", "dtype": "f32"}, {"param": 2}]}
      ]
    }
  ]
})json";

TEST(RuntimeGraph, BindsThePlanAndPlacesBuffers) {
  std::vector<GraphPlan> plans;
  std::string error;
  ASSERT_TRUE(ParseGraphPlans(kPlanMeta, &plans, &error)) << error;
  ASSERT_EQ(plans.size(), 1u);
  const GraphPlan& plan = plans[0];
  EXPECT_EQ(plan.steps[0].alternatives, (std::vector<std::string>{"g_k0", "g_k0_TPR256"}));
  EXPECT_EQ(plan.steps[1].alternatives, (std::vector<std::string>{"g_k1"}));
  EXPECT_EQ(plan.values[2], "(x * s)");

  tmc_arg args[3] = {};
  args[0].is_tensor = 1;
  args[0].tensor = {4096, TMC_F32, 2, {100, 2000}};
  args[1].dtype = TMC_F32;
  args[1].value.f = 0.5;
  args[2].is_tensor = 1;
  args[2].tensor = {8192, TMC_F32, 2, {100, 2000}};
  BoundGraph bound;
  ASSERT_TRUE(BindGraph(plan, args, 3, &bound, &error)) << error;
  EXPECT_EQ(bound.symbols.at("R"), 100);
  EXPECT_EQ(bound.workspace_bytes, 512u);

  std::vector<tmc_arg> k0, k1;
  ASSERT_TRUE(StepArguments(plan, bound, 0, args, 1 << 20, &k0, &error)) << error;
  ASSERT_EQ(k0.size(), 2u);
  EXPECT_EQ(k0[1].tensor.data, 1u << 20);
  EXPECT_EQ(k0[1].tensor.rank, 1);
  EXPECT_EQ(k0[1].tensor.shape[0], 100);
  ASSERT_TRUE(StepArguments(plan, bound, 1, args, 1 << 20, &k1, &error)) << error;
  EXPECT_EQ(k1[2].value.f, 0.5);  // the graph's scalar
  EXPECT_EQ(k1[3].value.f, 2.5);  // a literal
  EXPECT_EQ(k1[4].tensor.data, 8192u);

  // Rows of 2000: the block-per-row copy serves them, the warp's does not.
  std::vector<KernelSignature> sigs;
  ASSERT_TRUE(ParseKernelMetadata(kPlanMeta, &sigs, &error)) << error;
  CheckedLaunch launch;
  EXPECT_EQ(ChooseAlternative({&sigs[0], &sigs[1]}, k0, &launch, &error), 1);
  EXPECT_EQ(launch.block[0], 256);
  args[0].tensor.shape[1] = args[2].tensor.shape[1] = 64;
  ASSERT_TRUE(BindGraph(plan, args, 3, &bound, &error));
  ASSERT_TRUE(StepArguments(plan, bound, 0, args, 1 << 20, &k0, &error));
  EXPECT_EQ(ChooseAlternative({&sigs[0], &sigs[1]}, k0, &launch, &error), 0);
  EXPECT_EQ(ChooseAlternative({&sigs[1]}, k0, &launch, &error), -1);
  EXPECT_NE(error.find("(C > 1024)"), std::string::npos) << error;
}

TEST(RuntimeGraph, RejectsBadArgumentsAndPlans) {
  std::vector<GraphPlan> plans;
  std::string error;
  ASSERT_TRUE(ParseGraphPlans(kPlanMeta, &plans, &error)) << error;
  tmc_arg args[3] = {};
  args[0].is_tensor = 1;
  args[0].tensor = {4096, TMC_F32, 2, {100, 64}};
  args[1].dtype = TMC_F32;
  args[2].is_tensor = 1;
  args[2].tensor = {8192, TMC_F32, 2, {100, 65}};  // C differs
  BoundGraph bound;
  EXPECT_FALSE(BindGraph(plans[0], args, 3, &bound, &error));
  EXPECT_NE(error.find("argument 3 ('out')"), std::string::npos) << error;
  EXPECT_FALSE(BindGraph(plans[0], args, 2, &bound, &error));
  // A plan naming a buffer it lacks is malformed.
  std::string bad = kPlanMeta;
  bad.replace(bad.find("{\"buffer\": 0}]},"), 13, "{\"buffer\": 7}");
  plans.clear();
  EXPECT_FALSE(ParseGraphPlans(bad, &plans, &error));
  EXPECT_NE(error.find("malformed argument of kernel 'g_k0'"), std::string::npos) << error;
  // No "graphs": no plans, no error.
  plans.clear();
  EXPECT_TRUE(ParseGraphPlans("{\"kernels\": []}", &plans, &error));
  EXPECT_TRUE(plans.empty());
}

TEST(RuntimeDriver, ReportsAMissingDriver) {
  setenv("TMC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  tmc_context* ctx = nullptr;
  EXPECT_EQ(tmc_init(0, &ctx), TMC_ERROR_NO_DRIVER);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_NE(std::string(tmc_last_error()).find("no CUDA driver found"), std::string::npos) << tmc_last_error();
  EXPECT_STREQ(tmc_status_name(TMC_ERROR_NO_DRIVER), "no CUDA driver found");
  EXPECT_EQ(tmc_launch(nullptr, nullptr, 0, nullptr), TMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tmc_graph_launch(nullptr, nullptr, 0, 0, 0, nullptr), TMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tmc_module_get_graph(nullptr, "g", nullptr), TMC_ERROR_INVALID_ARGUMENT);
}

// A CPU context: host memory, synchronous launches of host-compiled
// kernels (here one written by hand against the executor's ABI), the same
// argument checks, faults as TMC_ERROR_KERNEL_FAULT with their location.
extern "C" void DoubleKernel(void* thread, const uint64_t* args) {
  auto* t = static_cast<tmc_cpu_thread*>(thread);
  const float* x = reinterpret_cast<const float*>(args[0]);
  float* y = reinterpret_cast<float*>(args[1]);
  int32_t n = static_cast<int32_t>(args[2]);
  int32_t i = t->bid[0] * t->bdim[0] + t->tid[0];
  if (i < n) y[i] = 2 * x[i];
  if (i == 0 && x[0] < 0) tmc_cpu_int_fault(t, 0, 32, 1);  // a "division by zero" at site 1
}

TEST(RuntimeCpu, RunsHostKernelsOnACpuContext) {
  tmc_context* ctx = nullptr;
  ASSERT_EQ(tmc_init(TMC_DEVICE_CPU, &ctx), TMC_SUCCESS);
  EXPECT_EQ(tmc_context_is_cpu(ctx), 1);
  char name[32];
  ASSERT_EQ(tmc_device_name(ctx, name, sizeof name), TMC_SUCCESS);
  EXPECT_STREQ(name, "CPU executor");
  int major = 1, minor = 1;
  EXPECT_EQ(tmc_device_compute_capability(ctx, &major, &minor), TMC_ERROR_NO_DEVICE);
  const char* meta = R"json({"kernels": [{"name": "double_it", "params": [
      {"name": "X", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
      {"name": "Y", "kind": "tensor", "dtype": "f32", "shape": ["N"], "output": true},
      {"name": "N", "kind": "shape", "dtype": "i32"}],
      "grid": ["((N + 63) / 64)"], "block": [64], "shared_bytes": 0, "dynamic_shared": false,
      "index_bits": 32, "compile_time": {}, "requires": []}]})json";
  // A GPU image on a CPU context, and host code missing a kernel, are refused.
  tmc_module* m = nullptr;
  EXPECT_EQ(tmc_module_load(ctx, "x", 1, meta, &m), TMC_ERROR_INVALID_ARGUMENT);
  tmc_host_image none = {meta, nullptr, 0, nullptr, 0};
  EXPECT_EQ(tmc_module_load_host(ctx, &none, &m), TMC_ERROR_NOT_FOUND);
  const tmc_host_kernel kernels[] = {{"double_it", &DoubleKernel}};
  const char* const sites[] = {"", "k.tm:3:14"};
  tmc_host_image image = {meta, kernels, 1, sites, 2};
  ASSERT_EQ(tmc_module_load_host(ctx, &image, &m), TMC_SUCCESS) << tmc_last_error();
  tmc_kernel* k = nullptr;
  ASSERT_EQ(tmc_module_get_kernel(m, "double_it", &k), TMC_SUCCESS);

  std::vector<float> host(1000), back(1000);
  for (size_t i = 0; i < host.size(); ++i) host[i] = 0.5f * static_cast<float>(i) + 1;
  uint64_t dx = 0, dy = 0;
  ASSERT_EQ(tmc_malloc(ctx, 4000, &dx), TMC_SUCCESS);
  ASSERT_EQ(tmc_malloc(ctx, 4000, &dy), TMC_SUCCESS);
  EXPECT_EQ(dx % 256, 0u);
  ASSERT_EQ(tmc_copy_to_device(ctx, dx, host.data(), 4000), TMC_SUCCESS);
  tmc_arg args[2] = {};
  args[0].is_tensor = args[1].is_tensor = 1;
  args[0].tensor = {dx, TMC_F32, 1, {1000}};
  args[1].tensor = {dy, TMC_F32, 1, {1000}};
  tmc_stream* stream = nullptr;
  ASSERT_EQ(tmc_stream_create(ctx, &stream), TMC_SUCCESS);
  tmc_event *start = nullptr, *end = nullptr;
  ASSERT_EQ(tmc_event_create(ctx, &start), TMC_SUCCESS);
  ASSERT_EQ(tmc_event_create(ctx, &end), TMC_SUCCESS);
  ASSERT_EQ(tmc_event_record(start, stream), TMC_SUCCESS);
  ASSERT_EQ(tmc_launch(k, args, 2, stream), TMC_SUCCESS) << tmc_last_error();
  ASSERT_EQ(tmc_event_record(end, stream), TMC_SUCCESS);
  float ms = -1;
  EXPECT_EQ(tmc_event_elapsed_ms(start, end, &ms), TMC_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  ASSERT_EQ(tmc_stream_synchronize(stream), TMC_SUCCESS);
  ASSERT_EQ(tmc_copy_to_host(ctx, back.data(), dy, 4000), TMC_SUCCESS);
  for (size_t i = 0; i < host.size(); ++i) ASSERT_EQ(back[i], 2 * host[i]) << i;

  // The same checks as on the GPU: nothing runs with a wrong shape.
  args[1].tensor.shape[0] = 999;
  EXPECT_EQ(tmc_launch(k, args, 2, nullptr), TMC_ERROR_SIGNATURE);
  args[1].tensor.shape[0] = 1000;
  // A fault: the status, the kernel, what and where.
  host[0] = -1;
  ASSERT_EQ(tmc_copy_to_device(ctx, dx, host.data(), 4), TMC_SUCCESS);
  EXPECT_EQ(tmc_launch(k, args, 2, nullptr), TMC_ERROR_KERNEL_FAULT);
  EXPECT_STREQ(tmc_last_error(),
               "kernel 'double_it' on the CPU executor: an integer division by zero at k.tm:3:14 (thread 0 of block (0, 0, 0))");
  // A wrapped stream is not the caller's to destroy; on a CPU context it is ignored.
  tmc_stream* wrapped = nullptr;
  EXPECT_EQ(tmc_stream_wrap(ctx, reinterpret_cast<void*>(0x1234), &wrapped), TMC_SUCCESS);
  tmc_stream_destroy(wrapped);
  tmc_event_destroy(start);
  tmc_event_destroy(end);
  tmc_stream_destroy(stream);
  EXPECT_EQ(tmc_free(ctx, dx), TMC_SUCCESS);
  EXPECT_EQ(tmc_free(ctx, dy), TMC_SUCCESS);
  tmc_module_unload(m);
  tmc_shutdown(ctx);
}

TEST(RuntimeCpu, InitAutoFallsBackAndHonoursTmcDevice) {
  setenv("TMC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  tmc_context* ctx = nullptr;
  unsetenv("TMC_DEVICE");
  ASSERT_EQ(tmc_init_auto(&ctx), TMC_SUCCESS);  // no driver here (forced): the CPU executor
  EXPECT_EQ(tmc_context_is_cpu(ctx), 1);
  tmc_shutdown(ctx);
  ASSERT_EQ(tmc_init(TMC_DEVICE_AUTO, &ctx), TMC_SUCCESS);
  EXPECT_EQ(tmc_context_is_cpu(ctx), 1);
  tmc_shutdown(ctx);
  setenv("TMC_DEVICE", "cpu", 1);
  ASSERT_EQ(tmc_init_auto(&ctx), TMC_SUCCESS);
  tmc_shutdown(ctx);
  setenv("TMC_DEVICE", "0", 1);  // a GPU asked for, none there
  EXPECT_EQ(tmc_init_auto(&ctx), TMC_ERROR_NO_DRIVER);
  setenv("TMC_DEVICE", "gpu", 1);
  EXPECT_EQ(tmc_init_auto(&ctx), TMC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tmc_last_error(), "TMC_DEVICE='gpu': expected 'cpu' or a device number");
  unsetenv("TMC_DEVICE");
}

TEST(RuntimeMetadata, ReadsClusters) {
  std::vector<KernelSignature> k;
  std::string error;
  ASSERT_TRUE(ParseKernelMetadata(
      R"json({"kernels": [{"name": "k", "params": [
        {"name": "X", "kind": "tensor", "dtype": "f32", "shape": ["N"], "layout": "row_major"},
        {"name": "N", "kind": "shape", "dtype": "i32"}],
       "grid": ["(N + 15) / 16", "3"], "block": [16], "cluster": [2, 3, 1]}]})json",
      &k, &error)) << error;
  EXPECT_EQ(k.at(0).cluster[0], 2);
  EXPECT_EQ(k.at(0).cluster[1], 3);
  EXPECT_EQ(k.at(0).cluster[2], 1);
  CheckedLaunch launch;
  std::vector<tmc_arg> args = {Tensor(TMC_F32, {64})};
  EXPECT_TRUE(CheckArguments(k[0], args.data(), 1, &launch, &error)) << error;
  EXPECT_EQ(launch.cluster[0], 2);
  EXPECT_EQ(launch.cluster[1], 3);
  // 3 blocks along x: not a whole number of pairs.
  args = {Tensor(TMC_F32, {48})};
  EXPECT_FALSE(CheckArguments(k[0], args.data(), 1, &launch, &error));
  EXPECT_EQ(error, "the grid (3, 3, 1) is not a whole number of clusters of (2, 3, 1) blocks: dimension 0 must be a multiple of 2");
  // Without the key, clusters of one block.
  std::vector<KernelSignature> plain;
  ASSERT_TRUE(ParseKernelMetadata(R"json({"kernels": [{"name": "k", "params": [], "grid": ["3"], "block": [1]}]})json",
                                  &plain, &error));
  EXPECT_EQ(plain.at(0).cluster[0] * plain.at(0).cluster[1] * plain.at(0).cluster[2], 1);
}

}  // namespace
}  // namespace tmc::runtime

#include "runtime/tmc_runtime.hpp"

namespace tmc {
namespace {

// The C++ layer turns a failed call into an exception with the message.
TEST(RuntimeCpp, ThrowsWithTheRuntimeMessage) {
  setenv("TMC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  try {
    Context ctx;
    FAIL() << "a context without a driver";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.status, TMC_ERROR_NO_DRIVER);
    EXPECT_NE(std::string(e.what()).find("tmc_init: no CUDA driver found"), std::string::npos) << e.what();
  }
  tmc_arg a = ScalarArg(TMC_I32, 7);
  EXPECT_EQ(a.value.i, 7);
  EXPECT_FALSE(a.is_tensor);
}

}  // namespace
}  // namespace tmc

#include "runtime/half.h"

namespace tmc::runtime {
namespace {

TEST(Half, ConvertsExactlyAndRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);                 // overflow: infinity
  EXPECT_EQ(FloatToHalf(5.9604645e-8f), 0x0001);       // smallest subnormal
  EXPECT_EQ(FloatToHalf(1.0f + 1.0f / 2048), 0x3c00);  // a tie rounds to even
  for (uint32_t h = 0; h < 0x7c00; ++h) EXPECT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h);
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.5f)), 1.5f);
  EXPECT_EQ(FloatToBf16(1.0f + 1.0f / 256), 0x3f80);   // a tie rounds to even
}

// From double, rounded once: just above or below the midpoint of two
// neighbouring halves (bfloat16s) goes to the nearer one, where rounding to
// float first lands on the midpoint and ties to even (reference values
// stored into f16 outputs, f16 constants of the CUDA C emitter).
TEST(Half, ConvertsFromDoubleRoundingOnce) {
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    double lo = HalfToFloat(static_cast<uint16_t>(h)), hi = HalfToFloat(static_cast<uint16_t>(h + 1));
    double mid = (lo + hi) / 2;
    ASSERT_EQ(DoubleToHalf(std::nextafter(mid, 1e300)), h + 1) << h;
    ASSERT_EQ(DoubleToHalf(std::nextafter(mid, -1e300)), h) << h;
    ASSERT_EQ(DoubleToHalf(mid), (h & 1) ? h + 1 : h) << h;
    ASSERT_EQ(DoubleToHalf(-lo), h | 0x8000) << h;
  }
  EXPECT_EQ(DoubleToHalf(1.0 + 1.0 / 2048 + std::ldexp(1.0, -40)), 0x3c01);
  EXPECT_EQ(DoubleToHalf(1e300), 0x7c00);
  EXPECT_EQ(DoubleToHalf(1e-300), 0x0000);
  EXPECT_TRUE(std::isnan(HalfToFloat(DoubleToHalf(NAN))));
  for (uint32_t b = 0x0001; b < 0x7f7f; b += 7) {
    double lo = Bf16ToFloat(static_cast<uint16_t>(b)), hi = Bf16ToFloat(static_cast<uint16_t>(b + 1));
    double mid = (lo + hi) / 2;
    ASSERT_EQ(DoubleToBf16(std::nextafter(mid, 1e300)), b + 1) << b;
    ASSERT_EQ(DoubleToBf16(std::nextafter(mid, -1e300)), b) << b;
    ASSERT_EQ(DoubleToBf16(mid), (b & 1) ? b + 1 : b) << b;
  }
  EXPECT_EQ(DoubleToBf16(1e300), 0x7f80);
}

// A tensor-map parameter: its box and swizzle from the metadata, and the
// 16-byte row pitch its encoding needs checked before every launch.
TEST(RuntimeMetadata, ReadsTensorMaps) {
  std::vector<KernelSignature> k;
  std::string error;
  ASSERT_TRUE(ParseKernelMetadata(
      R"json({"kernels": [{"name": "k", "params": [
        {"name": "X", "kind": "tensor", "dtype": "f32", "shape": ["M", "N"], "layout": "row_major",
         "tma": {"box": [16, 32], "swizzle": 128}},
        {"name": "M", "kind": "shape", "dtype": "i32"}, {"name": "N", "kind": "shape", "dtype": "i32"}],
       "grid": ["1"], "block": [128]}]})json",
      &k, &error)) << error;
  const ParamInfo& x = k.at(0).params.at(0);
  EXPECT_TRUE(x.tma);
  EXPECT_EQ(x.tma_box, (std::vector<int64_t>{16, 32}));
  EXPECT_EQ(x.tma_swizzle, 128);
  CheckedLaunch launch;
  std::vector<tmc_arg> args = {Tensor(TMC_F32, {10, 72})};
  EXPECT_TRUE(CheckArguments(k[0], args.data(), 1, &launch, &error)) << error;
  args = {Tensor(TMC_F32, {10, 70})};
  EXPECT_FALSE(CheckArguments(k[0], args.data(), 1, &launch, &error));
  EXPECT_EQ(error, "argument 1 ('X') is passed as a TMA tensor map, whose rows must be a multiple of 16 bytes: "
                   "dimension 1 is 70 (280 bytes)");
  EXPECT_EQ(TmaShapeError({70}, 4), "");  // rank 1: no stride to check
  // A box of another rank than the tensor's is malformed.
  EXPECT_FALSE(ParseKernelMetadata(
      R"json({"kernels": [{"name": "k", "params": [{"name": "X", "kind": "tensor", "dtype": "f32", "shape": ["N"],
        "tma": {"box": [4, 4], "swizzle": 0}}]}]})json",
      &k, &error));
}

}  // namespace
}  // namespace tmc::runtime

// One version everywhere: the runtime's header and library, and the driver
// (CMakeLists.txt's project version is checked against them by the
// installed package's tests, which print it).
TEST(RuntimeVersion, HeaderLibraryAndDriverAgree) {
  EXPECT_STREQ(tmc_runtime_version(), TMC_RUNTIME_VERSION_STRING);
  EXPECT_STREQ(TMC_RUNTIME_VERSION_STRING, tmc::driver::kTmcVersion);
  EXPECT_EQ(std::to_string(TMC_RUNTIME_VERSION_MAJOR) + "." + std::to_string(TMC_RUNTIME_VERSION_MINOR) + "." +
                std::to_string(TMC_RUNTIME_VERSION_PATCH),
            TMC_RUNTIME_VERSION_STRING);
}

TEST(RuntimeErrors, SetErrorRecordsTheMessage) {
  EXPECT_EQ(tmc_set_error(TMC_ERROR_SIGNATURE, "argument 1 is wrong"), TMC_ERROR_SIGNATURE);
  EXPECT_STREQ(tmc_last_error(), "argument 1 is wrong");
  int major = 0, minor = 0;
  EXPECT_EQ(tmc_device_compute_capability(nullptr, &major, &minor), TMC_ERROR_INVALID_ARGUMENT);
}

// Scalars reach the kernel in their parameter's type: f16 and bf16 as
// half-precision bits (the C API passes them as doubles), not the double's
// integer bits.
TEST(RuntimeArguments, ScalarsArePackedInTheParametersType) {
  tmc_arg a{};
  a.value.f = 1.5;
  EXPECT_EQ(tmc::runtime::PackScalar(TMC_F16, a), 0x3E00u);
  EXPECT_EQ(tmc::runtime::PackScalar(TMC_BF16, a), 0x3FC0u);
  EXPECT_EQ(tmc::runtime::PackScalar(TMC_F32, a), 0x3FC00000u);
  EXPECT_EQ(tmc::runtime::PackScalar(TMC_F64, a), 0x3FF8000000000000u);
  a.value.i = -2;
  EXPECT_EQ(tmc::runtime::PackScalar(TMC_I32, a), 0xFFFFFFFEu);
  EXPECT_EQ(tmc::runtime::PackScalar(TMC_I8, a), 0xFEu);
  a.value.i = 1;
  EXPECT_EQ(tmc::runtime::PackScalar(TMC_BOOL, a), 1u);
}
