// The report of tmc run --profile. The executor counts per site of the
// compiled kernel; unrolled copies of one access are distinct sites, so
// rows are merged by source location, access and tensor here. Sorted by
// cost: global rows by sectors, shared rows by wavefronts, barriers by
// how often blocks passed them.
#include "tools/tmc/profile_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "support/json_string.h"

namespace tmc::driver {
namespace {

using runtime::ProfileOp;
using runtime::SiteProfile;

struct Row {
  std::string path;
  uint32_t line = 0, column = 0;
  std::string location;  // file name:line:column
  std::string tensor;
  SiteProfile total;
};

const char* AccessName(ProfileOp op) {
  switch (op) {
    case ProfileOp::Read: return "read";
    case ProfileOp::Write: return "write";
    case ProfileOp::Atomic: return "atomic";
    case ProfileOp::CpAsyncRead:
    case ProfileOp::CpAsyncWrite: return "cp_async";
    case ProfileOp::LdMatrix: return "ldmatrix";
    case ProfileOp::Barrier: return "sync";
  }
  return "?";
}

struct Rows {
  std::vector<Row> global, shared, barriers;
};

Rows Collect(const runtime::CpuProfile& p, const codegen::CpuModule& cpu, const SourceManager& sm) {
  std::map<std::tuple<std::string, uint32_t, uint32_t, int, std::string>, Row> merged;
  for (const SiteProfile& s : p.sites) {
    Row r;
    SourceRange range = s.site >= 0 && static_cast<size_t>(s.site) < cpu.sites.size() ? cpu.sites[static_cast<size_t>(s.site)]
                                                                                      : SourceRange{};
    if (range.IsValid()) {
      PresumedLoc at = sm.Presumed(range.begin);
      r.path = std::string(at.path);
      r.line = at.line;
      r.column = at.column;
      std::string file = r.path.substr(r.path.find_last_of('/') + 1);
      r.location = fmt::format("{}:{}:{}", file, r.line, r.column);
    } else {
      r.location = "?";
    }
    if (s.op != ProfileOp::Barrier)
      r.tensor = s.buffer >= 0 && static_cast<size_t>(s.buffer) < cpu.buffer_names.size()
                     ? cpu.buffer_names[static_cast<size_t>(s.buffer)]
                     : "?";
    r.total = s;
    auto key = std::make_tuple(r.path, r.line, r.column, static_cast<int>(s.op), r.tensor);
    auto [it, fresh] = merged.try_emplace(key, r);
    if (!fresh) it->second.total.Add(s);
  }
  Rows rows;
  for (auto& [key, r] : merged) {
    if (r.total.op == ProfileOp::Barrier) rows.barriers.push_back(r);
    else if (r.total.shared) rows.shared.push_back(r);
    else rows.global.push_back(r);
  }
  // By cost, then in source order (the map's order, kept by stable_sort).
  std::stable_sort(rows.global.begin(), rows.global.end(), [](const Row& a, const Row& b) { return a.total.sectors > b.total.sectors; });
  std::stable_sort(rows.shared.begin(), rows.shared.end(),
                   [](const Row& a, const Row& b) { return a.total.wavefronts > b.total.wavefronts; });
  std::stable_sort(rows.barriers.begin(), rows.barriers.end(),
                   [](const Row& a, const Row& b) { return a.total.barriers > b.total.barriers; });
  return rows;
}

SiteProfile Sum(const std::vector<Row>& rows) {
  SiteProfile t;
  for (const Row& r : rows) t.Add(r.total);
  return t;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

// A table with a header; the first `left` columns align left, the rest right.
std::string Table(const std::vector<std::vector<std::string>>& cells, size_t left) {
  std::vector<size_t> width;
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : cells) {
    std::string line = " ";
    for (size_t c = 0; c < row.size(); ++c)
      line += c < left ? fmt::format(" {:<{}}", row[c], width[c]) : fmt::format("  {:>{}}", row[c], width[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string ProfileText(const runtime::CpuProfile& p, const codegen::CpuModule& cpu, const SourceManager& sm,
                        const ProfileRun& run) {
  Rows rows = Collect(p, cpu, sm);
  SiteProfile g = Sum(rows.global), s = Sum(rows.shared), b = Sum(rows.barriers);
  std::string out;
  out += fmt::format("profile:    {} block{} of {} threads on the CPU executor (model: docs/runtime.md)\n", run.blocks,
                     run.blocks == 1 ? "" : "s", run.block_threads);
  if (g.warp_instructions > 0) {
    out += fmt::format("global:     {} bytes moved ({} sectors of 32 bytes): {:.2f}x the minimum of {} bytes (its {} tensors once)\n",
                       g.sectors * 32, g.sectors, Ratio(static_cast<double>(g.sectors * 32), static_cast<double>(run.min_bytes)),
                       run.min_bytes, run.tensors);
    out += fmt::format("            {} warp instructions requested {} bytes: {:.1f}% sector efficiency\n", g.warp_instructions,
                       g.requested_bytes, 100 * Ratio(static_cast<double>(g.requested_bytes), static_cast<double>(g.sectors * 32)));
  } else {
    out += "global:     no accesses\n";
  }
  if (s.warp_instructions > 0)
    out += fmt::format("shared:     {} wavefronts for {} warp instructions, {} without conflicts: {} bank conflicts\n",
                       s.wavefronts, s.warp_instructions, s.ideal_wavefronts, s.wavefronts - s.ideal_wavefronts);
  else
    out += "shared:     no accesses\n";
  out += fmt::format("barriers:   {} executed ({:g} per block)\n", b.barriers,
                     Ratio(static_cast<double>(b.barriers), static_cast<double>(p.blocks)));
  auto lanes = [](const SiteProfile& t) { return fmt::format("{:.1f}", Ratio(static_cast<double>(t.lanes), static_cast<double>(t.warp_instructions))); };
  if (!rows.global.empty()) {
    std::vector<std::vector<std::string>> cells{
        {"location", "access", "tensor", "warp insts", "lanes", "requested", "sectors", "per inst", "efficiency"}};
    for (const Row& r : rows.global) {
      const SiteProfile& t = r.total;
      cells.push_back({r.location, AccessName(t.op), r.tensor, std::to_string(t.warp_instructions), lanes(t),
                       std::to_string(t.requested_bytes), std::to_string(t.sectors),
                       fmt::format("{:.1f}", Ratio(static_cast<double>(t.sectors), static_cast<double>(t.warp_instructions))),
                       fmt::format("{:.1f}%", 100 * Ratio(static_cast<double>(t.requested_bytes), static_cast<double>(t.sectors * 32)))});
    }
    out += "\nglobal memory, by sectors:\n" + Table(cells, 3);
  }
  if (!rows.shared.empty()) {
    std::vector<std::vector<std::string>> cells{
        {"location", "access", "tensor", "warp insts", "lanes", "requested", "wavefronts", "ideal", "max ways", "conflicts"}};
    for (const Row& r : rows.shared) {
      const SiteProfile& t = r.total;
      cells.push_back({r.location, AccessName(t.op), r.tensor, std::to_string(t.warp_instructions), lanes(t),
                       std::to_string(t.requested_bytes), std::to_string(t.wavefronts), std::to_string(t.ideal_wavefronts),
                       std::to_string(t.max_ways), std::to_string(t.wavefronts - t.ideal_wavefronts)});
    }
    out += "\nshared memory, by wavefronts:\n" + Table(cells, 3);
  }
  if (!rows.barriers.empty()) {
    std::vector<std::vector<std::string>> cells{{"location", "executed"}};
    for (const Row& r : rows.barriers) cells.push_back({r.location, std::to_string(r.total.barriers)});
    out += "\nbarriers, by count:\n" + Table(cells, 1);
  }
  return out;
}

std::string ProfileJson(const runtime::CpuProfile& p, const codegen::CpuModule& cpu, const SourceManager& sm,
                        const ProfileRun& run) {
  Rows rows = Collect(p, cpu, sm);
  SiteProfile g = Sum(rows.global), s = Sum(rows.shared), b = Sum(rows.barriers);
  auto number = [](double x) { return fmt::format("{:.6g}", x); };
  std::string out = "{\n";
  std::string shapes;
  for (const auto& [name, value] : run.shapes) shapes += fmt::format("{}{}: {}", shapes.empty() ? "" : ", ", JsonString(name), value);
  out += fmt::format("  \"kernel\": {},\n  \"compile_time\": {},\n  \"target\": \"cpu\",\n  \"shapes\": {{{}}},\n  \"result\": {},\n",
                     JsonString(run.kernel), JsonString(run.compile_time), shapes, JsonString(run.result));
  out += fmt::format("  \"blocks\": {},\n  \"threads_per_block\": {},\n", run.blocks, run.block_threads);
  out += fmt::format(
      "  \"global\": {{\"warp_instructions\": {}, \"requested_bytes\": {}, \"sectors\": {}, \"bytes_moved\": {}, "
      "\"min_bytes\": {}, \"moved_over_min\": {}, \"efficiency\": {}}},\n",
      g.warp_instructions, g.requested_bytes, g.sectors, g.sectors * 32, run.min_bytes,
      number(Ratio(static_cast<double>(g.sectors * 32), static_cast<double>(run.min_bytes))),
      number(Ratio(static_cast<double>(g.requested_bytes), static_cast<double>(g.sectors * 32))));
  out += fmt::format(
      "  \"shared\": {{\"warp_instructions\": {}, \"requested_bytes\": {}, \"wavefronts\": {}, \"ideal_wavefronts\": {}, "
      "\"bank_conflicts\": {}}},\n",
      s.warp_instructions, s.requested_bytes, s.wavefronts, s.ideal_wavefronts, s.wavefronts - s.ideal_wavefronts);
  out += fmt::format("  \"barriers\": {{\"executed\": {}, \"per_block\": {}}},\n", b.barriers,
                     number(Ratio(static_cast<double>(b.barriers), static_cast<double>(p.blocks))));
  out += "  \"sites\": [";
  bool first = true;
  auto site = [&](const Row& r, const char* memory) {
    const SiteProfile& t = r.total;
    out += first ? "\n" : ",\n";
    first = false;
    out += fmt::format("    {{\"file\": {}, \"line\": {}, \"column\": {}, \"memory\": \"{}\", \"access\": \"{}\"", JsonString(r.path),
                       r.line, r.column, memory, AccessName(t.op));
    if (t.op == ProfileOp::Barrier) {
      out += fmt::format(", \"executed\": {}}}", t.barriers);
      return;
    }
    out += fmt::format(", \"tensor\": {}, \"bytes_per_lane\": {}, \"warp_instructions\": {}, \"active_lanes\": {}, "
                       "\"average_active_lanes\": {}, \"requested_bytes\": {}",
                       JsonString(r.tensor), t.bytes, t.warp_instructions, t.lanes,
                       number(Ratio(static_cast<double>(t.lanes), static_cast<double>(t.warp_instructions))), t.requested_bytes);
    if (t.shared)
      out += fmt::format(", \"wavefronts\": {}, \"ideal_wavefronts\": {}, \"max_ways\": {}, \"bank_conflicts\": {}}}", t.wavefronts,
                         t.ideal_wavefronts, t.max_ways, t.wavefronts - t.ideal_wavefronts);
    else
      out += fmt::format(", \"sectors\": {}, \"efficiency\": {}}}", t.sectors,
                         number(Ratio(static_cast<double>(t.requested_bytes), static_cast<double>(t.sectors * 32))));
  };
  for (const Row& r : rows.global) site(r, "global");
  for (const Row& r : rows.shared) site(r, "shared");
  for (const Row& r : rows.barriers) site(r, "none");
  out += first ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace tmc::driver
