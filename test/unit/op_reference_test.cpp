// The compiled op reference (codegen/cpu/op_reference_jit) against the
// tree-walking oracle (ir::EvaluateOp): the same values bit for bit, the
// same flop counts, and the oracle's message when the op fails, on every
// op of the standard library and on ops that use each construct.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "codegen/cpu/op_reference_jit.h"
#include "frontend/compilation.h"
#include "test/unit/checked_text.h"

namespace tmc {
namespace {

// Random inputs for `op`, with every shape symbol bound to a small extent.
std::vector<ir::HostTensor> Inputs(const ast::OpDecl& op, std::mt19937_64& rng, int64_t extent) {
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  std::vector<ir::HostTensor> in;
  for (const ast::Param& p : op.params) {
    ir::HostTensor t;
    if (p.type.is_tensor)
      for (size_t d = 0; d < p.type.dims.size(); ++d) t.shape.push_back(extent + static_cast<int64_t>(d));
    t.values.resize(static_cast<size_t>(t.Size()));
    bool integer = !p.type.param && IsInteger(p.type.elem);
    for (double& v : t.values) v = integer ? static_cast<double>(static_cast<int64_t>(rng() % 9) - 4) : uniform(rng);
    in.push_back(std::move(t));
  }
  return in;
}

bool SameBits(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

void ExpectSame(const ast::OpDecl& op, const std::vector<ir::HostTensor>& in) {
  std::vector<ir::HostTensor> wants, gots;
  std::string want_error, got_error;
  int64_t want_flops = 0, got_flops = 0;
  bool want_ok = ir::EvaluateOp(op, in, &wants, &want_error, &want_flops);
  bool compiled = false;
  bool got_ok = codegen::EvaluateOpCompiled(op, in, &gots, &got_error, &got_flops, /*threads=*/2, &compiled);
  ASSERT_EQ(want_ok, got_ok) << op.name.name << ": " << want_error << " / " << got_error;
  // Only a failing op falls back to the oracle (for its message).
  EXPECT_EQ(compiled, want_ok) << op.name.name;
  if (!want_ok) {
    EXPECT_EQ(want_error, got_error) << op.name.name;
    return;
  }
  EXPECT_EQ(want_flops, got_flops) << op.name.name;
  ASSERT_EQ(wants.size(), op.results.size());
  ASSERT_EQ(wants.size(), gots.size());
  for (size_t r = 0; r < wants.size(); ++r) {
    const ir::HostTensor &want = wants[r], &got = gots[r];
    ASSERT_EQ(want.shape, got.shape) << op.name.name;
    ASSERT_EQ(want.values.size(), got.values.size());
    for (size_t i = 0; i < want.values.size(); ++i)
      ASSERT_TRUE(SameBits(want.values[i], got.values[i]))
          << op.name.name << " result " << r << " element " << i << ": " << want.values[i] << " vs " << got.values[i];
  }
}

void CheckAllOps(const std::string& text) {
  Checked c(text);
  ASSERT_TRUE(c.module && c.module->ok) << c.collect.First();
  std::mt19937_64 rng(7);
  int ops = 0;
  for (const ast::Decl* d : c.module->ast->decls)
    if (auto* op = ast::dyn_cast<ast::OpDecl>(d)) {
      for (int64_t extent : {1, 3, 7}) ExpectSame(*op, Inputs(*op, rng, extent));
      ++ops;
    }
  EXPECT_GT(ops, 0);
}

TEST(OpReference, StandardLibrary) {
  std::ifstream f(std::string(TMC_SOURCE_DIR) + "/stdlib/nn.tm");
  std::stringstream text;
  text << f.rdbuf();
  CheckAllOps(text.str());
}

TEST(OpReference, EveryConstruct) {
  CheckAllOps(R"(
op stats(X: f64[R, C]) -> (mean: f64[R], centered: f64[R, C], spread: f64[R]) {
  let m[r] = sum(c < C) X[r, c] / f64(C);
  centered[r, j] = X[r, j] - m[r];
  mean[r] = m[r];
  spread[r] = (max(c < C) X[r, c]) - (min(c < C) X[r, c]);
}
func cube(x: f64) -> f64 {
  let y = x * x;
  return y * x;
}
op cubes(X: f64[N]) -> f64[N] { out[i] = cube(X[i]) + cube(2.0); }
op math(X: f64[R, C]) -> f64[R, C] {
  out[i, j] = exp(X[i, j]) + exp2(X[i, j]) + log(abs(X[i, j]) + 1.0) + log2(abs(X[i, j]) + 2.0)
            + sqrt(abs(X[i, j])) + rsqrt(abs(X[i, j]) + 0.5) + tanh(X[i, j]) + erf(X[i, j]) + sin(X[i, j])
            + cos(X[i, j]) + floor(X[i, j]) + ceil(X[i, j]) + sigmoid(X[i, j]) + fma(X[i, j], 2.0, 1.0)
            + pow(abs(X[i, j]), 1.5) + min(X[i, j], 0.25) + max(X[i, j], -0.25);
}
op reducers(X: f32[R, C]) -> f32[R] {
  out[r] = (sum(a < C) X[r, a]) + (max(b < C) X[r, b]) - (min(c < C) X[r, c]) + (prod(d < C) X[r, d] * 0.5 + 1.0);
}
op softmax_rows(X: f32[R, C]) -> f32[R, C] {
  let m[r] = max(k < C) X[r, k];
  let s[r] = sum(k < C) exp(X[r, k] - m[r]);
  out[r, c] = exp(X[r, c] - m[r]) / s[r];
}
op two_vars(X: f32[B, R, C]) -> f32[B] {
  out[b] = sum(r < R, q < C) X[b, r, q] * f32(r + 1) - f32(q);
}
op guarded(X: f32[R, C]) -> f32[R, C] {
  out[i, j] = (j + 1 < C && i > 0) ? X[i - 1, j + 1] : ((i == 0 || j == 0) ? -1.0 : 2.0);
}
op integers(X: i32[R, C]) -> i32[R, C] {
  out[i, j] = (X[i, j] / 2) + (X[i, j] % 3) + (X[i, j] << 2) + (X[i, j] >> 1) + (X[i, j] & 6) + (X[i, j] | 1)
            + (X[i, j] ^ 5) + ~X[i, j] + i32(!(X[i, j] > 0));
}
op casts(X: f32[R, C]) -> f32[R, C] { out[i, j] = f32(i32(X[i, j] * 3.0)) + f32(bool(X[i, j] > 0.5)); }
op float_casts(X: f32[R, C]) -> f64[R, C] {
  out[i, j] = f64(f16(X[i, j] * 3.1)) + f64(bf16(X[i, j] / 7.0)) + f64(f32(f64(X[i, j]) / 3.0)) + f64(f16(X[i, j] * 1e6));
}
op with_scalar(X: f32[R, C], alpha: f32) -> f32[R, C] { out[i, j] = alpha * X[i, j] - alpha; }
op conv1d(X: f32[N, L], W: f32[K, N]) -> f32[K, L] {
  out[k, l] = sum(c < N, t < 3) (l + t - 1 >= 0 && l + t - 1 < L) ? X[c, l + t - 1] * W[k, c] : 0.0;
}
op scalar_let(X: f32[R, C]) -> f32[R, C] {
  let total = sum(i < R, j < C) X[i, j];
  out[i, j] = X[i, j] / total;
}
op wrapping(X: u8[R, C], Y: i8[R, C]) -> i32[R] {
  out[r] = i32(sum(c < C) X[r, c] * X[r, c]) + i32(prod(c < C) Y[r, c]) + i32(u8(0) - X[r, 0]) + i32(-Y[r, 0]);
}
op out_of_range(X: f32[R, C]) -> f32[R, C] { out[i, j] = X[i, j + 1]; }
)");
}

}  // namespace
}  // namespace tmc

namespace tmc {
namespace {

// A written conversion to a narrower float rounds in the reference, as
// in kernels: f32(bf16(x)) quantizes, f16 overflows to infinity.
TEST(OpReference, FloatCastsRound) {
  Checked c("op q(X: f64[N]) -> f64[N] { out[i] = f64(bf16(X[i])) + f64(f32(X[i])) - f64(f16(X[i] * 1e5)); }");
  ASSERT_TRUE(c.module && c.module->ok) << c.collect.First();
  const auto* op = ast::dyn_cast<ast::OpDecl>(c.module->ast->decls.front());
  ASSERT_NE(op, nullptr);
  ir::HostTensor x{{1}, {0.1}};
  for (bool compiled : {false, true}) {
    std::vector<ir::HostTensor> outs(1);
    std::string error;
    bool ok = compiled ? codegen::EvaluateOpCompiled(*op, {x}, &outs, &error, nullptr, 1)
                       : ir::EvaluateOp(*op, {x}, &outs, &error);
    ASSERT_TRUE(ok) << error;
    // bf16(0.1) = 0.10009765625, f32(0.1) = 0.100000001490116..., f16(1e4) = 10000.
    EXPECT_EQ(outs[0].values[0], 0.10009765625 + static_cast<double>(0.1f) - 10000.0) << compiled;
    x.values[0] = 1.0;  // f16(1e5): infinity
    std::vector<ir::HostTensor> big(1);
    ok = compiled ? codegen::EvaluateOpCompiled(*op, {x}, &big, &error, nullptr, 1) : ir::EvaluateOp(*op, {x}, &big, &error);
    ASSERT_TRUE(ok) << error;
    EXPECT_EQ(big[0].values[0], -HUGE_VAL) << compiled;
    x.values[0] = 0.1;
  }
}

// A result dimension no input binds (a crop's size) comes from the
// results' shapes the caller gives; an index past an input says which.
TEST(OpReference, FreeResultDimensions) {
  Checked c("op crop(X: f64[M, N], r0: i32) -> f64[P, Q] { out[i, j] = X[i + r0, j + r0]; }");
  ASSERT_TRUE(c.module && c.module->ok) << c.collect.First();
  const auto* op = ast::dyn_cast<ast::OpDecl>(c.module->ast->decls.front());
  ASSERT_NE(op, nullptr);
  ir::HostTensor x{{5, 4}, {}};
  for (int v = 0; v < 20; ++v) x.values.push_back(v);
  ir::HostTensor r0{{}, {1}};
  for (bool compiled : {false, true}) {
    std::vector<ir::HostTensor> outs(1);
    outs[0].shape = {3, 2};
    std::string error;
    bool ok = compiled ? codegen::EvaluateOpCompiled(*op, {x, r0}, &outs, &error, nullptr, 1)
                       : ir::EvaluateOp(*op, {x, r0}, &outs, &error);
    ASSERT_TRUE(ok) << error;
    ASSERT_EQ(outs[0].shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(outs[0].values, (std::vector<double>{5, 6, 9, 10, 13, 14}));  // X[i + 1, j + 1]
    outs.assign(1, ir::HostTensor{{5, 2}, {}});
    EXPECT_FALSE(compiled ? codegen::EvaluateOpCompiled(*op, {x, r0}, &outs, &error, nullptr, 1)
                          : ir::EvaluateOp(*op, {x, r0}, &outs, &error));
    EXPECT_NE(error.find("(i + r0) is 5, outside dimension 0 of extent 5"), std::string::npos) << error;
    outs.clear();  // no shapes: the dimension is unknown
    EXPECT_FALSE(ir::EvaluateOp(*op, {x, r0}, &outs, &error));
    EXPECT_NE(error.find("result dimension 'P' of op 'crop' is not determined by its inputs"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace tmc
