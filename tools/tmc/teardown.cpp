#include "tools/tmc/teardown.h"

#include <atomic>

namespace tmc {
namespace {

std::atomic<bool> skip_teardown{false};

}  // namespace

void SkipTeardownAtExit() {
#if defined(__SANITIZE_ADDRESS__)
  return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
  return;
#endif
#endif
  skip_teardown.store(true, std::memory_order_relaxed);
}

bool TeardownSkipped() { return skip_teardown.load(std::memory_order_relaxed); }

}  // namespace tmc
