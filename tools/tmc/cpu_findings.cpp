// The CPU executor's findings as diagnostics (tools/tmc/cpu_findings.h).
#include "tools/tmc/cpu_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace tmc::driver {

std::map<std::string, void*> ExecutorSymbols() {
  return {{"tmc_cpu_sync", reinterpret_cast<void*>(&tmc_cpu_sync)},
          {"tmc_cpu_shfl32", reinterpret_cast<void*>(&tmc_cpu_shfl32)},
          {"tmc_cpu_mma_m16n8k16", reinterpret_cast<void*>(&tmc_cpu_mma_m16n8k16)},
          {"tmc_cpu_ldmatrix", reinterpret_cast<void*>(&tmc_cpu_ldmatrix)},
          {"tmc_cpu_wgmma", reinterpret_cast<void*>(&tmc_cpu_wgmma)},
          {"tmc_cpu_mbarrier", reinterpret_cast<void*>(&tmc_cpu_mbarrier)},
          {"tmc_cpu_tma", reinterpret_cast<void*>(&tmc_cpu_tma)},
          {"tmc_cpu_tma_store_sync", reinterpret_cast<void*>(&tmc_cpu_tma_store_sync)},
          {"tmc_cpu_cluster_sync", reinterpret_cast<void*>(&tmc_cpu_cluster_sync)},
          {"tmc_cpu_wgmma_sync", reinterpret_cast<void*>(&tmc_cpu_wgmma_sync)},
          {"tmc_cpu_fence_proxy_async", reinterpret_cast<void*>(&tmc_cpu_fence_proxy_async)},
          {"tmc_cpu_cp_async", reinterpret_cast<void*>(&tmc_cpu_cp_async)},
          {"tmc_cpu_cp_async_commit", reinterpret_cast<void*>(&tmc_cpu_cp_async_commit)},
          {"tmc_cpu_cp_async_wait", reinterpret_cast<void*>(&tmc_cpu_cp_async_wait)},
          {"tmc_cpu_int_fault", reinterpret_cast<void*>(&tmc_cpu_int_fault)},
          {"tmc_cpu_poll", reinterpret_cast<void*>(&tmc_cpu_poll)},
          {"tmc_cpu_access", reinterpret_cast<void*>(&tmc_cpu_access)},
          {"tmc_cpu_index_fault", reinterpret_cast<void*>(&tmc_cpu_index_fault)}};
}

// The checker's findings as diagnostics at their source lines; unrolled
// copies of one statement are distinct sites, reported once per source
// location (and buffer) with their counts added up.
void ReportFindings(const std::vector<runtime::CpuFinding>& findings, const codegen::CpuModule& cpu_module,
                    const ir::Function& kernel, int64_t block_threads, double timeout, DiagnosticEngine& diags) {
  const codegen::CpuModule& cpu = cpu_module;
  const ir::Function* fn = &kernel;
  auto site = [&](int32_t s) { return s >= 0 && static_cast<size_t>(s) < cpu.sites.size() ? cpu.sites[static_cast<size_t>(s)] : SourceRange{}; };
  auto buffer = [&](int32_t b) { return b >= 0 && static_cast<size_t>(b) < cpu.buffer_names.size() ? cpu.buffer_names[static_cast<size_t>(b)] : std::string("?"); };
  // Unrolled copies of one statement are distinct sites: report once per
  // source location (and buffer), adding up the counts.
  std::vector<runtime::CpuFinding> merged;
  for (const runtime::CpuFinding& f : findings) {
    auto key = [&](const runtime::CpuFinding& x) {
      return std::make_tuple(static_cast<int>(x.kind), site(x.site).begin.offset, site(x.other_site).begin.offset,
                             buffer(x.buffer));
    };
    auto it = std::find_if(merged.begin(), merged.end(), [&](const runtime::CpuFinding& e) { return key(e) == key(f); });
    if (it == merged.end()) merged.push_back(f);
    else it->count += f.count;
  }
  for (const runtime::CpuFinding& f : merged) {
    switch (f.kind) {
      case runtime::CpuFinding::Kind::OutOfBounds:
        diags.Report(site(f.site), DiagKind::RunOutOfBounds, f.write ? "write" : "read", buffer(f.buffer), fn->name,
                     f.offset, f.extent, f.thread, f.block[0], f.block[1], f.block[2],
                     f.count > 1 ? fmt::format("; {} such accesses", f.count) : "");
        break;
      case runtime::CpuFinding::Kind::IndexOutOfBounds: {
        std::string element = buffer(f.buffer) + "[";
        for (int32_t k = 0; k < f.rank; ++k) element += (k ? ", " : "") + std::to_string(f.index[k]);
        element += "]";
        diags.Report(site(f.site), DiagKind::RunIndexOutOfBounds, f.write ? "write" : "read", buffer(f.buffer), fn->name,
                     element, f.offset, f.dim, f.extent, f.thread, f.block[0], f.block[1], f.block[2],
                     f.count > 1 ? fmt::format("; {} such accesses", f.count) : "");
        break;
      }
      case runtime::CpuFinding::Kind::Race:
        if (f.other_async_read) {
          bool store = f.other_async_read == 2;
          diags.Report(site(f.site), DiagKind::RunAsyncReadRace, buffer(f.buffer), f.offset, fn->name, f.thread, f.block[0],
                       f.block[1], f.block[2], store ? "tma_store" : "wgmma", store ? "tma_store_wait" : "wgmma_wait")
              .Note(site(f.other_site), DiagKind::NoteAsyncReadInFlight, store ? "tma_store" : "wgmma", f.other_thread);
          break;
        }
        if (f.other_tma) {
          auto d = diags.Report(site(f.site), DiagKind::RunTmaRace, f.write ? "write" : "read", buffer(f.buffer), f.offset,
                                fn->name, f.thread, f.block[0], f.block[1], f.block[2]);
          if (f.other_rank >= 0)  // another block's multicast
            d.Note(site(f.other_site), DiagKind::NoteMulticastInFlight, f.other_thread, f.other_block[0], f.other_block[1],
                   f.other_block[2]);
          else
            d.Note(site(f.other_site), DiagKind::NoteTmaInFlight, f.other_thread);
          break;
        }
        if (f.other_async) {
          diags.Report(site(f.site), DiagKind::RunCpAsyncRace, f.write ? "write" : "read", buffer(f.buffer), f.offset, fn->name,
                       f.thread, f.block[0], f.block[1], f.block[2])
              .Note(site(f.other_site), DiagKind::NoteCpAsyncInFlight, f.other_thread);
          break;
        }
        diags.Report(site(f.site), DiagKind::RunDataRace, buffer(f.buffer), f.offset, fn->name,
                     f.write ? "a write" : f.atomic ? "an atomic update" : "a read", f.thread,
                     f.other_write ? "a write" : f.other_atomic ? "an atomic update" : "a read", f.other_thread,
                     f.block[0], f.block[1], f.block[2])
            .Note(site(f.other_site), DiagKind::NoteOtherAccess,
                  f.other_write ? "write" : f.other_atomic ? "atomic update" : "read", f.other_thread);
        break;
      case runtime::CpuFinding::Kind::BarrierDivergence: {
        std::string why = f.other_site >= 0 ? fmt::format("but thread {} waits at another barrier", f.other_thread)
                          : f.other_thread >= 0 ? fmt::format("but thread {} has already returned", f.other_thread)
                                                : "but not every thread reaches it";
        auto d = diags.Report(site(f.site), DiagKind::RunBarrierDivergence, fn->name, f.thread, f.block[0], f.block[1],
                              f.block[2], why);
        if (f.other_site >= 0) d.Note(site(f.other_site), DiagKind::NoteOtherBarrier, f.other_thread >= 0 ? f.other_thread : 0);
        break;
      }
      case runtime::CpuFinding::Kind::BlockRace: {
        const char* other = f.other_atomic ? "atomic update" : f.other_write ? "write" : "read";
        auto d = diags.Report(site(f.site), DiagKind::RunBlockRace, buffer(f.buffer), f.offset, fn->name, f.thread, f.block[0],
                     f.block[1], f.block[2], fmt::format("{} {}", f.other_atomic ? "an" : "a", other), f.other_thread, f.other_block[0], f.other_block[1], f.other_block[2],
                     f.count > 1 ? fmt::format("; {} such elements", f.count) : "");
        d.Note(site(f.other_site), DiagKind::NoteOtherBlockAccess, other, f.other_thread, f.other_block[0],
               f.other_block[1], f.other_block[2]);
        if (f.same_cluster)
          d.Note(site(f.site), DiagKind::NoteSameClusterGlobal, f.block[0], f.block[1], f.block[2], f.other_block[0],
                 f.other_block[1], f.other_block[2]);
        break;
      }
      case runtime::CpuFinding::Kind::Timeout: {
        auto d = diags.Report(site(f.site), DiagKind::RunTimeout, fn->name, f.thread, f.block[0], f.block[1], f.block[2],
                              fmt::format("{:g}", timeout));
        if (f.other_site >= 0) d.Note(site(f.other_site), DiagKind::NoteWaitsAtBarrier, f.other_thread);
        break;
      }
      case runtime::CpuFinding::Kind::DivideByZero:
        diags.Report(site(f.site), DiagKind::RunDivideByZero, f.modulo ? "modulo" : "division", fn->name, f.thread,
                     f.block[0], f.block[1], f.block[2], f.count > 1 ? fmt::format("; {} times", f.count) : "");
        break;
      case runtime::CpuFinding::Kind::DivideOverflow:
        diags.Report(site(f.site), DiagKind::RunDivideOverflow, f.modulo ? "modulo" : "division", fn->name,
                     fmt::format("-{}", uint64_t{1} << (f.bits - 1)), f.modulo ? "%" : "/", f.bits, f.thread, f.block[0],
                     f.block[1], f.block[2], f.count > 1 ? fmt::format("; {} times", f.count) : "");
        break;
      case runtime::CpuFinding::Kind::CpAsyncOutOfBounds:
        diags.Report(site(f.site), DiagKind::RunCpAsyncOutOfBounds, f.write ? "write" : "read", buffer(f.buffer), f.bytes,
                     fn->name, f.offset, f.extent, f.thread, f.block[0], f.block[1], f.block[2],
                     f.count > 1 ? fmt::format("; {} such copies", f.count) : "");
        break;
      case runtime::CpuFinding::Kind::CpAsyncMisaligned:
        diags.Report(site(f.site), DiagKind::RunCpAsyncMisaligned, f.bytes, fn->name, f.write ? "destination" : "source",
                     buffer(f.buffer), f.offset,
                     f.write ? fmt::format("shared-memory address {}", f.address)
                             : fmt::format("byte {} of '{}'", f.address, buffer(f.buffer)),
                     f.bytes, f.thread, f.block[0], f.block[1], f.block[2]);
        break;
      case runtime::CpuFinding::Kind::ClusterEmptyMask:
        diags.Report(site(f.site), DiagKind::RunClusterEmptyMask, fn->name, f.thread, f.block[0], f.block[1], f.block[2]);
        break;
      case runtime::CpuFinding::Kind::ClusterRankOutside:
        diags.Report(site(f.site), DiagKind::RunClusterRankOutside, f.write ? "a multicast tma_load" : "an mbarrier_arrive",
                     fn->name, f.thread, f.block[0], f.block[1], f.block[2], f.offset, Plural(f.extent, "block"));
        break;
      case runtime::CpuFinding::Kind::ClusterPeerExited:
        diags.Report(site(f.site), DiagKind::RunClusterPeerExited, f.write ? "a multicast tma_load" : "an mbarrier_arrive",
                     fn->name, f.thread, f.block[0], f.block[1], f.block[2], f.other_block[0], f.other_block[1],
                     f.other_block[2]);
        break;
      case runtime::CpuFinding::Kind::ClusterCopyRace:
        diags.Report(site(f.site), DiagKind::RunClusterCopyRace, f.thread, f.block[0], f.block[1], f.block[2], fn->name,
                     buffer(f.buffer), f.offset, f.other_block[0], f.other_block[1], f.other_block[2], f.other_thread,
                     f.other_write ? "write" : "read")
            .Note(site(f.other_site), DiagKind::NoteClusterOtherAccess, f.other_write ? "write" : "read", f.other_thread,
                  f.other_block[0], f.other_block[1], f.other_block[2]);
        break;
      case runtime::CpuFinding::Kind::WarpgroupDivergence: {
        auto times = [](int64_t n) {
          return n == 0 ? std::string("never") : n == 1 ? std::string("once") : fmt::format("{} times", n);
        };
        diags.Report(site(f.site), DiagKind::RunWarpgroupDivergence, fn->name, f.block[0], f.block[1], f.block[2],
                     f.thread / 32 % 4, f.thread / 128, times(f.address), f.other_thread / 32 % 4, times(f.extent));
        break;
      }
      case runtime::CpuFinding::Kind::ProxyFenceMissing:
        diags.Report(site(f.site), DiagKind::RunProxyFenceMissing, f.other_async_read == 2 ? "tma_store" : "wgmma",
                     fn->name, f.thread, f.block[0], f.block[1], f.block[2], buffer(f.buffer), f.offset)
            .Note(site(f.other_site), DiagKind::NoteUnfencedWrite, f.other_thread);
        break;
      case runtime::CpuFinding::Kind::ClusterExitUnordered:
        diags.Report(site(f.site), DiagKind::RunClusterExitUnordered, f.write ? "a multicast tma_load" : "an mbarrier_arrive",
                     fn->name, f.thread, f.block[0], f.block[1], f.block[2], buffer(f.buffer), f.offset, f.other_block[0],
                     f.other_block[1], f.other_block[2]);
        break;
      case runtime::CpuFinding::Kind::ClusterMbarrierUnordered:
        diags.Report(site(f.site), DiagKind::RunClusterMbarrierUnordered, buffer(f.buffer), f.offset, f.other_block[0],
                     f.other_block[1], f.other_block[2], f.thread, f.block[0], f.block[1], f.block[2], fn->name);
        break;
      case runtime::CpuFinding::Kind::TmaStoreUnfinished:
        diags.Report(site(f.site), DiagKind::RunTmaStoreUnfinished, f.thread, f.block[0], f.block[1], f.block[2], fn->name);
        break;
      case runtime::CpuFinding::Kind::WgmmaRegisterInFlight:
        diags.Report(site(f.site), DiagKind::RunWgmmaRegisterInFlight, f.write ? "write" : "read", buffer(f.buffer), f.offset,
                     fn->name, f.thread, f.block[0], f.block[1], f.block[2])
            .Note(site(f.other_site), DiagKind::NoteWgmmaInFlight);
        break;
      case runtime::CpuFinding::Kind::SetmaxnregOverBudget:
        diags.Report(site(f.site), DiagKind::RunSetmaxnregOverBudget, f.offset, fn->name, f.thread / 128, f.block[0],
                     f.block[1], f.block[2], f.address, f.extent);
        break;
      case runtime::CpuFinding::Kind::WgmmaUnfenced:
        if (f.other_site < 0) {
          diags.Report(site(f.site), DiagKind::RunWgmmaNeverFenced, fn->name, f.thread, f.block[0], f.block[1], f.block[2]);
          break;
        }
        diags.Report(site(f.site), DiagKind::RunWgmmaUnfencedRegister, fn->name, f.thread, f.block[0], f.block[1],
                     f.block[2], buffer(f.buffer), f.offset, f.write ? "wrote" : "read")
            .Note(site(f.other_site), DiagKind::NoteUnfencedRegisterAccess, f.write ? "write" : "read");
        break;
      case runtime::CpuFinding::Kind::MbarrierDeadlock: {
        std::string missing = fmt::format("{} arrival{}", f.extent, f.extent == 1 ? "" : "s");
        if (f.address > 0) missing += fmt::format(" and {} transaction bytes", f.address);
        // More bytes were copied than announced: the count never returns to 0.
        auto d = f.address < 0 ? diags.Report(site(f.site), DiagKind::RunMbarrierOvercount, fn->name, f.thread, f.block[0],
                                              f.block[1], f.block[2], buffer(f.buffer), f.offset, f.bits, -f.address)
                               : diags.Report(site(f.site), DiagKind::RunMbarrierDeadlock, fn->name, f.thread, f.block[0],
                                              f.block[1], f.block[2], buffer(f.buffer), f.offset, f.bits, missing);
        if (f.other_site >= 0 && f.other_rank >= 0)  // another block of the cluster
          d.Note(site(f.other_site), DiagKind::NoteWaitsInOtherBlock, f.other_thread, f.other_block[0], f.other_block[1],
                 f.other_block[2]);
        else if (f.other_site >= 0)
          d.Note(site(f.other_site),
                 f.why == runtime::CpuFinding::Why::AtBarrier ? DiagKind::NoteWaitsAtBarrier : DiagKind::NoteWaitsAtWarpOp,
                 f.other_thread);
        break;
      }
      case runtime::CpuFinding::Kind::MbarrierUninitialized:
        diags.Report(site(f.site), DiagKind::RunMbarrierUninitialized, buffer(f.buffer), f.offset, fn->name, f.thread,
                     f.block[0], f.block[1], f.block[2]);
        break;
      case runtime::CpuFinding::Kind::LdMatrixMisaligned:
        diags.Report(site(f.site), DiagKind::RunLdMatrixMisaligned, fn->name, f.thread % 32, f.address, f.thread,
                     f.block[0], f.block[1], f.block[2]);
        break;
      case runtime::CpuFinding::Kind::WarpDivergence: {
        using Why = runtime::CpuFinding::Why;
        int32_t lane = f.other_thread % 32;
        std::string why =
            f.why == Why::OtherSite   ? fmt::format("but thread {} (lane {}) waits at another one", f.other_thread, lane)
            : f.why == Why::AtBarrier ? fmt::format("but thread {} (lane {}) waits at a barrier", f.other_thread, lane)
            : f.why == Why::Returned  ? fmt::format("but thread {} (lane {}) has already returned", f.other_thread, lane)
                                      : fmt::format("but the warp has only {} threads (the block has {}); this operation needs all 32 lanes",
                                                    f.warp_threads, block_threads);
        auto d = diags.Report(site(f.site), DiagKind::RunWarpDivergence, fn->name, f.thread, f.thread % 32, f.thread / 32,
                              f.block[0], f.block[1], f.block[2], why);
        if (f.other_site >= 0) d.Note(site(f.other_site), DiagKind::NoteOtherBarrier, f.other_thread);
        break;
      }
    }
  }
}

}  // namespace tmc::driver
