// One run of the frontend: loads the main file and its imports, parses and
// checks each module once, and keeps them alive for later stages.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/check/checker.h"
#include "frontend/module_index.h"
#include "frontend/parse/parser.h"

namespace tmc {

struct CompileOptions {
  std::vector<std::string> include_dirs;  // -I, searched after the main file's directory
  std::string stdlib_dir;                 // root of `import std.*`
  sema::CheckOptions check;
  ParseOptions parse;
  bool parse_only = false;  // stop after building the AST
  /// Text checked as if it ended the main file: the kernels that
  /// `tmc --op` generates (they may use everything the file declares).
  std::string main_appendix;
  /// Modules the main file imports besides its own imports: those that the
  /// kernels `tmc --graph` rewrites were declared with (dotted names).
  std::vector<std::string> main_imports;
  /// Parse the kernels of imported modules without their bodies, which are
  /// then neither checked nor available to lower: for a compile of the main
  /// file's kernels only (kernel_body_skipper.h). Their signatures are
  /// checked, so -D and `implements` see them as usual.
  bool skip_imported_kernel_bodies = false;
  /// The main file's kernels but this one parsed without their bodies (as
  /// skip_imported_kernel_bodies does for imported modules): for a compile
  /// of that kernel alone (--kernel, each --all-candidates candidate).
  /// Errors in the other kernels' bodies are not reported then, but for
  /// lexical ones (kernel_body_skipper.h); a plain check reports them.
  std::string main_kernel_only;
};

class Compilation {
 public:
  Compilation(SourceManager& sm, DiagnosticEngine& diags, CompileOptions options)
      : sm_(sm), diags_(diags), options_(std::move(options)) {}

  /// Reads, parses and checks a file. Returns null if it could not be read
  /// or parsed; otherwise the module (check `ok` for semantic errors).
  sema::CheckedModule* CompileFile(const std::string& path);
  /// The same for text held in memory, shown in diagnostics as `name`
  /// (only its `visible` part: see SourceManager::AddFile).
  sema::CheckedModule* CompileBuffer(const std::string& name, std::string text, VisibleText visible = {});

  sema::TypeContext& types() { return types_; }

  /// Reports each -D name that is no compile-time parameter of any kernel
  /// loaded so far, listing the kernels' parameters. CompileFile does this
  /// itself; a driver that compiles buffers calls it after the last one.
  void ReportUnknownDefines();

 private:
  sema::CheckedModule* CompileLoaded(uint32_t file_id, const std::string& module_name, bool main = false,
                                     bool imported = false);
  const sema::CheckedModule* ResolveImport(const ast::Import& imp, uint32_t importer_file);
  /// Where `name` is declared in a module `importer_file` could import.
  std::vector<sema::ImportHint> FindImport(const std::string& name, uint32_t importer_file);

  SourceManager& sm_;
  DiagnosticEngine& diags_;
  CompileOptions options_;
  sema::TypeContext types_;
  std::vector<std::unique_ptr<sema::CheckedModule>> owned_;
  std::map<std::string, sema::CheckedModule*> by_path_;
  std::set<std::string> in_progress_;
  ModuleIndex index_;
  bool defines_reported_ = false;
  std::map<std::string, uint32_t> hint_files_;  // indexed files loaded for a hint
};

/// Reads a whole file; false (with `error` set) when it cannot.
bool ReadFile(const std::string& path, std::string* contents, std::string* error);

}  // namespace tmc
