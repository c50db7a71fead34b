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

/// Frees `object` now, or, when the teardown is skipped, leaves it to the
/// process's exit.
template <typename T>
void Retire(std::unique_ptr<T>& object) {
  if (TeardownSkipped())
    (void)object.release();
  else
    object.reset();
}

}  // namespace tmc
