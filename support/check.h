// Internal consistency checks: for compiler bugs only, never user errors
// (those are diagnostics). A failed check throws, and the driver reports
// "tmc: internal error: ..." with exit code 2 instead of crashing.
#pragma once

#include <stdexcept>
#include <string>

namespace tmc {

struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn]] inline void InternalFailure(const char* file, int line, const std::string& what) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": " + what);
}

}  // namespace tmc

#define TMC_CHECK(cond, what)                                        \
  do {                                                               \
    if (!(cond)) ::tmc::InternalFailure(__FILE__, __LINE__, (what)); \
  } while (0)
