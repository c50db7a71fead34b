// Runs the graph `mlp` of examples/mlp.tm (gelu(x @ w + b), f16) through
// the library tmc_add_library() built, on the GPU when there is one and on
// the CPU executor otherwise (TMC_DEVICE=cpu forces it), and checks the
// result against a plain C++ computation.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "mlp_lib.h"
#include "tmc_runtime.hpp"

namespace {

// IEEE half precision <-> float (round to nearest even; no NaN inputs here).
uint16_t ToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, abs = x & 0x7fffffffu;
  if (abs >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow: inf
  if (abs < 0x38800000u) {                                               // subnormal half
    float a;
    std::memcpy(&a, &abs, 4);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  uint32_t h = ((abs - 0x38000000u) >> 13), rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float FromHalf(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) return (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(m), -24);
  uint32_t x = sign | ((e == 31 ? 255u : e + 112u) << 23) | (m << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t M = argc > 1 ? std::atoll(argv[1]) : 64, K = 768, N = 3072;
  try {
    tmc::Context ctx(TMC_DEVICE_AUTO);
    char device[64];
    tmc::Check(tmc_device_name(ctx.get(), device, sizeof device), "tmc_device_name");
    std::printf("device: %s\n", device);

    std::mt19937 gen(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<uint16_t> x(M * K), w(K * N), b(N), out(M * N);
    for (auto& v : x) v = ToHalf(dist(gen));
    for (auto& v : w) v = ToHalf(dist(gen) * 0.05f);
    for (auto& v : b) v = ToHalf(dist(gen) * 0.1f);

    tmc::DeviceTensor dx(ctx, TMC_F16, {M, K}, 2), dw(ctx, TMC_F16, {K, N}, 2), db(ctx, TMC_F16, {N}, 2),
        dout(ctx, TMC_F16, {M, N}, 2);
    dx.CopyFrom(x.data());
    dw.CopyFrom(w.data());
    db.CopyFrom(b.data());
    tmc_tensor tx = dx.Arg().tensor, tw = dw.Arg().tensor, tb = db.Arg().tensor, tout = dout.Arg().tensor;
    tmc::Check(mlp(ctx.get(), nullptr, &tx, &tw, &tb, &tout), "mlp");
    ctx.Synchronize();
    dout.CopyTo(out.data());

    int64_t bad = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double h = FromHalf(b[j]);
        for (int64_t k = 0; k < K; ++k) h += static_cast<double>(FromHalf(x[i * K + k])) * FromHalf(w[k * N + j]);
        double ref = 0.5 * h * (1.0 + std::erf(h * 0.7071067811865476));
        if (std::fabs(FromHalf(out[i * N + j]) - ref) > 1e-2 + 1e-2 * std::fabs(ref)) ++bad;
      }
    std::printf("mlp(M=%lld): %s (%lld of %lld elements off)\n", static_cast<long long>(M), bad ? "FAIL" : "PASS",
                static_cast<long long>(bad), static_cast<long long>(M * N));
    mlp_lib_unload(ctx.get());
    return bad != 0;
  } catch (const tmc::RuntimeError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
