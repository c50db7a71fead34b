// Teardown skipped at the end of a process that compiles once and exits,
// as clang does (-disable-free): destroying a compile's IR, LLVM module
// and syntax trees node by node only delays the exit (0.8-0.9% of a large
// kernel's instructions and ~80 page faults, docs/architecture.md), and
// the exit frees it all at once.
#pragma once

#include <memory>

namespace tmc {

/// Called by the driver when this process ends right after its one
/// compile. Off by default (tmc run, tune and lib compile many times) and
/// in a sanitized build, where freeing everything lets AddressSanitizer
/// check the destructors (use after free, double free).
void SkipTeardownAtExit();
bool TeardownSkipped();

/// A deleter that deletes, unless the teardown is skipped: then the exit
/// frees the object. Takes over from std::default_delete, so a
/// std::unique_ptr<T> converts to a Retired<T>.
struct RetireDelete {
  RetireDelete() = default;
  template <typename T>
  RetireDelete(std::default_delete<T>) {}  // NOLINT: implicit, for the conversion
  template <typename T>
  void operator()(T* object) const {
    if (!TeardownSkipped()) delete object;
  }
};

/// An owner whose object is left to the exit when the teardown is skipped.
template <typename T>
using Retired = std::unique_ptr<T, RetireDelete>;

}  // namespace tmc
