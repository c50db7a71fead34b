// The task-mapping algebra (docs/language.md, "Task mappings"): compile-time
// values shared by semantic analysis, the `tmc mapping` tool and the IR.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace tmc {

using Task = std::vector<int64_t>;

/// One primitive of a composition chain.
struct MappingAtom {
  enum class Kind { Spatial, ColSpatial, Repeat, ColRepeat };
  Kind kind;
  std::vector<int64_t> dims;

  int64_t Workers() const;
  int64_t Tasks() const;
  friend bool operator==(const MappingAtom&, const MappingAtom&) = default;
};

/// A task mapping: a composition f1 * f2 * ... * fn of primitives, all of the
/// same rank. Composition is associative, so a flat chain represents it.
class TaskMapping {
 public:
  TaskMapping() = default;
  /// Builds a primitive; extents must be positive (the caller diagnoses).
  static TaskMapping Primitive(MappingAtom::Kind kind, std::vector<int64_t> dims);
  /// `this * rhs`; both must have the same rank (the caller diagnoses).
  TaskMapping Compose(const TaskMapping& rhs) const;

  int Rank() const { return static_cast<int>(shape_.size()); }
  int64_t Workers() const { return workers_; }
  const std::vector<int64_t>& Shape() const { return shape_; }
  int64_t TaskCount() const;  // product of the shape
  const std::vector<MappingAtom>& Atoms() const { return atoms_; }

  /// The ordered tasks of worker `w`; empty when w is out of [0, workers).
  std::vector<Task> TasksOf(int64_t w) const;
  /// The same tasks in one array, Rank() values per task: no allocation per
  /// task. Comparing fragment layouts lane by lane (mma_layouts.h) asks for
  /// every task of 128 workers several times per wgmma operand.
  void FlatTasksOf(int64_t w, std::vector<int64_t>* out) const;
  /// Calls `fn(task)` for each task of worker `w`, in order, without
  /// materializing the list (used on large mappings). An `fn` that
  /// returns bool stops the walk by returning false (the first tasks of a
  /// worker that has 2^40).
  template <typename Fn>
  void ForEachTask(int64_t w, Fn&& fn) const;

  /// Source-like spelling, e.g. "spatial(4, 8) * repeat(2, 2)".
  std::string ToString() const;
  /// "mapping<2, 32, (8, 16)>": the compile-time type.
  std::string TypeString() const;

  friend bool operator==(const TaskMapping&, const TaskMapping&) = default;

 private:
  bool ForEachTaskFrom(size_t atom, int64_t w, Task& base, const std::function<bool(const Task&)>& fn) const;
  std::vector<MappingAtom> atoms_;
  std::vector<int64_t> shape_;
  int64_t workers_ = 1;
};

/// The tasks of one primitive for worker w (w < atom.Workers()).
std::vector<Task> AtomTasks(const MappingAtom& atom, int64_t w);
/// Product of dims; nullopt on overflow past 2^62.
std::optional<int64_t> CheckedProduct(const std::vector<int64_t>& dims);

template <typename Fn>
void TaskMapping::ForEachTask(int64_t w, Fn&& fn) const {
  if (w < 0 || w >= workers_ || atoms_.empty()) return;
  Task base(shape_.size(), 0);
  if constexpr (std::is_void_v<std::invoke_result_t<Fn&, const Task&>>)
    ForEachTaskFrom(0, w, base, [&fn](const Task& t) { return fn(t), true; });
  else
    ForEachTaskFrom(0, w, base, std::function<bool(const Task&)>(fn));
}
}  // namespace tmc
