#include "support/time_report.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <vector>

namespace tmc {
namespace {

struct Clock {
  double wall = 0, cpu = 0;  // seconds
  static Clock Now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    double cpu = static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return {wall, cpu};
  }
};

struct Totals {
  std::mutex mutex;
  std::vector<std::pair<std::string, Clock>> stages;  // first-use order
  Clock start;
};

std::atomic<bool> enabled{false};

Totals& Shared() {
  static Totals totals;
  return totals;
}

void AddTo(const char* stage, Clock from, Clock to) {
  Totals& t = Shared();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (auto& [name, c] : t.stages)
    if (name == stage) {
      c.wall += to.wall - from.wall;
      c.cpu += to.cpu - from.cpu;
      return;
    }
  t.stages.push_back({stage, {to.wall - from.wall, to.cpu - from.cpu}});
}

// The running stages of this thread, innermost last, with when each last
// resumed.
thread_local std::vector<std::pair<const char*, Clock>> running;

}  // namespace

void TimeReport::Enable() {
  Shared().start = Clock::Now();
  enabled = true;
}

bool TimeReport::Enabled() { return enabled; }

std::string TimeReport::Format() {
  if (!enabled) return "";
  Totals& t = Shared();
  Clock now = Clock::Now();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::string out = "===------------------------------------------------===\n"
                    "              tmc compilation time report\n"
                    "===------------------------------------------------===\n"
                    "   wall (ms)    cpu (ms)  stage\n";
  double wall = 0, cpu = 0;
  for (auto& [name, c] : t.stages) {
    out += fmt::format("{:12.3f}{:12.3f}  {}\n", c.wall * 1e3, c.cpu * 1e3, name);
    wall += c.wall;
    cpu += c.cpu;
  }
  out += fmt::format("{:12.3f}{:12.3f}  total of the stages\n", wall * 1e3, cpu * 1e3);
  out += fmt::format("{:12.3f}{:>12}  since the options were read (start-up before them not included)\n",
                     (now.wall - t.start.wall) * 1e3, "");
  return out;
}

StageTimer::StageTimer(const char* stage) : stage_(stage), on_(enabled) {
  if (!on_) return;
  Clock now = Clock::Now();
  if (!running.empty()) {
    AddTo(running.back().first, running.back().second, now);  // pause the outer stage
  }
  running.push_back({stage_, now});
}

StageTimer::~StageTimer() {
  if (!on_) return;
  Clock now = Clock::Now();
  AddTo(stage_, running.back().second, now);
  running.pop_back();
  if (!running.empty()) running.back().second = now;  // resume the outer stage
}

}  // namespace tmc
