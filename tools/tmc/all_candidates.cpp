// The frontend (parse and check) runs on the main thread, one candidate
// after another: each candidate is its own Compilation, with its own
// source manager and diagnostics, because the parser's runtime shares
// caches between threads. Lowering, LLVM and ptxas, which are most of the
// time, run on the worker threads as candidates become ready, each in its
// own LLVM context.
#include "tools/tmc/all_candidates.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "frontend/compilation.h"
#include "support/json_string.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/emit.h"
#include "tools/tmc/huge_pages.h"
#include "tools/tmc/tuned_params.h"
#include "tools/tmc/version.h"
#include "codegen/nvptx/ptxas.h"

namespace tmc::driver {
namespace {

namespace fs = std::filesystem;

// Keeps a candidate's diagnostics as text (as they would print) and notes
// whether a `where` constraint failed.
class Capture : public DiagnosticConsumer {
 public:
  explicit Capture(const SourceManager& sm) : file_(open_memstream(&buffer_, &size_)), printer_(sm, file_) {}
  ~Capture() override {
    if (file_) std::fclose(file_);
    std::free(buffer_);
  }
  void Handle(const Diagnostic& d) override {
    printer_.Handle(d);
    if (d.kind == DiagKind::WhereFailed && where_.empty()) where_ = d.message;
  }
  std::string Text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }
  const std::string& where() const { return where_; }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
  TextDiagnosticPrinter printer_;
  std::string where_;
};

struct Candidate {
  CandidateResult result;
  std::unique_ptr<SourceManager> sm;
  std::unique_ptr<Capture> capture;
  std::unique_ptr<DiagnosticEngine> diags;
  std::unique_ptr<Compilation> comp;
  sema::CheckedModule* module = nullptr;
  size_t index = 0;  // in `todo`
};

std::unique_ptr<DiagnosticEngine> MakeDiags(const Options& o, SourceManager& sm, DiagnosticConsumer& consumer) {
  auto diags = std::make_unique<DiagnosticEngine>(sm, consumer);
  ApplyDiagnosticOptions(o, *diags);
  return diags;
}

const char* Extension(const std::string& emit) { return emit == "cubin" ? ".cubin" : emit == "cuda" ? ".cu" : ".ptx"; }

}  // namespace

std::string ParamValuesText(const ParamValues& params) {
  std::string text;
  for (auto& [p, v] : params) text += fmt::format("{}{}={}", text.empty() ? "" : ",", p, CtValueString(v));
  return text;
}

std::vector<CandidateResult> CompileCandidates(const Options& o,
                                               const std::vector<std::pair<std::string, ParamValues>>& todo,
                                               bool ptxas_report, bool others_checked,
                                               const std::function<void(size_t, CandidateResult&)>& on_compiled) {
  const std::string& path = o.inputs.front();
  // The worker threads lower and compile checked candidates as the main
  // thread checks them (a queue, so that the front ends overlap the LLVM
  // work); the main thread joins them when it has checked the last one.
  std::vector<std::unique_ptr<Candidate>> candidates;
  std::mutex mutex;
  std::condition_variable more;
  std::deque<Candidate*> ready;
  bool all_checked = false;
  auto work = [&] {
    HugePagesForThisThread();
    for (;;) {
      Candidate* c;
      {
        std::unique_lock<std::mutex> lock(mutex);
        more.wait(lock, [&] { return !ready.empty() || all_checked; });
        if (ready.empty()) return;
        c = ready.front();
        ready.pop_front();
      }
      CandidateResult& r = c->result;
      r.output = EmitModule(*c->module, o, *c->diags, {r.kernel}, &r.meta);
      if (c->diags->HasErrors()) {
        r.status = CandidateResult::Status::Failed;
        r.reason = c->capture->Text();
      } else {
        r.status = CandidateResult::Status::Ok;
        if (ptxas_report) {
          codegen::PtxasResult as = codegen::AssemblePtx(r.output, o.arch, /*verbose=*/true);
          if (!as.ok) {
            r.status = CandidateResult::Status::Failed;
            r.reason = as.error;
          }
          r.ptxas_report = as.report;
        }
      }
      // Each candidate's front end and IR are dropped once compiled (a
      // space of hundreds would otherwise hold them all).
      c->comp.reset();
      if (on_compiled) on_compiled(c->index, r);
    }
  };
  unsigned threads = o.jobs > 0 ? static_cast<unsigned>(o.jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);

  for (const auto& [name, params] : todo) {
    auto c = std::make_unique<Candidate>();
    c->index = candidates.size();
    c->result.kernel = name;
    c->result.params = params;
    c->sm = std::make_unique<SourceManager>();
    c->capture = std::make_unique<Capture>(*c->sm);
    c->diags = MakeDiags(o, *c->sm, *c->capture);
    CompileOptions copts = FrontendOptions(o);
    // The candidate's values (the -D ones among them) are this kernel's
    // only: another kernel of the module with parameters of the same
    // names keeps its own values (else its 'where' could exclude this
    // candidate). The -D names were checked by the first compile.
    copts.check.defines.clear();
    copts.check.defines_kernel.clear();
    for (auto& [p, v] : params) copts.check.kernel_defines[name][p] = v;
    // Only this kernel is compiled: imported kernels and, where the caller
    // checked them, the file's others are read for their signatures.
    copts.skip_imported_kernel_bodies = true;
    if (others_checked) copts.main_kernel_only = name;
    c->comp = std::make_unique<Compilation>(*c->sm, *c->diags, copts);
    c->module = c->comp->CompileFile(path);
    if (!c->capture->where().empty()) {
      c->result.status = CandidateResult::Status::Excluded;
      c->result.reason = c->capture->where();
      c->comp.reset();
    } else if (!c->module || c->diags->HasErrors()) {
      c->result.status = CandidateResult::Status::Failed;
      c->result.reason = c->capture->Text();
      c->comp.reset();
    } else {
      std::lock_guard<std::mutex> lock(mutex);
      ready.push_back(c.get());
      more.notify_one();
    }
    candidates.push_back(std::move(c));
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    all_checked = true;
  }
  more.notify_all();
  work();
  for (std::thread& t : pool) t.join();
  std::vector<CandidateResult> results;
  for (auto& c : candidates) results.push_back(std::move(c->result));
  return results;
}

int CompileAllCandidates(const Options& o) {
  auto start = std::chrono::steady_clock::now();
  const std::string& path = o.inputs.front();
  std::error_code ec;
  fs::create_directories(o.output, ec);
  if (ec) {
    std::fprintf(stderr, "tmc: error: cannot create the directory '%s': %s\n", o.output.c_str(), ec.message().c_str());
    return 1;
  }

  // The kernels and their spaces, from the file as written (defaults).
  std::vector<std::pair<std::string, ParamValues>> todo;
  std::vector<bool> is_default;
  std::string source_hash;  // the tuning database's key (docs/tuning.md)
  bool checked = false;     // the whole file, without errors
  {
    SourceManager sm;
    Capture capture(sm);
    auto d = MakeDiags(o, sm, capture);
    Compilation comp(sm, *d, FrontendOptions(o));
    sema::CheckedModule* m = comp.CompileFile(path);
    // A `where` that the defaults fail is no error here: they are just one
    // candidate. Anything else is.
    if (!m || (d->HasErrors() && capture.where().empty())) {
      std::fputs(capture.Text().c_str(), stderr);
      std::fprintf(stderr, "tmc: error: '%s' does not compile; no candidate was tried\n", path.c_str());
      return 1;
    }
    source_hash = SourceHash(sm);
    // Errors beside a failed `where` may be another kernel's: then each
    // candidate reads the other kernels whole, and fails on them.
    checked = !d->HasErrors();
    bool any = false;
    for (const ast::Decl* decl : m->ast->decls)
      if (auto* k = ast::dyn_cast<ast::KernelDecl>(decl)) {
        const sema::KernelInstance& inst = m->kernels.at(k->name.name);
        bool chosen = o.kernel.empty() ? !inst.ct_candidates.empty() : k->name.name == o.kernel;
        if (!chosen) continue;
        any = true;
        for (auto& params : CandidateSpace(inst, o)) {
          is_default.push_back(ChangedParams(inst, params) == 0);
          todo.emplace_back(k->name.name, params);
        }
      }
    if (!any) {
      std::string what = o.kernel.empty() ? "no kernel of '" + path + "' has compile-time parameters (name one with --kernel)"
                                          : "'" + path + "' has no kernel named '" + o.kernel + "'";
      std::fprintf(stderr, "tmc: error: %s\n", what.c_str());
      return 1;
    }
  }
  unsigned threads = o.jobs > 0 ? static_cast<unsigned>(o.jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<CandidateResult> candidates = CompileCandidates(o, todo, /*ptxas_report=*/false, checked);

  // Outputs, index and report.
  size_t ok = 0, excluded = 0, failed = 0;
  std::string index = fmt::format(
      "{{\n  \"module\": {},\n  \"arch\": {},\n  \"emit\": {},\n  \"source_hash\": {},\n  \"tmc_version\": {},\n"
      "  \"candidates\": [",
      JsonString(path), JsonString(o.arch), JsonString(o.emit), JsonString(source_hash), JsonString(kTmcVersion));
  for (size_t i = 0; i < candidates.size(); ++i) {
    CandidateResult& c = candidates[i];
    std::string stem = c.kernel;
    for (auto& [p, v] : c.params) stem += fmt::format(".{}{}", p, CtValueString(v));
    std::string file = stem + Extension(o.emit), meta_file = stem + ".json";
    std::string params;
    for (auto& [p, v] : c.params)
      params += fmt::format("{}{}: {}", params.empty() ? "" : ", ", JsonString(p),
                            DecodeTypeValue(v) ? JsonString(CtValueString(v)) : std::to_string(v));
    std::string entry = fmt::format("\n    {{\"kernel\": {}, \"params\": {{{}}}, {}", JsonString(c.kernel), params,
                                    is_default[i] ? "\"default\": true, " : "");
    std::string error;
    if (c.status == CandidateResult::Status::Ok &&
        (!WriteFile((fs::path(o.output) / file).string(), c.output, &error) ||
         !WriteFile((fs::path(o.output) / meta_file).string(), c.meta, &error))) {
      c.status = CandidateResult::Status::Failed;
      c.reason = error;
    }
    std::string values;
    for (auto& [p, v] : c.params) values += fmt::format("{}{} = {}", values.empty() ? "" : ", ", p, CtValueString(v));
    switch (c.status) {
      case CandidateResult::Status::Ok:
        ++ok;
        entry += fmt::format("\"status\": \"ok\", \"file\": {}, \"meta\": {}}}", JsonString(file), JsonString(meta_file));
        break;
      case CandidateResult::Status::Excluded:
        ++excluded;
        entry += fmt::format("\"status\": \"excluded\", \"reason\": {}}}", JsonString(c.reason));
        break;
      default:
        ++failed;
        entry += fmt::format("\"status\": \"failed\", \"error\": {}}}", JsonString(c.reason));
        std::fprintf(stderr, "tmc: error: candidate %s of kernel '%s' failed:\n%s", values.c_str(), c.kernel.c_str(),
                     c.reason.c_str());
        break;
    }
    index += entry + (i + 1 < candidates.size() ? "," : "");
  }
  index += "\n  ]\n}\n";
  std::string error;
  if (!WriteFile((fs::path(o.output) / "index.json").string(), index, &error)) {
    std::fprintf(stderr, "tmc: error: %s\n", error.c_str());
    return 1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "tmc: %zu candidates: %zu compiled, %zu excluded by 'where', %zu failed (%.2f s, %.1f compiled/s on %u threads)\n",
               candidates.size(), ok, excluded, failed, seconds, seconds > 0 ? static_cast<double>(ok) / seconds : 0.0,
               threads);
  return failed > 0 ? 1 : 0;
}

}  // namespace tmc::driver
