// A .tm text parsed and checked in memory, for the unit tests (with the
// standard library of the source tree), keeping every diagnostic.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/compilation.h"

namespace tmc {

class CollectDiagnostics : public DiagnosticConsumer {
 public:
  void Handle(const Diagnostic& d) override { diags.push_back(d); }
  bool Has(DiagKind k) const {
    for (const Diagnostic& d : diags)
      if (d.kind == k) return true;
    return false;
  }
  std::string First() const { return diags.empty() ? "" : diags.front().message; }
  std::vector<Diagnostic> diags;
};

struct Checked {
  SourceManager sm;
  CollectDiagnostics collect;
  DiagnosticEngine diags{sm, collect};
  std::unique_ptr<Compilation> comp;
  sema::CheckedModule* module = nullptr;

  explicit Checked(const std::string& text, const std::string& name = "test.tm") {
    CompileOptions o;
    o.stdlib_dir = std::string(TMC_SOURCE_DIR) + "/stdlib";
    comp = std::make_unique<Compilation>(sm, diags, o);
    module = comp->CompileBuffer(name, text);
  }
  const sema::Symbol* Export(const std::string& name) { return module->exports->LookupLocal(name); }
};

}  // namespace tmc
