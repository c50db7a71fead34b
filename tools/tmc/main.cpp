// The tmc driver: parses the command line, runs the frontend, writes what
// --emit asks for. Exit codes: 0 success, 1 user error, 2 internal error.
#include <malloc.h>
#include <pthread.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>

#include "support/time_report.h"
#include "frontend/ast/ast_printer.h"
#include "frontend/compilation.h"
#include "ir/from_ast.h"
#include "ir/printer.h"
#include "ir/transforms/pipeline.h"
#include "tools/tmc/all_candidates.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/emit.h"
#include "support/diagnostic_verifier.h"
#include "tools/tmc/huge_pages.h"
#include "tools/tmc/mapping_command.h"
#include "graph/fuse.h"
#include "graph/partition.h"
#include "tools/tmc/op_kernel.h"
#include "tools/tmc/options.h"
#include "tools/tmc/run_command.h"
#include "tools/tmc/run_graph.h"
#include "tools/tmc/teardown.h"
#include "tools/tmc/lib_command.h"
#include "tools/tmc/tune_command.h"
#include "tools/tmc/tuned_params.h"

namespace tmc::driver {
namespace {

// Replaces every line outside chunk `keep` with an empty line, so that a
// chunk of a `// -----` split file keeps its original line numbers.
std::vector<std::string> SplitChunks(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> lines;  // [begin, end) of each line
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string::npos ? text.size() : nl;
    lines.emplace_back(pos, end);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  std::vector<size_t> separators;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = text.substr(lines[i].first, lines[i].second - lines[i].first);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (line == "// -----") separators.push_back(i);
  }
  std::vector<std::string> chunks;
  size_t begin = 0;
  separators.push_back(lines.size());
  for (size_t sep : separators) {
    std::string chunk;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i >= begin && i < sep) chunk += text.substr(lines[i].first, lines[i].second - lines[i].first);
      if (i + 1 < lines.size()) chunk += '\n';
    }
    chunks.push_back(std::move(chunk));
    begin = sep + 1;
  }
  return chunks;
}

// Writes the output to -o FILE or standard output; a failure says why.
bool WriteOutput(const Options& o, const std::string& text) {
  bool to_stdout = o.output.empty() || o.output == "-";
  std::string name = to_stdout ? "standard output" : "'" + o.output + "'";
  // Binary output would scramble a terminal (LLVM's tools refuse it too).
  if (to_stdout && o.emit == "cubin" && !text.empty() && isatty(fileno(stdout))) {
    std::fprintf(stderr, "tmc: error: not writing binary output (cubin) to a terminal; use -o FILE\n");
    return false;
  }
  errno = 0;
  std::FILE* f = to_stdout ? stdout : std::fopen(o.output.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "tmc: error: cannot write %s: %s\n", name.c_str(), std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (to_stdout ? std::fflush(f) == 0 : std::fclose(f) == 0) && ok;
  if (!ok) std::fprintf(stderr, "tmc: error: cannot write %s: %s\n", name.c_str(), std::strerror(errno ? errno : EIO));
  return ok;
}

// Colour by default only where a person reads it, as clang does.
bool ColorTerminal(std::FILE* f) {
  const char* term = std::getenv("TERM");
  return isatty(fileno(f)) && term && std::string(term) != "dumb" && !std::getenv("NO_COLOR");
}

void PrintSummary(const DiagnosticEngine& diags) {
  std::string s = GeneratedSummary(diags.WarningCount(), diags.ErrorCount());
  if (!s.empty()) std::fprintf(stderr, "%s\n", s.c_str());
}

// A module of ops and graphs only compiles to nothing: say so, and how to
// get code, rather than write an empty file.
void WarnIfNoKernels(const sema::CheckedModule& m, const std::string& emit, DiagnosticEngine& diags) {
  std::vector<std::string> ops, graphs;
  SourceRange where;
  for (const ast::Decl* d : m.ast->decls) {
    if (d->kind == ast::DeclKind::Kernel) return;
    if (d->kind != ast::DeclKind::Op && d->kind != ast::DeclKind::Graph) continue;
    (d->kind == ast::DeclKind::Op ? ops : graphs).push_back("'" + d->name.name + "'");
    if (!where.IsValid()) where = d->name.range;
  }
  if (!where.IsValid()) return;
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  std::string why;
  if (!graphs.empty()) why = "'--graph NAME' compiles a graph into its kernels (" + list(graphs) + ")";
  if (!ops.empty())
    why += (why.empty() ? "" : "; ") + std::string("'--op NAME' compiles an op with an automatic schedule (") +
           list(ops) + ")";
  diags.Report(where, DiagKind::EmptyOutput, emit, why);
}

// --emit=graph / --emit=dot: each graph's partition into kernels.
std::string PrintGraphs(const sema::CheckedModule& m, const Options& o, const SourceManager& sm) {
  std::string out;
  for (const ast::Decl* d : m.ast->decls)
    if (auto* gd = ast::dyn_cast<ast::GraphDecl>(d)) {
      if (!o.graph.empty() && gd->name.name != o.graph) continue;  // --graph NAME: that one
      graph::Graph g = graph::BuildGraph(*gd, m);
      graph::Partition p = graph::PartitionGraph(g, m, !o.no_fuse);
      // A group whose hand-written kernel fusion finds it cannot rewrite
      // (one value passed to two of its parameters) is compiled with the
      // automatic schedule: say so, as the compiled plan does.
      graph::FusedGraph fg = graph::FuseGraph(g, p, m, sm);
      for (size_t gi = 0; gi < p.groups.size() && gi < fg.kernels.size(); ++gi)
        if (!fg.kernels[gi].not_taken.empty())
          p.groups[gi].kernel = "automatic schedule (" + fg.kernels[gi].not_taken + ")";
      out += o.emit == "dot" ? graph::PrintDot(g, p) : graph::PrintPartition(g, p);
    }
  return out;
}

int RealMain(int argc, char** argv) {
  Options o;
  bool exit_now = false;
  if (!ParseOptions(argc, argv, &o, &exit_now)) return 1;
  if (exit_now) return 0;
  if (o.time_report) TimeReport::Enable();
  // Printed on every way out, like clang's -ftime-report.
  struct PrintReport {
    ~PrintReport() { std::fputs(TimeReport::Format().c_str(), stderr); }
  } print_report;
  if (o.stdlib_dir.empty()) {
    // $TMC_STDLIB_DIR; else an installed tmc's (PREFIX/share/tmc/stdlib,
    // beside PREFIX/bin/tmc); else the sources' it was built from.
    const char* env = std::getenv("TMC_STDLIB_DIR");
    std::error_code ec;
    std::filesystem::path installed =
        std::filesystem::path(SelfPath()).parent_path().parent_path() / "share" / "tmc" / "stdlib";
    o.stdlib_dir = env ? env : std::filesystem::exists(installed / "nn.tm", ec) ? installed.string() : TMC_DEFAULT_STDLIB_DIR;
  }

  SourceManager sm;
  DiagnosticVerifier verifier(sm);
  TextDiagnosticPrinter printer(sm, stderr);
  printer.SetColor(o.color.value_or(ColorTerminal(stderr)));
  DiagnosticConsumer& consumer =
      o.verify_diagnostics ? static_cast<DiagnosticConsumer&>(verifier) : printer;
  DiagnosticEngine diags(sm, consumer);
  ApplyDiagnosticOptions(o, diags);
  if (o.verify_diagnostics) diags.SetErrorLimit(0);  // every expected diagnostic
  if (const char* log = std::getenv("TMC_DIAGNOSTIC_LOG")) diags.SetKindLog(log);

  std::string output;
  if (o.command == "tune") return TuneCommand(o);
  if (o.command == "db") return DbCommand(o);
  if (o.command == "lib") return LibCommand(o);
  if (!o.op.empty() && !PrepareOpKernel(&o, sm, diags)) return 1;
  if (!o.graph.empty() && !PrepareGraphKernels(&o, sm, diags)) return 1;
  // Tuned parameters for a compile of a file's or a graph's kernels, and
  // for tmc run (which then checks what a compile would deploy).
  bool plain_compile = o.command == "compile" && !o.all_candidates && !o.split_input_file && o.op.empty() &&
                       !o.verify_diagnostics && !o.parse_only;
  if (plain_compile && !o.graph.empty() && !o.shapes.empty() && !CheckGraphShapeSymbols(o, diags)) return 1;
  if ((plain_compile || (o.command == "run" && o.op.empty())) && !ApplyTunedParams(&o)) return 1;
  if (o.command == "run") {
    int rc = o.graph.empty()    ? RunKernelCommand(o, sm, diags)
             : o.kernel.empty() ? RunGraphCommand(o, sm, diags)
                                : RunGraphKernels(o, sm, diags, [&](const Options& ko) { return RunKernelCommand(ko, sm, diags); });
    PrintSummary(diags);
    return rc;
  }
  if (o.all_candidates) return CompileAllCandidates(o);
  if (o.command == "mapping") {
    RunMappingCommand(o, sm, diags, &output);
  } else {
    CompileOptions copts = FrontendOptions(o);
    copts.parse_only = o.parse_only;
    // Code for the file's own kernels only: the imported modules' kernels
    // are needed for their signatures, not their bodies. A plain check
    // (--emit=check, the default) and the syntax tree still take them whole.
    copts.skip_imported_kernel_bodies =
        plain_compile && o.graph.empty() &&
        (o.emit == "ir" || o.emit == "llvm" || o.emit == "ptx" || o.emit == "cubin" || o.emit == "cuda" || o.emit == "meta");
    // With --kernel K, of the file's own kernels only K's body (a tuning
    // sweep compiles one kernel of a file many times).
    if (copts.skip_imported_kernel_bodies && !o.kernel.empty()) copts.main_kernel_only = o.kernel;
    // One compile, then the exit (RunDriver): its syntax trees and IR are
    // left to the exit (teardown.h). Not for --split-input-file, whose
    // chunks would all stay in memory.
    if (!o.split_input_file) SkipTeardownAtExit();
    Retired<Compilation> compilation(new Compilation(sm, diags, copts));
    Compilation& comp = *compilation;
    const std::string& path = o.inputs.front();
    std::vector<sema::CheckedModule*> modules;
    if (o.split_input_file) {
      std::string text, error;
      if (!ReadFile(path, &text, &error)) {
        diags.Report(SourceRange{}, DiagKind::CannotOpenFile, path, error);
      } else {
        for (std::string& chunk : SplitChunks(text)) modules.push_back(comp.CompileBuffer(path, std::move(chunk)));
        comp.ReportUnknownDefines();
      }
    } else {
      modules.push_back(comp.CompileFile(path));
    }
    if (o.emit == "ast")
      for (const sema::CheckedModule* m : modules)
        if (m) output += ast::PrintModule(*m->ast, sm);
    // Every --emit but ast runs the whole lowering, so that a plain check
    // reports what --emit=ptx would; ast only when asked to print the IR.
    if ((o.emit == "graph" || o.emit == "dot") && !diags.HasErrors())
      for (const sema::CheckedModule* m : modules)
        if (m && m->ok) output += PrintGraphs(*m, o, sm);
    // --kernel NAME: that kernel of the file alone (options.cpp allows it
    // only for the outputs of the lowering).
    if (o.op.empty() && o.graph.empty() && !o.kernel.empty())
      for (const sema::CheckedModule* m : modules)
        if (m && m->ok && !m->kernels.count(o.kernel)) {
          std::string names;
          for (const auto& [name, k] : m->kernels) names += (names.empty() ? "it has " : ", ") + name;
          diags.Report(SourceRange{}, DiagKind::UnknownKernel, o.kernel, o.kernel, path,
                       names.empty() ? "it has no kernels" : names);
        }
    bool lower = !o.parse_only && o.emit != "graph" && o.emit != "dot" &&
                 (o.emit != "ast" || !o.print_after.empty() || o.print_after_all);
    if (lower && o.op.empty() && o.graph.empty() && o.emit != "check" && o.emit != "ast")
      for (const sema::CheckedModule* m : modules)
        if (m && m->ok) WarnIfNoKernels(*m, o.emit, diags);
    if (lower && !diags.HasErrors())
      for (const sema::CheckedModule* m : modules)
        if (m && m->ok) {
          std::vector<std::string> only;
          for (const Options::GraphKernel& k : o.graph_kernels)
            only.insert(only.end(), k.alternatives.begin(), k.alternatives.end());
          // One kernel: --kernel's, or the one --op generated.
          if (!o.kernel.empty() && o.graph.empty()) only = {o.kernel};
          output += EmitModule(*m, o, diags, only);
          // --graph --emit=meta: the kernels' metadata and the launch plan.
          if (!o.graph.empty() && o.emit == "meta") output = MetadataWithPlan(output, o.graph_plan);
          if (o.emit == "meta") output = MetadataWithParamSources(output, o);
        }
    // --emit=tm: the generated kernels, once the compile above has checked them.
    // A graph's come after the input file's imports (the functions its ops
    // call) and the modules the copied kernels use (std.mma for a
    // tensor-core kernel's fragments), so that the text compiles on its own
    // unless the ops call functions of the input file itself.
    if (o.emit == "tm" && !diags.HasErrors()) {
      output.clear();
      std::vector<std::string> imports;
      if (!o.graph.empty())
        for (const sema::CheckedModule* m : modules)
          if (m)
            for (const sema::CheckedModule* imp : m->imports) imports.push_back(imp->name);
      imports.insert(imports.end(), o.main_imports.begin(), o.main_imports.end());
      std::vector<std::string> seen;
      for (const std::string& module : imports)
        if (std::find(seen.begin(), seen.end(), module) == seen.end()) {
          seen.push_back(module);
          output += "import " + module + ";\n";
        }
      output += o.op_source.substr(o.op_source.find('\n', 1) + 1);
    }
  }

  if (o.verify_diagnostics) {
    bool ok = verifier.Verify(stderr);
    if (ok && !WriteOutput(o, output)) return 1;
    return ok ? 0 : 1;
  }
  PrintSummary(diags);
  if (diags.HasErrors()) return 1;
  return WriteOutput(o, output) ? 0 : 1;
}

struct MainArgs {
  int argc;
  char** argv;
  int result;
};

[[noreturn]] void* RunDriver(void* p) {
  auto* args = static_cast<MainArgs*>(p);
  HugePagesForThisThread();
  try {
    args->result = RealMain(args->argc, args->argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tmc: internal error: %s\n", e.what());
    args->result = 2;
  } catch (...) {
    std::fprintf(stderr, "tmc: internal error: unknown exception\n");
    args->result = 2;
  }
  // Exit from here, without tearing down the syntax trees (as clang does:
  // freeing millions of nodes one by one only delays the exit) nor this
  // thread (whose exit makes jemalloc hand its free pages back to the
  // system, dozens of system calls).
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(args->result);
}

}  // namespace
}  // namespace tmc::driver

int main(int argc, char** argv) {
  constexpr size_t kStackBytes = size_t{512} << 20;
  // The frontend recurses over the syntax tree; depth limits keep that
  // bounded, and a large stack keeps the bound far from the edge.
  // Where the driver runs on a thread of its own (below), it allocates from
  // the main heap: a per-thread arena of glibc's malloc (without jemalloc)
  // grows in small mprotect steps and made parsing large files 3x slower.
  mallopt(M_ARENA_MAX, 1);
  tmc::driver::MainArgs args{argc, argv, 2};
  void* stack = tmc::driver::HugePageStack(kStackBytes);
#ifndef __SANITIZE_ADDRESS__
  // On this thread, switched to the large stack: a second thread would cost
  // its creation, a heap arena of its own (two more 2 MB pages to fault
  // in) and atomic reference counts in every shared_ptr (libstdc++ counts
  // without atomics while a process has one thread). RunDriver exits the
  // process, so the switch never returns (and --all-candidates' threads
  // start from it as from any thread). (AddressSanitizer needs to be
  // told of stack switches: there, a thread as below.)
  static tmc::driver::MainArgs* switched_args = &args;
  static ucontext_t caller, on_stack;
  if (stack && getcontext(&on_stack) == 0) {
    on_stack.uc_stack.ss_sp = stack;
    on_stack.uc_stack.ss_size = kStackBytes;
    on_stack.uc_link = &caller;
    makecontext(&on_stack, [] { tmc::driver::RunDriver(switched_args); }, 0);
    swapcontext(&caller, &on_stack);
  }
#endif
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (stack) pthread_attr_setstack(&attr, stack, kStackBytes);
  else pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_t thread;
  // RunDriver exits the process; on this thread if no other can start.
  if (pthread_create(&thread, &attr, tmc::driver::RunDriver, &args) != 0) tmc::driver::RunDriver(&args);
  pthread_join(thread, nullptr);
  return 2;  // not reached
}
