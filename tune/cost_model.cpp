#include "tune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

namespace tmc::tune {

ArchLimits LimitsOf(const std::string& arch) {
  ArchLimits a;
  if (arch == "sm_90" || arch == "sm_90a") {
    a.sms = 132;
    a.smem_per_sm = 228 * 1024;
    a.smem_per_block = 227 * 1024;
    a.fp32_flops = 67e12;
    a.tensor_flops = 989e12;
    a.dram_bytes = 4.8e12;
  } else if (arch == "sm_86" || arch == "sm_89") {
    a.sms = arch == "sm_86" ? 84 : 128;
    a.smem_per_sm = 100 * 1024;
    a.smem_per_block = 99 * 1024;
    a.threads_per_sm = 1536;
    a.blocks_per_sm = arch == "sm_86" ? 16 : 24;
    a.fp32_flops = arch == "sm_86" ? 35e12 : 82e12;
    a.tensor_flops = arch == "sm_86" ? 142e12 : 330e12;
    a.dram_bytes = arch == "sm_86" ? 0.94e12 : 1.0e12;
  } else {  // sm_80: A100
    a.sms = 108;
    a.smem_per_sm = 164 * 1024;
    a.smem_per_block = 163 * 1024;
    a.fp32_flops = 19.5e12;
    a.tensor_flops = 312e12;
    a.dram_bytes = 2.0e12;
  }
  return a;
}

Resources ParsePtxasReport(const std::string& report, const std::string& kernel) {
  Resources r;
  std::istringstream in(report);
  std::string line;
  bool mine = false;
  static const std::regex kProps(R"(Function properties for (\S+))");
  static const std::regex kEntry(R"(Compiling entry function '([^']+)')");
  static const std::regex kSpill(R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kStack(R"((\d+) bytes stack frame)");
  static const std::regex kUsed(R"(Used (\d+) registers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kEntry) || std::regex_search(line, m, kProps)) {
      mine = m[1] == kernel;
      continue;
    }
    if (!mine) continue;
    if (std::regex_search(line, m, kSpill)) r.spill_bytes = std::stoi(m[1]) + std::stoi(m[2]);
    if (std::regex_search(line, m, kStack)) r.stack_bytes = std::stoi(m[1]);
    if (std::regex_search(line, m, kUsed)) {
      r.found = true;
      r.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, kSmem)) r.shared_bytes = std::stoi(m[1]);
    }
  }
  return r;
}

PtxMix AnalyzePtx(const std::string& ptx) {
  PtxMix mix;
  std::istringstream in(ptx);
  std::string line;
  auto vector_width = [](const std::string& op) {
    if (op.find(".v4") != std::string::npos) return 4;
    if (op.find(".v2") != std::string::npos) return 2;
    return 1;
  };
  auto elem_bytes = [](const std::string& op) {
    for (auto [suffix, bytes] : {std::pair{"64", 8}, {"32", 4}, {"16", 2}, {"8", 1}})
      if (op.size() >= 2 && op.compare(op.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
        return bytes;
    return 4;
  };
  while (std::getline(in, line)) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '/' || line[b] == '.' || line[b] == '$') continue;
    if (line[b] == '@') b = line.find_first_of(" \t", b), b = line.find_first_not_of(" \t", b);
    if (b == std::string::npos) continue;
    std::string op = line.substr(b, line.find_first_of(" \t;", b) - b);
    if (op.rfind("mma.sync", 0) == 0) {
      // m16n8k16: 2*16*8*16 flops per warp; m16n8k8 half of it.
      mix.flops += (op.find("k16") != std::string::npos ? 4096.0 : op.find("k8") != std::string::npos ? 2048.0 : 1024.0) / 32;
      mix.tensor_cores = true;
    } else if (op.rfind("wgmma", 0) == 0) {
      mix.tensor_cores = true;
    } else if (op.rfind("fma.", 0) == 0 || op.rfind("mad.", 0) == 0) {
      if (op.find(".f") != std::string::npos || op.find(".bf") != std::string::npos)
        mix.flops += op.find("x2") != std::string::npos ? 4 : 2;
    } else if (op.rfind("add.", 0) == 0 || op.rfind("mul.", 0) == 0 || op.rfind("sub.", 0) == 0) {
      if (op.find(".f") != std::string::npos && op.find(".f") + 2 < op.size() && std::isdigit(op[op.find(".f") + 2]))
        mix.flops += op.find("x2") != std::string::npos ? 2 : 1;
    } else if (op.rfind("ld.global", 0) == 0) {
      mix.global_bytes += vector_width(op) * elem_bytes(op);
    } else if (op.rfind("cp.async.", 0) == 0 && op.find("global") != std::string::npos) {
      // cp.async.{ca,cg}.shared.global [dst], [src], BYTES;
      size_t last = line.rfind(',');
      int bytes = last == std::string::npos ? 16 : std::atoi(line.c_str() + last + 1);
      mix.global_bytes += bytes > 0 ? bytes : 16;
    }
  }
  return mix;
}

int BlocksPerSm(const Resources& r, int threads, const ArchLimits& a, std::string* limiter) {
  if (threads <= 0) return 0;
  int warps = (threads + 31) / 32;
  // Registers are allocated per warp in units of 256.
  int regs_per_warp = ((std::max(r.registers, 1) * 32 + 255) / 256) * 256;
  int by_regs = r.registers > a.max_regs_per_thread ? 0 : a.regs_per_sm / (regs_per_warp * warps);
  // Each block also reserves 1 KB of shared memory for the system.
  int by_smem = r.shared_bytes > a.smem_per_block ? 0 : a.smem_per_sm / (r.shared_bytes + 1024);
  int by_threads = a.threads_per_sm / (warps * 32);
  int n = std::min({by_regs, by_smem, by_threads, a.blocks_per_sm});
  if (limiter)
    *limiter = n == by_regs ? "registers" : n == by_smem ? "shared memory" : n == by_threads ? "threads" : "blocks";
  return n;
}

std::string DropReason(const Resources& r, int threads, const ArchLimits& a, bool others_without_stack) {
  if (r.spill_bytes > 0)
    return "spills " + std::to_string(r.spill_bytes) + " bytes (" + std::to_string(r.registers) + " registers)";
  if (r.stack_bytes > 0 && others_without_stack)
    return "keeps " + std::to_string(r.stack_bytes) + " bytes in local memory (a register tensor too large for registers)";
  std::string limiter;
  if (BlocksPerSm(r, threads, a, &limiter) == 0)
    return "no block fits on an SM (" + limiter + ": " + std::to_string(r.registers) + " registers x " +
           std::to_string(threads) + " threads, " + std::to_string(r.shared_bytes) + " bytes of shared memory)";
  return "";
}

double ModelMicroseconds(const ModelInput& in, const ArchLimits& a) {
  int bps = BlocksPerSm(in.resources, in.threads, a, nullptr);
  if (bps <= 0 || in.blocks <= 0) return std::numeric_limits<double>::infinity();
  int64_t capacity = static_cast<int64_t>(a.sms) * bps;
  double waves = std::ceil(static_cast<double>(in.blocks) / static_cast<double>(capacity));
  double wave_efficiency = static_cast<double>(in.blocks) / (waves * static_cast<double>(capacity));
  // Warps each SM has to hide latency with: 16 or more hide it fully.
  double active_blocks = std::min<double>(bps, std::ceil(static_cast<double>(in.blocks) / a.sms));
  double warps = active_blocks * ((in.threads + 31) / 32);
  double hiding = std::min(1.0, warps / 16.0);
  double flops = in.op_flops > 0 ? in.op_flops : in.mix.flops * in.threads * static_cast<double>(in.blocks);
  double peak = in.mix.tensor_cores ? a.tensor_flops : a.fp32_flops;
  double compute = flops / (peak * hiding * wave_efficiency);
  // Global traffic from the kernel's own ratio of work to loaded bytes
  // (its tile reuse), at the coalescing the CPU profile measured.
  double intensity = in.mix.global_bytes > 0 && in.mix.flops > 0 ? in.mix.flops / in.mix.global_bytes : 0;
  double bytes = intensity > 0 ? flops / intensity : 0;
  double memory = bytes / (a.dram_bytes * std::clamp(in.coalescing, 0.05, 1.0) * std::min(1.0, warps / 8.0));
  double t = std::max(compute, memory) * (1.0 + 0.5 * in.bank_conflicts);
  return t * 1e6;
}

}  // namespace tmc::tune
