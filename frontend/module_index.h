// Which modules on the import path declare a name: for the hint that a name
// used without its import is defined in `std.nn` (add `import std.nn;`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tmc {

/// A top-level declaration found in a module that can be imported.
struct NameDefinition {
  std::string module;  // the dotted import name: std.nn, kernels.gemm
  std::string root;    // the directory it was found under
  std::string path;    // the file
  std::string what;    // "op", "kernel", "function", "graph", "constant"
  uint32_t begin = 0;  // byte offsets of the declared name in the file
  uint32_t end = 0;
};

/// Indexes the modules under a directory the first time it is asked to
/// (only after an undeclared-name error, so correct programs never pay for
/// it). Files that do not parse are skipped.
class ModuleIndex {
 public:
  /// Indexes the .tm files under `dir`, at most `max_depth` folders deep,
  /// naming `dir/a/b.tm` as the module `prefix` + "a.b". Once per directory.
  void AddRoot(const std::string& dir, const std::string& prefix, int max_depth);
  /// The declarations of `name` in every indexed root, in indexing order.
  const std::vector<NameDefinition>& Find(const std::string& name) const;
  /// The text of an indexed file, as it was read.
  const std::string& Text(const std::string& path) const { return texts_.at(path); }

 private:
  void IndexFile(const std::string& root, const std::string& path, const std::string& module);

  std::map<std::string, bool> roots_;
  std::map<std::string, std::vector<NameDefinition>> by_name_;
  std::map<std::string, std::string> texts_;
};

}  // namespace tmc
