// tmc tune: enumerate, compile, filter, check, measure (or model), record.
// Compilation runs in this process on all cores (CompileCandidates); each
// CPU check runs as its own `tmc run` process, so that a candidate that
// crashes or hangs the executor costs that candidate only; GPU timing
// runs here through the runtime.
#include "tools/tmc/tune_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "frontend/compilation.h"
#include "runtime/json.h"
#include "runtime/kernel_signature.h"
#include "runtime/tmc_runtime.hpp"
#include "tools/tmc/all_candidates.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/huge_pages.h"
#include "tools/tmc/op_kernel.h"
#include "tools/tmc/tuned_params.h"
#include "tools/tmc/version.h"
#include "tune/cost_model.h"
#include "tune/tuning_db.h"


namespace tmc::driver {
namespace {

namespace fs = std::filesystem;

struct Job {
  std::string kernel;
  tune::Shape shape;        // the kernel's shape symbols: the tuning key, the filter, the model
  tune::Shape check_shape;  // what its CPU check's `tmc run --shape` gets (a graph's: the graph's symbols)
};

// One candidate through the stages.
struct Trial {
  CandidateResult compiled;
  std::string params;  // "BM=128,BN=64" (the searched values only)
  runtime::KernelSignature sig;
  tune::Resources res;
  tune::PtxMix mix;
  int threads = 0;
  int64_t blocks = 0;
  std::string status;  // ok | dropped | wrong | failed
  std::string reason;
  double coalescing = 1, bank_conflicts = 0;
  double metric = 0;
};

// "M=72,N=40": each dimension of the tuned shape, at most 72 (which no
// power-of-two tile divides, and which keeps the CPU check short).
tune::Shape DefaultCheckShape(const tune::Shape& shape) {
  tune::Shape s;
  for (const auto& [name, v] : shape) s[name] = std::min<int64_t>(v, 72);
  return s;
}

// Reads the plan: one `KERNEL S=V,...` per line, # comments.
bool ReadPlan(const std::string& path, std::vector<Job>* jobs, std::string* error) {
  std::string text;
  if (!ReadFile(path, &text, error)) {
    *error = "cannot read the plan '" + path + "': " + *error;
    return false;
  }
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string kernel, shape, extra;
    if (!(words >> kernel)) continue;
    std::optional<tune::Shape> s = (words >> shape) ? tune::ParseShapeText(shape) : std::nullopt;
    if (!s || s->empty() || (words >> extra)) {
      *error = fmt::format("{}:{}: expected 'KERNEL NAME=VALUE,...', got '{}'", path, n, line);
      return false;
    }
    jobs->push_back({kernel, *s, {}});
  }
  if (jobs->empty()) *error = path + ": the plan names no kernel";
  return !jobs->empty();
}

// Progress on standard error: rewritten in place on a terminal, one line
// at the end of each stage otherwise.
class Progress {
 public:
  Progress(std::string stage, size_t total) : stage_(std::move(stage)), total_(total), tty_(isatty(2)) {
    start_ = std::chrono::steady_clock::now();
  }
  void Step(const std::string& best) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    if (!tty_) return;
    double s = Seconds();
    double eta = done_ ? s / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
    std::fprintf(stderr, "\r  %-8s %zu/%zu  best so far: %-40s ETA %.0f s   ", stage_.c_str(), done_, total_,
                 best.empty() ? "-" : best.c_str(), eta);
  }
  void Finish(const std::string& summary) {
    std::fprintf(stderr, "%s  %-8s %zu/%zu in %.1f s: %s\n", tty_ ? "\r" : "", stage_.c_str(), done_, total_, Seconds(),
                 summary.c_str());
  }

 private:
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  std::string stage_;
  size_t total_, done_ = 0;
  bool tty_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_;
};

// Runs `f(i)` for i < n on `threads` threads.
template <typename F>
void ParallelFor(size_t n, unsigned threads, F f) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    HugePagesForThisThread();
    for (size_t i; (i = next++) < n;) f(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

// Whether a -D names a compile-time parameter of the kernel.
bool FixedByDefines(const sema::KernelInstance& inst, const Options& o) {
  for (const auto& [name, value] : inst.ct_values)
    if (o.defines.count(name)) return true;
  return false;
}

// Compiles, filters, checks and measures one job's candidates; records
// them. Returns false when a candidate computed a wrong result or none
// could be tuned.
bool TuneJob(const Options& o, const Job& job, const sema::KernelInstance& inst, const std::string& source_hash,
             tune::TuningDb& db, tmc_context* gpu, const std::string& device) {
  auto started = std::chrono::steady_clock::now();
  unsigned threads = o.jobs > 0 ? static_cast<unsigned>(o.jobs) : std::max(1u, std::thread::hardware_concurrency());
  // The space: the searched parameters' `in [...]` values; type parameters
  // stay as compiled (-D or default): they are the caller's data types.
  Options co = o;
  co.kernel = job.kernel;
  co.emit = "ptx";
  co.define_lists.clear();
  for (const auto& [p, v] : inst.ct_values)
    if (DecodeTypeValue(v) || DefinedByUser(o, job.kernel, p)) co.defines[p] = v;
  std::vector<std::pair<std::string, ParamValues>> todo;
  std::vector<ParamValues> space = CandidateSpace(inst, co);
  for (size_t i = 0; i < space.size(); ++i)
    if (!o.plan_file.empty() || static_cast<int>(i % static_cast<size_t>(o.shard_count)) == o.shard_index)
      todo.emplace_back(job.kernel, space[i]);
  std::string shard = o.plan_file.empty() && o.shard_count > 1 ? fmt::format(" (shard {}/{})", o.shard_index, o.shard_count) : "";
  std::fprintf(stderr, "tmc tune: %s for %s on %s%s: %zu candidates%s\n", job.kernel.c_str(),
               tune::ShapeText(job.shape).c_str(), o.arch.c_str(), device == "model" ? " (no GPU: static model)" : (", " + device).c_str(),
               todo.size(), shard.c_str());
  if (todo.empty()) return true;

  // 1-3. Compile (and ptxas -v) in this process, filter by resources and
  // the shape, and check on the CPU executor: each candidate goes on to
  // its filter and check as soon as it is compiled, on the thread that
  // compiled it, so that checks overlap the compilation of others.
  tune::ArchLimits limits = tune::LimitsOf(o.arch);
  const tune::Shape& check = job.check_shape;
  std::string self = SelfPath();
  // The arguments of the candidate's `tmc run` at the check shape.
  auto run_args = [&](const Trial& t) {
    std::vector<std::string> argv = {self, "run", o.inputs.front(), "--kernel", job.kernel, "--shape", tune::ShapeText(check),
                                     "--no-tuning-db", "--stdlib", o.stdlib_dir};
    // A graph's kernel is checked against its fused op (tmc run --graph G
    // --kernel K), with the graph's shape symbols.
    if (!o.graph.empty()) argv.insert(argv.begin() + 3, {"--graph", o.graph});
    for (const std::string& dir : o.include_dirs) argv.insert(argv.end(), {"-I", dir});
    for (const auto& [p, v] : t.compiled.params) argv.insert(argv.end(), {"-D", p + "=" + CtValueString(v)});
    // The same arithmetic as the compiled candidate's.
    if (!o.fp_contract) argv.push_back("-ffp-contract=off");
    if (o.index_bits != 32) argv.push_back("-findex-bits=" + std::to_string(o.index_bits));
    return argv;
  };
  auto filter = [&](Trial& t) {
    std::vector<runtime::KernelSignature> sigs;
    std::string error;
    if (!runtime::ParseKernelMetadata(t.compiled.meta, &sigs, &error) || sigs.empty()) {
      t.status = "failed";
      t.reason = "unreadable metadata: " + error;
      return;
    }
    t.sig = sigs.front();
    std::map<std::string, int64_t> names(job.shape.begin(), job.shape.end());
    for (const runtime::ParamInfo& p : t.sig.params)
      if (p.kind == runtime::ParamInfo::Kind::Scalar && !names.count(p.name)) names[p.name] = 1;
    t.res = tune::ParsePtxasReport(t.compiled.ptxas_report, job.kernel);
    t.res.shared_bytes = std::max<int>(t.res.shared_bytes, static_cast<int>(t.sig.shared_bytes));
    t.mix = tune::AnalyzePtx(t.compiled.output);
    t.threads = 1;
    for (int64_t b : t.sig.block) t.threads *= static_cast<int>(b);
    std::string why;
    for (const std::string& cond : t.sig.launch_conditions) {
      std::optional<int64_t> v = runtime::EvalFormula(cond, names, &why);
      if (!v || *v == 0) {
        why = v ? "does not serve the shape: " + cond + " does not hold" : "launch condition " + cond + ": " + why;
        break;
      }
      why.clear();
    }
    // The runtime refuses tensors of 2^31 elements or more for a kernel
    // with 32-bit offsets (docs/codegen.md): such a shape is not served.
    if (why.empty() && t.sig.index_bits == 32)
      for (const runtime::ParamInfo& p : t.sig.params) {
        if (p.kind != runtime::ParamInfo::Kind::Tensor) continue;
        double elements = 1;
        for (const std::string& d : p.shape) {
          std::string derr;
          elements *= static_cast<double>(runtime::EvalFormula(d, names, &derr).value_or(1));
        }
        if (elements >= 2147483648.0) {
          why = fmt::format("does not serve the shape: '{}' has {:.0f} elements, 2^31 or more with 32-bit offsets "
                            "(tune with -findex-bits=64)",
                            p.name, elements);
          break;
        }
      }
    t.blocks = 1;
    for (const std::string& g : t.sig.grid) {
      std::string gerr;
      std::optional<int64_t> v = runtime::EvalFormula(g, names, &gerr);
      t.blocks *= v ? std::max<int64_t>(*v, 0) : 0;
    }
    // Local memory is judged once all are compiled (below).
    if (why.empty()) why = tune::DropReason(t.res, t.threads, limits, /*others_without_stack=*/false);
    if (!why.empty()) {
      t.status = "dropped";
      t.reason = why;
    }
  };
  auto check_on_cpu = [&](Trial& t) {
    ProcessResult r = RunProcess(run_args(t));
    if (r.exit_code == 0 && r.out.find("\nresult:     PASS") != std::string::npos) return;
    if (r.err.find("does not serve these shapes") != std::string::npos) {
      t.status = "failed";
      t.reason = "the check shape " + tune::ShapeText(check) +
                 " does not satisfy the kernel's launch conditions (give --check-shape): " + r.err.substr(0, r.err.find('\n'));
      return;
    }
    t.status = r.exit_code == 1 ? "wrong" : "failed";
    t.reason = (r.exit_code == 1 ? "" : fmt::format("tmc run exited with {}: ", r.exit_code)) + r.err + r.out;
  };
  auto searched_text = [&](const ParamValues& params) {
    ParamValues searched;
    for (const auto& [p, v] : params)
      if (!DecodeTypeValue(v) && !DefinedByUser(o, job.kernel, p)) searched.emplace_back(p, v);
    return ParamValuesText(searched);
  };

  std::vector<Trial> trials(todo.size());
  Progress progress("build", todo.size());
  std::vector<CandidateResult> results = CompileCandidates(co, todo, /*ptxas_report=*/true, /*others_checked=*/true, [&](size_t i, CandidateResult& r) {
    Trial& t = trials[i];
    t.compiled = std::move(r);
    t.params = searched_text(t.compiled.params);
    t.status = "ok";
    if (t.compiled.status == CandidateResult::Status::Failed) {
      t.status = "failed";
      t.reason = t.compiled.reason;
    }
    if (t.status == "ok") filter(t);
    if (t.status == "ok") check_on_cpu(t);
    progress.Step("");
  });
  // Candidates that stopped in the front end: `where` excluded them (not
  // candidates at all), or their check failed.
  size_t excluded = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].status == CandidateResult::Status::Excluded) {
      trials[i].status = "excluded";
      ++excluded;
      progress.Step("");
    } else if (trials[i].status.empty()) {
      trials[i].compiled = std::move(results[i]);
      trials[i].params = searched_text(trials[i].compiled.params);
      trials[i].status = "failed";
      trials[i].reason = trials[i].compiled.reason;
      progress.Step("");
    }
  }
  trials.erase(std::remove_if(trials.begin(), trials.end(), [](const Trial& t) { return t.status == "excluded"; }),
               trials.end());
  // Local memory (a stack frame) drops a candidate when others do without.
  bool any_without_stack = std::any_of(trials.begin(), trials.end(), [](const Trial& t) {
    return (t.status == "ok" || t.status == "wrong") && t.res.found && t.res.stack_bytes == 0;
  });
  for (Trial& t : trials)
    if (t.status == "ok") {
      std::string why = tune::DropReason(t.res, t.threads, limits, any_without_stack);
      if (!why.empty()) {
        t.status = "dropped";
        t.reason = why;
      }
    }
  auto count = [&](const char* status) {
    return std::count_if(trials.begin(), trials.end(), [&](const Trial& t) { return t.status == status; });
  };
  size_t wrong = count("wrong");
  progress.Finish(fmt::format("{} excluded by 'where', {} failed to compile, {} dropped (spills, local memory, shared "
                              "memory, occupancy, launch conditions), {} wrong on the CPU executor at {}, {} passed",
                              excluded, count("failed"), count("dropped"), wrong, tune::ShapeText(check), count("ok")));
  for (const Trial& t : trials)
    if (t.status == "wrong")
      std::fprintf(stderr,
                   "tmc: error: candidate %s of kernel '%s' computes a wrong result on the CPU executor at %s "
                   "(a bug in the kernel or in tmc; it is never chosen):\n%s",
                   t.params.c_str(), job.kernel.c_str(), tune::ShapeText(check).c_str(), t.reason.c_str());

  // 4. Measure on the GPU, or rank by the model.
  std::vector<Trial*> ranked;
  for (Trial& t : trials)
    if (t.status == "ok") ranked.push_back(&t);
  const char* kind = gpu ? tune::kMeasured : tune::kModel;
  if (gpu) {
    Progress time_progress("time", ranked.size());
    // Random inputs; outputs are scratch.
    std::mt19937_64 rng(1);
    std::map<std::string, int64_t> shape_names(job.shape.begin(), job.shape.end());
    auto time_one = [&](Trial& t, int warmup, int reps) -> bool {
      tmc_module* mod = nullptr;
      tmc_kernel* k = nullptr;
      if (tmc_module_load(gpu, t.compiled.output.c_str(), t.compiled.output.size() + 1, t.compiled.meta.c_str(), &mod) !=
              TMC_SUCCESS ||
          tmc_module_get_kernel(mod, job.kernel.c_str(), &k) != TMC_SUCCESS) {
        t.status = "failed";
        t.reason = tmc_last_error();
        if (mod) tmc_module_unload(mod);
        return false;
      }
      std::vector<tmc_arg> args;
      std::vector<uint64_t> buffers;
      bool ok = true;
      for (const runtime::ParamInfo& p : t.sig.params) {
        if (p.kind == runtime::ParamInfo::Kind::Shape) continue;
        tmc_arg a{};
        if (p.kind == runtime::ParamInfo::Kind::Scalar) {
          a.dtype = p.dtype;
          a.value.i = 1;
          if (p.dtype == TMC_F32 || p.dtype == TMC_F64 || p.dtype == TMC_F16 || p.dtype == TMC_BF16) a.value.f = 1.0;
          args.push_back(a);
          continue;
        }
        a.is_tensor = 1;
        a.tensor.dtype = p.dtype;
        a.tensor.rank = static_cast<int>(p.shape.size());
        size_t elems = 1;
        for (size_t r = 0; r < p.shape.size(); ++r) {
          std::string e;
          a.tensor.shape[r] = runtime::EvalFormula(p.shape[r], shape_names, &e).value_or(1);
          elems *= static_cast<size_t>(a.tensor.shape[r]);
        }
        size_t bytes = elems * runtime::DtypeBytes(p.dtype);
        std::vector<uint8_t> host(bytes);
        // Small random bit patterns: valid finite values for every type.
        for (size_t b = 0; b + 1 < bytes; b += 2) {
          host[b] = static_cast<uint8_t>(rng());
          host[b + 1] = static_cast<uint8_t>(0x30 + rng() % 8);
        }
        ok = ok && tmc_malloc(gpu, bytes, &a.tensor.data) == TMC_SUCCESS &&
             tmc_copy_to_device(gpu, a.tensor.data, host.data(), bytes) == TMC_SUCCESS;
        buffers.push_back(a.tensor.data);
        args.push_back(a);
      }
      double median = 0, spread = 0;
      ok = ok && tmc::TimeLaunches(gpu, k, args, warmup, reps, &median, &spread) == TMC_SUCCESS;
      if (ok) t.metric = median;
      else {
        t.status = "failed";
        t.reason = tmc_last_error();
      }
      for (uint64_t b : buffers) tmc_free(gpu, b);
      tmc_module_unload(mod);
      return ok;
    };
    // A short first round; candidates over 1.5x the best are eliminated
    // (as Hidet does), the rest are timed again for longer.
    double best = std::numeric_limits<double>::infinity();
    for (Trial* t : ranked) {
      if (time_one(*t, 1, 5)) best = std::min(best, t->metric);
      time_progress.Step(std::isfinite(best) ? fmt::format("{:.4f} ms", best) : "");
    }
    for (Trial* t : ranked)
      if (t->status == "ok" && t->metric <= 1.5 * best) time_one(*t, 3, 20);
      else if (t->status == "ok") t->reason = fmt::format("eliminated after the first round ({:.4f} ms > 1.5 x {:.4f})", t->metric, best);
    time_progress.Finish(fmt::format("best {:.4f} ms", best));
  } else {
    double flops = 2;
    for (const auto& [name, v] : job.shape) flops *= static_cast<double>(v);
    auto model = [&](Trial* t) {
      tune::ModelInput in;
      in.resources = t->res;
      in.mix = t->mix;
      in.threads = t->threads;
      in.blocks = t->blocks;
      in.op_flops = flops;
      in.coalescing = t->coalescing;
      in.bank_conflicts = t->bank_conflicts;
      t->metric = tune::ModelMicroseconds(in, limits);
    };
    for (Trial* t : ranked) model(t);
    // The memory behaviour (coalescing, bank conflicts) from the CPU
    // executor's profile at the check shape, for the model's best 8 and
    // those within 10% of the 8th (a profile costs twice a check).
    std::vector<Trial*> close = ranked;
    std::stable_sort(close.begin(), close.end(), [](Trial* a, Trial* b) { return a->metric < b->metric; });
    constexpr size_t kProfiled = 8;
    if (close.size() > kProfiled) {
      double cut = close[kProfiled - 1]->metric * 1.1;
      close.erase(std::find_if(close.begin() + kProfiled, close.end(), [&](Trial* t) { return t->metric > cut; }), close.end());
    }
    Progress profile_progress("profile", close.size());
    ParallelFor(close.size(), threads, [&](size_t n) {
      Trial* t = close[n];
      std::vector<std::string> argv = run_args(*t);
      argv.push_back("--profile=json");
      ProcessResult r = RunProcess(argv);
      runtime::Json profile;
      std::string error;
      if (r.exit_code == 0 && runtime::ParseJson(r.out, &profile, &error)) {
        if (const runtime::Json* g = profile.Get("global"))
          if (const runtime::Json* e = g->Get("efficiency")) t->coalescing = e->number > 0 ? e->number : 1;
        if (const runtime::Json* sh = profile.Get("shared")) {
          const runtime::Json* c = sh->Get("bank_conflicts");
          const runtime::Json* w = sh->Get("ideal_wavefronts");
          if (c && w && w->number > 0) t->bank_conflicts = c->number / w->number;
        }
        model(t);
      }
      profile_progress.Step("");
    });
    profile_progress.Finish("memory behaviour of the model's best candidates");
  }
  ranked.erase(std::remove_if(ranked.begin(), ranked.end(), [](Trial* t) { return t->status != "ok"; }), ranked.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](Trial* a, Trial* b) { return a->metric < b->metric; });

  // 5. Record everything, and the winner.
  tune::TuningKey key{job.kernel, source_hash, o.arch, FixedValuesText(inst, o, job.kernel), device, kTmcVersion};
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  std::string error;
  for (const Trial& t : trials) {
    tune::Measurement m;
    m.key = key;
    m.shape = job.shape;
    m.params = t.params;
    m.status = t.status;
    m.metric = t.status == "ok" ? t.metric : 0;
    m.metric_kind = kind;
    m.registers = t.res.registers;
    m.spill_bytes = t.res.spill_bytes;
    m.shared_bytes = t.res.shared_bytes;
    m.reason = t.reason;
    m.created = now;
    if (!db.Record(m, &error)) {
      std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
      return false;
    }
  }
  // A candidate found wrong now was perhaps the best of an earlier run:
  // that entry goes (never chosen again), and this run's winner replaces it.
  for (const Trial& t : trials)
    if (t.status == "wrong") {
      std::optional<tune::BestEntry> old = db.Lookup(key, job.shape);
      if (old && old->shape == job.shape && old->key.device == key.device && old->params == t.params &&
          !db.RemoveBest(key, job.shape, &error)) {
        std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
        return false;
      }
    }
  if (!ranked.empty()) {
    tune::BestEntry b;
    b.key = key;
    b.shape = job.shape;
    b.params = ranked.front()->params;
    b.metric = ranked.front()->metric;
    b.metric_kind = kind;
    b.created = now;
    if (!db.OfferBest(b, &error)) {
      std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
      return false;
    }
  }

  // The table: the ranked candidates first, then the others with why.
  std::string unit = gpu ? "ms" : "model us";
  fmt::print("{} for {} ({}, {}):\n", job.kernel, tune::ShapeText(job.shape), o.arch, gpu ? device : "ranked by the static model, not measured");
  fmt::print("  {:<4} {:<36} {:>5} {:>7} {:>7} {:>9} {:>12}  {}\n", "rank", "parameters", "regs", "smem", "blocks", "blk/SM",
             unit, "status");
  for (size_t i = 0; i < ranked.size(); ++i) {
    const Trial& t = *ranked[i];
    fmt::print("  {:<4} {:<36} {:>5} {:>7} {:>7} {:>9} {:>12.4f}  ok{}\n", i + 1, t.params, t.res.registers, t.res.shared_bytes,
               t.blocks, tune::BlocksPerSm(t.res, t.threads, limits, nullptr), t.metric,
               t.reason.empty() ? "" : " (" + t.reason + ")");
  }
  for (const Trial& t : trials)
    if (t.status != "ok")
      fmt::print("  {:<4} {:<36} {:>5} {:>7} {:>7} {:>9} {:>12}  {}: {}\n", "-", t.params, t.res.registers, t.res.shared_bytes,
                 "", "", "", t.status,
                 t.status == "wrong" ? "a wrong result on the CPU executor at " + tune::ShapeText(check) + " (reported above)"
                                     : t.reason.substr(0, t.reason.find('\n')));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (ranked.empty()) {
    // A shard of a larger space may hold only candidates that others beat
    // anyway (dropped ones): not an error there; wrong ones always are.
    bool shard = o.shard_count > 1;
    std::fprintf(stderr, "tmc: %s: no candidate of '%s' passed%s (%.1f s)\n", shard ? "warning" : "error",
                 job.kernel.c_str(), shard ? " in this shard" : "", seconds);
    return shard && wrong == 0;
  }
  fmt::print("best: {} {}  ({} {:.4f}; recorded in {}; {:.1f} s)\n", job.kernel,
             ranked.front()->params.empty() ? (FixedByDefines(inst, o) ? "(no searched parameter: -D fixes them all)"
                                                                        : "(the kernel has no schedule parameter)")
                                            : ranked.front()->params,
             unit,
             ranked.front()->metric, db.path(), seconds);
  std::fflush(stdout);
  return wrong == 0;
}

}  // namespace

int TuneCommand(const Options& given) {
  // The checks compile each candidate for the CPU once and run it at a
  // small shape: without LLVM's optimizations that is 2-3x faster.
  setenv("TMC_CPU_OPT", "0", /*overwrite=*/0);
  Options o = given;
  std::string error;
  auto check_shape_for = [&](const tune::Shape& shape) {
    return o.check_shapes.empty() ? DefaultCheckShape(shape) : tune::Shape(o.check_shapes.begin(), o.check_shapes.end());
  };
  // A graph: its fused kernels (as `tmc FILE --graph G` compiles them)
  // are added to the file, and those with candidate values are tuned at
  // the shapes the graph's --shape gives them.
  if (!o.graph.empty()) {
    SourceManager gsm;
    TextDiagnosticPrinter gprinter(gsm, stderr);
    DiagnosticEngine gdiags(gsm, gprinter);
    ApplyDiagnosticOptions(o, gdiags);
    bool ok = PrepareGraphKernels(&o, gsm, gdiags) && !gdiags.HasErrors() && CheckGraphShapeSymbols(o, gdiags);
    if (ok && !o.check_shapes.empty()) {  // --check-shape gives the graph's symbols too
      Options check_names = o;
      check_names.shapes = o.check_shapes;
      ok = CheckGraphShapeSymbols(check_names, gdiags);
    }
    if (!ok) {
      std::fprintf(stderr, "tmc: error: graph '%s' of '%s' cannot be compiled; nothing was tuned\n", o.graph.c_str(),
                   o.inputs.front().c_str());
      return 1;
    }
  }

  // The file as compiled (with a graph's kernels): its kernels, spaces and
  // source hash, as a compile computes them (tuned_params.cpp).
  CommandFrontend fe(o);
  SourceManager& sm = fe.sm;
  DiagnosticEngine& diags = fe.diags;
  sema::CheckedModule* m = fe.Compile(o, o.inputs.front());
  if (!m || diags.HasErrors()) {
    std::fprintf(stderr, "tmc: error: '%s' does not compile; nothing was tuned\n", o.inputs.front().c_str());
    return 1;
  }
  std::string hash = SourceHash(sm);
  auto has_space = [](const sema::KernelInstance& k) {
    return std::any_of(k.ct_candidates.begin(), k.ct_candidates.end(), [](const auto& c) { return !c.second.empty(); });
  };
  auto decl_of = [&](const std::string& name) -> const ast::KernelDecl* {
    for (const ast::Decl* d : m->ast->decls)
      if (auto* k = ast::dyn_cast<ast::KernelDecl>(d); k && k->name.name == name) return k;
    return nullptr;
  };

  std::vector<Job> jobs;
  if (!o.graph.empty()) {
    std::string names;
    for (const Options::GraphKernel& gk : o.graph_kernels) {
      names += (names.empty() ? "" : ", ") + gk.name;
      const ast::KernelDecl* k = decl_of(gk.name);
      if (!k || (!given.kernel.empty() && gk.name != given.kernel) || !has_space(m->kernels.at(gk.name))) continue;
      Job job{gk.name, {}, check_shape_for(tune::Shape(o.shapes.begin(), o.shapes.end()))};
      std::map<std::string, int64_t> shapes;
      std::map<std::string, std::string> args;
      std::string missing;
      BindGraphKernel(o, *k, gk, &shapes, &args, &missing);
      if (!missing.empty()) {
        std::fprintf(stderr, "tmc: error: graph '%s' needs a value for its shape symbol '%s' (--shape %s=...)\n",
                     o.graph.c_str(), missing.c_str(), missing.c_str());
        return 1;
      }
      job.shape = tune::Shape(shapes.begin(), shapes.end());
      jobs.push_back(job);
    }
    if (jobs.empty()) {
      bool named = given.kernel.empty() || names.find(given.kernel) != std::string::npos;
      if (!named)
        std::fprintf(stderr, "tmc: error: graph '%s' has no kernel '%s' (its kernels: %s)\n", o.graph.c_str(),
                     given.kernel.c_str(), names.c_str());
      else
        std::fprintf(stderr, "tmc: error: %s of graph '%s' (%s) has compile-time parameters with candidate values: nothing to tune\n",
                     given.kernel.empty() ? "no kernel" : ("kernel '" + given.kernel + "'").c_str(), o.graph.c_str(),
                     names.c_str());
      return 1;
    }
    // Each kernel's -D values (the candidate's) apply to it alone.
    o.kernel.clear();
  } else if (!o.plan_file.empty()) {
    std::vector<Job> all;
    if (!ReadPlan(o.plan_file, &all, &error)) {
      std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
      return 1;
    }
    for (size_t i = 0; i < all.size(); ++i)
      if (static_cast<int>(i % static_cast<size_t>(o.shard_count)) == o.shard_index) jobs.push_back(all[i]);
  } else {
    jobs.push_back({o.kernel, tune::Shape(o.shapes.begin(), o.shapes.end()), {}});
  }
  for (Job& job : jobs) {
    if (job.check_shape.empty()) job.check_shape = check_shape_for(job.shape);
    auto it = m->kernels.find(job.kernel);
    if (it == m->kernels.end() || !decl_of(job.kernel)) {
      std::fprintf(stderr, "tmc: error: '%s' has no kernel named '%s'\n", o.inputs.front().c_str(), job.kernel.c_str());
      return 1;
    }
    if (!has_space(it->second)) {
      std::fprintf(stderr, "tmc: error: kernel '%s' has no compile-time parameters with candidate values: nothing to tune\n",
                   job.kernel.c_str());
      return 1;
    }
    // The shape must give exactly the kernel's shape symbols.
    std::set<std::string> symbols;
    for (const ast::Param& p : decl_of(job.kernel)->params)
      if (p.type.is_tensor)
        for (const ast::Expr* d : p.type.dims)
          if (auto* name = ast::dyn_cast<ast::NameExpr>(d)) symbols.insert(name->name);
    std::string list;
    for (const std::string& sym : symbols) list += (list.empty() ? "" : ", ") + sym;
    for (const auto& [name, v] : job.shape)
      if (!symbols.count(name)) {
        std::fprintf(stderr, "tmc: error: kernel '%s' has no shape symbol '%s' (it has %s)\n", job.kernel.c_str(),
                     name.c_str(), list.c_str());
        return 1;
      }
    for (const std::string& sym : symbols)
      if (!job.shape.count(sym)) {
        std::fprintf(stderr, "tmc: error: the shape to tune kernel '%s' for gives no value for '%s' (--shape %s=...)\n",
                     job.kernel.c_str(), sym.c_str(), sym.c_str());
        return 1;
      }
    // --check-shape too (a graph's are the graph's symbols, checked above).
    if (o.graph.empty() && !o.check_shapes.empty()) {
      for (const auto& [name, v] : o.check_shapes)
        if (!symbols.count(name)) {
          std::fprintf(stderr, "tmc: error: --check-shape gives '%s', which kernel '%s' does not have (it needs %s)\n",
                       name.c_str(), job.kernel.c_str(), list.c_str());
          return 1;
        }
      for (const std::string& sym : symbols)
        if (!o.check_shapes.count(sym)) {
          std::fprintf(stderr, "tmc: error: --check-shape gives no value for '%s' of kernel '%s' (it needs %s)\n",
                       sym.c_str(), job.kernel.c_str(), list.c_str());
          return 1;
        }
    }
  }

  std::string path = o.db_path.empty() ? tune::DefaultDbPath() : o.db_path;
  auto db = tune::TuningDb::Open(path, /*create=*/true, &error);
  if (!db) {
    std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
    return 1;
  }
  // A GPU when there is one (TMC_TUNE_NO_GPU=1 forces the model).
  tmc_context* gpu = nullptr;
  std::string device = tune::kModel;
  if (!std::getenv("TMC_TUNE_NO_GPU") && tmc_init(0, &gpu) == TMC_SUCCESS) {
    char name[256] = {0};
    device = tmc_device_name(gpu, name, sizeof name) == TMC_SUCCESS ? name : "cuda device 0";
  } else {
    gpu = nullptr;
  }
  bool ok = true;
  for (const Job& job : jobs) ok = TuneJob(o, job, m->kernels.at(job.kernel), hash, *db, gpu, device) && ok;
  if (gpu) tmc_shutdown(gpu);
  return ok ? 0 : 1;
}

}  // namespace tmc::driver
