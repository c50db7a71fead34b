// Import resolution: `import std.nn;` -> <stdlib>/nn.tm; `import a.b;` ->
// a/b.tm in the importing file's directory, then in each -I directory.
#include "support/time_report.h"
#include "frontend/compilation.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tmc {

namespace fs = std::filesystem;

bool ReadFile(const std::string& path, std::string* contents, std::string* error) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    *error = "is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  *contents = ss.str();
  return true;
}

sema::CheckedModule* Compilation::CompileFile(const std::string& path) {
  std::string text, error;
  if (!ReadFile(path, &text, &error)) {
    diags_.Report(SourceRange{}, DiagKind::CannotOpenFile, path, error);
    return nullptr;
  }
  uint32_t written = static_cast<uint32_t>(text.size());
  text += options_.main_appendix;
  uint32_t total = static_cast<uint32_t>(text.size());
  uint32_t id = sm_.AddFile(path, std::move(text));
  if (!options_.main_appendix.empty()) diags_.SuppressWarningsIn({sm_.Loc(id, written), sm_.Loc(id, total)});
  // The main file takes part in cycle detection like any import.
  std::error_code ec;
  std::string key = fs::weakly_canonical(path, ec).string();
  in_progress_.insert(key);
  sema::CheckedModule* m = CompileLoaded(id, path, /*main=*/true);
  in_progress_.erase(key);
  if (m) ReportUnknownDefines();
  return m;
}

sema::CheckedModule* Compilation::CompileBuffer(const std::string& name, std::string text,
                                               VisibleText visible) {
  uint32_t id = sm_.AddFile(name, std::move(text), visible);
  return CompileLoaded(id, name);
}

sema::CheckedModule* Compilation::CompileLoaded(uint32_t file_id, const std::string& module_name, bool main,
                                                 bool imported) {
  std::unique_ptr<ast::Module> tree;
  {
    StageTimer timer("parse");
    ParseOptions parse = options_.parse;
    parse.skip_kernel_bodies = imported && options_.skip_imported_kernel_bodies;
    if (main && !options_.main_kernel_only.empty()) {
      parse.skip_kernel_bodies = true;
      parse.keep_kernel_body = options_.main_kernel_only;
    }
    tree = ParseFile(file_id, diags_, parse);
  }
  if (!tree) return nullptr;
  if (main)
    for (const std::string& dotted : options_.main_imports) {
      bool present = false;
      for (const ast::Import& imp : tree->imports) present |= imp.Dotted() == dotted;
      if (present) continue;
      ast::Import imp;
      for (size_t at = 0; at <= dotted.size();) {
        size_t dot = std::min(dotted.find('.', at), dotted.size());
        imp.path.push_back(ast::Ident{dotted.substr(at, dot - at), {}});
        at = dot + 1;
      }
      tree->imports.push_back(std::move(imp));
    }
  auto module = std::make_unique<sema::CheckedModule>();
  module->name = module_name;
  module->ast = std::move(tree);
  sema::CheckedModule* raw = module.get();
  owned_.push_back(std::move(module));
  if (options_.parse_only) {
    raw->ok = !diags_.HasErrors();
    return raw;
  }
  sema::CheckOptions check = options_.check;
  check.find_import = [this, file_id](const std::string& name) { return FindImport(name, file_id); };
  StageTimer timer("check");  // imports parsed meanwhile count as parse
  sema::CheckModule(*raw, types_, diags_, check,
                    [&](const ast::Import& imp) { return ResolveImport(imp, file_id); });
  return raw;
}

const sema::CheckedModule* Compilation::ResolveImport(const ast::Import& imp, uint32_t importer) {
  std::vector<std::string> parts;
  for (const ast::Ident& p : imp.path) parts.push_back(p.name);
  std::vector<fs::path> candidates;
  auto relative = [&](size_t first) {
    fs::path rel;
    for (size_t i = first; i < parts.size(); ++i) rel /= parts[i];
    rel += ".tm";
    return rel;
  };
  if (parts.size() > 1 && parts.front() == "std") {
    candidates.push_back(fs::path(options_.stdlib_dir) / relative(1));
  } else {
    candidates.push_back(fs::path(sm_.Path(importer)).parent_path() / relative(0));
    for (const std::string& dir : options_.include_dirs) candidates.push_back(fs::path(dir) / relative(0));
  }
  for (const fs::path& c : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(c, ec)) continue;
    std::string key = fs::weakly_canonical(c, ec).string();
    if (in_progress_.count(key)) {
      diags_.Report(imp.range, DiagKind::ImportCycle, imp.Dotted());
      return nullptr;
    }
    if (auto it = by_path_.find(key); it != by_path_.end()) return it->second;
    std::string text, error;
    if (!ReadFile(c.string(), &text, &error)) {
      diags_.Report(imp.range, DiagKind::CannotOpenFile, c.string(), error);
      return nullptr;
    }
    in_progress_.insert(key);
    uint32_t id = sm_.AddFile(c.lexically_normal().string(), std::move(text));
    sema::CheckedModule* m = CompileLoaded(id, imp.Dotted(), /*main=*/false, /*imported=*/true);
    in_progress_.erase(key);
    by_path_[key] = m;
    return m;
  }
  auto diag = diags_.Report(imp.range, DiagKind::ModuleNotFound, imp.Dotted());
  for (const fs::path& c : candidates) diag.Note(imp.range, DiagKind::NoteSearchedIn, c.lexically_normal().string());
  return nullptr;
}

void Compilation::ReportUnknownDefines() {
  // Once is enough when a driver compiles several buffers.
  if (defines_reported_) return;
  defines_reported_ = true;
  // One walk over the kernels: every parameter name, the listing for the
  // message, and the parameters of the --kernel one, if any. With --kernel
  // the values are that kernel's, so a name only another kernel has would
  // be silently ignored: an error too.
  const std::string& only = options_.check.defines_kernel;
  std::set<std::string> known, own_known;
  std::string kernels, own;
  bool found = false;
  size_t listed = 0;
  for (const auto& m : owned_) {
    if (!m->ast) continue;
    for (const ast::Decl* d : m->ast->decls) {
      auto* k = ast::dyn_cast<ast::KernelDecl>(d);
      if (!k) continue;
      std::string params;
      for (const ast::CtParam& p : k->ct_params) {
        known.insert(p.name.name);
        params += (params.empty() ? "" : ", ") + p.name.name;
      }
      if (!only.empty() && k->name.name == only) {
        found = true;
        for (const ast::CtParam& p : k->ct_params) own_known.insert(p.name.name);
        own = params;
      }
      if (listed++ < 8)
        kernels += (kernels.empty() ? "" : "; ") + ("kernel '" + k->name.name + "' has " + (params.empty() ? "none" : params));
    }
  }
  if (found) {
    for (const auto& [name, value] : options_.check.defines)
      if (!own_known.count(name))
        diags_.Report(SourceRange{}, DiagKind::UnknownKernelDefine, name, only, name, own.empty() ? "none" : own);
    return;
  }
  if (listed > 8) kernels += "; ...";
  if (kernels.empty()) kernels = "there are no kernels";
  for (const auto& [name, value] : options_.check.defines)
    if (!known.count(name)) diags_.Report(SourceRange{}, DiagKind::UnknownDefine, name, name, kernels);
}

std::vector<sema::ImportHint> Compilation::FindImport(const std::string& name, uint32_t importer) {
  // The places `import` looks: the standard library, the importing file's
  // own folder (modules directly in it) and the -I directories.
  fs::path importer_dir = fs::path(sm_.Path(importer)).parent_path();
  std::vector<std::string> roots;
  auto add_root = [&](const std::string& dir, const std::string& prefix, int depth) {
    index_.AddRoot(dir, prefix, depth);
    roots.push_back(dir);
  };
  add_root(options_.stdlib_dir, "std.", 4);
  add_root(importer_dir.empty() ? "." : importer_dir.string(), "", 0);
  for (const std::string& dir : options_.include_dirs) add_root(dir, "", 4);
  std::error_code ec;
  std::string self = fs::weakly_canonical(std::string(sm_.Path(importer)), ec).string();
  std::vector<sema::ImportHint> hints;
  std::set<std::string> seen;
  for (const NameDefinition& d : index_.Find(name)) {
    if (std::find(roots.begin(), roots.end(), d.root) == roots.end()) continue;
    std::string key = fs::weakly_canonical(d.path, ec).string();
    if (key == self || !seen.insert(key).second) continue;
    if (hints.size() == 3) break;
    auto [it, added] = hint_files_.emplace(d.path, 0);
    if (added) it->second = sm_.AddFile(d.path, index_.Text(d.path));
    hints.push_back({d.module, d.what, SourceRange{sm_.Loc(it->second, d.begin), sm_.Loc(it->second, d.end)}});
  }
  return hints;
}

}  // namespace tmc
