// Fragment layouts, written in the mapping algebra and compared task by
// task, so that a user's equivalent spelling is accepted.
#include "support/mma_layouts.h"

namespace tmc {
namespace {

using K = MappingAtom::Kind;

TaskMapping Chain(std::initializer_list<std::pair<K, std::vector<int64_t>>> atoms) {
  TaskMapping m;
  bool first = true;
  for (const auto& [kind, dims] : atoms) {
    TaskMapping p = TaskMapping::Primitive(kind, dims);
    m = first ? p : m.Compose(p);
    first = false;
  }
  return m;
}

}  // namespace

TaskMapping MmaM16N8K16A() {
  return Chain({{K::Repeat, {1, 2}}, {K::Repeat, {2, 1}}, {K::Spatial, {8, 4}}, {K::Repeat, {1, 2}}});
}

TaskMapping MmaM16N8K16B() {
  return Chain({{K::Repeat, {2, 1}}, {K::ColSpatial, {4, 8}}, {K::Repeat, {2, 1}}});
}

TaskMapping MmaM16N8K16C() {
  return Chain({{K::Repeat, {2, 1}}, {K::Spatial, {8, 4}}, {K::Repeat, {1, 2}}});
}

bool SameAssignment(const TaskMapping& m, const TaskMapping& layout) {
  if (m.Workers() != layout.Workers() || m.Shape() != layout.Shape()) return false;
  for (int64_t w = 0; w < m.Workers(); ++w)
    if (m.TasksOf(w) != layout.TasksOf(w)) return false;
  return true;
}

}  // namespace tmc
