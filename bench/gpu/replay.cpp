// tmc-replay: runs cases written by `tmc run --save-case` on a GPU through
// the host runtime, checks the output against the saved reference, and
// times the kernel. Needs only runtime/ and a C++ compiler, so it builds on
// the GPU machine, which has no LLVM or ANTLR.
//   usage: tmc-replay CASE_DIR...
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/output_check.h"
#include "runtime/tmc_runtime.hpp"

namespace {

struct TensorEntry {
  std::string dtype;
  size_t offset = 0, bytes = 0;
  bool output = false;
  std::vector<int64_t> shape;
};

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* const kDtypes[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"};

int DtypeIndex(const std::string& s) {
  for (int i = 0; i < 13; ++i)
    if (s == kDtypes[i]) return i;
  return -1;
}

size_t Bytes(const std::string& dtype) {
  if (dtype == "f64" || dtype == "i64" || dtype == "u64") return 8;
  if (dtype == "f32" || dtype == "i32" || dtype == "u32") return 4;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16" || dtype == "u16") return 2;
  return 1;
}

// Runs one case; prints one line. Returns true when it passes.
bool Replay(tmc_context* ctx, const std::string& dir) {
  auto fail = [&](const std::string& why) {
    std::printf("FAIL  %s  %s\n", dir.c_str(), why.c_str());
    return false;
  };
  std::istringstream manifest(Read(dir + "/manifest.txt"));
  std::string ptx = Read(dir + "/kernel.ptx"), meta = Read(dir + "/meta.json"), args_bin = Read(dir + "/args.bin");
  std::string expected_bin = Read(dir + "/expected.bin");
  std::string kernel_name, word;
  double tolerance = 0, atol = 0;
  std::vector<TensorEntry> tensors;
  std::vector<tmc_arg> args;
  while (manifest >> word) {
    if (word == "kernel") manifest >> kernel_name;
    else if (word == "tolerance") manifest >> tolerance;
    else if (word == "atol") manifest >> atol;
    else if (word == "tensor") {
      TensorEntry t;
      int rank = 0, out = 0;
      manifest >> t.dtype >> t.offset >> t.bytes >> out >> rank;
      t.output = out != 0;
      t.shape.resize(static_cast<size_t>(rank));
      for (int64_t& d : t.shape) manifest >> d;
      tmc_arg a{};
      a.is_tensor = 1;
      a.tensor.dtype = static_cast<tmc_dtype>(DtypeIndex(t.dtype));
      a.tensor.rank = rank;
      for (int r = 0; r < rank; ++r) a.tensor.shape[r] = t.shape[static_cast<size_t>(r)];
      args.push_back(a);
      tensors.push_back(t);
    } else if (word == "scalar") {
      std::string dtype;
      double v = 0;
      manifest >> dtype >> v;
      tmc_arg a{};
      a.dtype = static_cast<tmc_dtype>(DtypeIndex(dtype));
      if (dtype[0] == 'f') a.value.f = v;
      else a.value.i = static_cast<int64_t>(v);
      args.push_back(a);
      tensors.push_back(TensorEntry{});  // keeps indices aligned with args
    }
  }
  if (kernel_name.empty() || ptx.empty()) return fail("incomplete case");
  tmc_module* module = nullptr;
  tmc_kernel* kernel = nullptr;
  if (tmc_module_load(ctx, ptx.c_str(), ptx.size() + 1, meta.c_str(), &module) != TMC_SUCCESS ||
      tmc_module_get_kernel(module, kernel_name.c_str(), &kernel) != TMC_SUCCESS)
    return fail(tmc_last_error());
  std::vector<uint64_t> device(args.size(), 0);
  size_t output = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_tensor) continue;
    const TensorEntry& t = tensors[i];
    if (tmc_malloc(ctx, t.bytes, &device[i]) != TMC_SUCCESS ||
        tmc_copy_to_device(ctx, device[i], args_bin.data() + t.offset, t.bytes) != TMC_SUCCESS)
      return fail(tmc_last_error());
    args[i].tensor.data = device[i];
    if (t.output) output = i;
  }
  if (tmc_launch(kernel, args.data(), static_cast<int>(args.size()), nullptr) != TMC_SUCCESS ||
      tmc_synchronize(ctx) != TMC_SUCCESS)
    return fail(tmc_last_error());
  const TensorEntry& out = tensors[output];
  std::string result(out.bytes, '\0');
  if (tmc_copy_to_host(ctx, result.data(), device[output], out.bytes) != TMC_SUCCESS) return fail(tmc_last_error());
  int64_t n = static_cast<int64_t>(out.bytes / Bytes(out.dtype));
  std::vector<double> want(static_cast<size_t>(n));
  std::memcpy(want.data(), expected_bin.data(), want.size() * sizeof(double));
  tmc_dtype type = static_cast<tmc_dtype>(DtypeIndex(out.dtype));
  std::vector<bool> unwritten(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) unwritten[static_cast<size_t>(e)] = tmc::runtime::IsPoison(result.data(), type, e, 0);
  tmc::runtime::Comparison c = tmc::runtime::CompareOutput(result.data(), type, n, want.data(), {tolerance, atol}, unwritten);
  // Timing: warm up, then the median of 20 launches, timed with events.
  double median = 0, spread = 0;
  if (tmc::TimeLaunches(ctx, kernel, args, 3, 20, &median, &spread) != TMC_SUCCESS) return fail(tmc_last_error());
  for (uint64_t d : device)
    if (d) tmc_free(ctx, d);
  tmc_module_unload(module);
  std::printf("%s  %s  rel_l2=%.3e  nan=%lld  unwritten=%lld  median=%.4f ms\n", c.pass ? "PASS" : "FAIL", dir.c_str(),
              c.rel_l2, static_cast<long long>(c.nan), static_cast<long long>(c.unwritten), median);
  return c.pass;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tmc-replay CASE_DIR...\n");
    return 2;
  }
  tmc_context* ctx = nullptr;
  if (tmc_init(0, &ctx) != TMC_SUCCESS) {
    std::fprintf(stderr, "tmc-replay: %s\n", tmc_last_error());
    return 1;
  }
  int passed = 0, failed = 0;
  for (int i = 1; i < argc; ++i) (Replay(ctx, argv[i]) ? passed : failed)++;
  tmc_shutdown(ctx);
  std::printf("replay: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
