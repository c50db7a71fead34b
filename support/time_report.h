// -ftime-report: the time of each compilation stage, in one process.
#pragma once

#include <string>

namespace tmc {

/// Stage timers are exclusive: a stage that starts inside another (an
/// import parsed while a module is checked) pauses the outer one, so the
/// stages add up to the whole. Timers are per thread; totals are shared.
class TimeReport {
 public:
  static void Enable();
  static bool Enabled();
  /// The stages in first-use order, with wall and CPU milliseconds, and
  /// the total since Enable(); empty when not enabled.
  static std::string Format();
};

/// Times the enclosing scope as `stage` (a string literal) when the report
/// is enabled; otherwise costs one flag test.
class StageTimer {
 public:
  explicit StageTimer(const char* stage);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  const char* stage_;
  bool on_;
};

}  // namespace tmc
