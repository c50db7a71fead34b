// The index parses each candidate file with a scratch source manager and a
// diagnostics engine that drops everything: a broken file in an include
// directory must not add errors to the user's compilation.
#include "frontend/module_index.h"

#include <filesystem>

#include "frontend/compilation.h"
#include "frontend/parse/parser.h"

namespace tmc {
namespace {

namespace fs = std::filesystem;

// Bounds that keep an -I pointing at a huge tree from stalling an error.
constexpr size_t kMaxFilesPerRoot = 512;
constexpr uintmax_t kMaxFileBytes = 1 << 20;

class DropDiagnostics : public DiagnosticConsumer {
 public:
  void Handle(const Diagnostic&) override {}
};

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// `a/b.tm` under a root -> "a.b"; empty when a part is not an identifier,
// since `import` could not name it.
std::string DottedName(const fs::path& relative) {
  std::string dotted;
  fs::path stem = relative;
  stem.replace_extension();
  for (const fs::path& part : stem) {
    if (!IsIdentifier(part.string())) return "";
    dotted += (dotted.empty() ? "" : ".") + part.string();
  }
  return dotted;
}

const char* DeclWhat(ast::DeclKind k) {
  switch (k) {
    case ast::DeclKind::Const: return "constant";
    case ast::DeclKind::Op: return "op";
    case ast::DeclKind::Kernel: return "kernel";
    case ast::DeclKind::Func: return "function";
    case ast::DeclKind::Graph: return "graph";
  }
  return "declaration";
}

}  // namespace

const std::vector<NameDefinition>& ModuleIndex::Find(const std::string& name) const {
  static const std::vector<NameDefinition> kNone;
  auto it = by_name_.find(name);
  return it == by_name_.end() ? kNone : it->second;
}

void ModuleIndex::AddRoot(const std::string& root, const std::string& prefix, int max_depth) {
  if (root.empty() || roots_.count(prefix + "|" + root)) return;
  roots_[prefix + "|" + root] = true;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  size_t files = 0;
  for (; !ec && it != end && files < kMaxFilesPerRoot; it.increment(ec)) {
    if (it.depth() >= max_depth) it.disable_recursion_pending();
    std::error_code fec;
    if (!it->is_regular_file(fec) || it->path().extension() != ".tm") continue;
    if (it->file_size(fec) > kMaxFileBytes || fec) continue;
    std::string dotted = DottedName(it->path().lexically_relative(root));
    if (dotted.empty()) continue;
    ++files;
    IndexFile(root, it->path().lexically_normal().string(), prefix + dotted);
  }
}

void ModuleIndex::IndexFile(const std::string& root, const std::string& path, const std::string& module) {
  std::string text, error;
  if (texts_.count(path) || !ReadFile(path, &text, &error)) return;
  SourceManager sm;
  DropDiagnostics drop;
  DiagnosticEngine diags(sm, drop);
  diags.SetErrorLimit(1);
  uint32_t id = sm.AddFile(path, text);
  std::unique_ptr<ast::Module> tree = ParseFile(id, diags);
  if (!tree) return;
  for (const ast::Decl* d : tree->decls) {
    NameDefinition def{module, root, path, DeclWhat(d->kind), sm.ByteOffset(d->name.range.begin),
                       sm.ByteOffset(d->name.range.end)};
    by_name_[d->name.name].push_back(std::move(def));
  }
  texts_[path] = std::move(text);
}

}  // namespace tmc
