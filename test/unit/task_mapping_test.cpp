// The task-mapping algebra against its definition (docs/language.md).
#include "support/task_mapping.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace tmc {
namespace {

using K = MappingAtom::Kind;

TaskMapping Spatial(std::vector<int64_t> d) { return TaskMapping::Primitive(K::Spatial, d); }
TaskMapping Repeat(std::vector<int64_t> d) { return TaskMapping::Primitive(K::Repeat, d); }

TEST(TaskMapping, WorkedExampleSpatialThenRepeat) {
  TaskMapping m = Spatial({4, 8}).Compose(Repeat({2, 2}));
  EXPECT_EQ(m.Workers(), 32);
  EXPECT_EQ(m.Shape(), (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(m.TasksOf(5), (std::vector<Task>{{0, 10}, {0, 11}, {1, 10}, {1, 11}}));
}

TEST(TaskMapping, WorkedExampleRepeatThenSpatial) {
  TaskMapping m = Repeat({2, 2}).Compose(Spatial({4, 8}));
  EXPECT_EQ(m.Workers(), 32);
  EXPECT_EQ(m.Shape(), (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(m.TasksOf(5), (std::vector<Task>{{0, 5}, {0, 13}, {4, 5}, {4, 13}}));
}

TEST(TaskMapping, ColumnMajorPrimitives) {
  EXPECT_EQ(TaskMapping::Primitive(K::ColSpatial, {4, 8}).TasksOf(5), (std::vector<Task>{{1, 1}}));
  EXPECT_EQ(TaskMapping::Primitive(K::Spatial, {4, 8}).TasksOf(5), (std::vector<Task>{{0, 5}}));
  EXPECT_EQ(TaskMapping::Primitive(K::ColRepeat, {2, 2}).TasksOf(0),
            (std::vector<Task>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
}

TEST(TaskMapping, OutOfRangeWorkerHasNoTasks) {
  TaskMapping m = Spatial({4, 8});
  EXPECT_TRUE(m.TasksOf(32).empty());
  EXPECT_TRUE(m.TasksOf(-1).empty());
}

TEST(TaskMapping, CompositionIsAssociative) {
  TaskMapping a = Spatial({2, 3}), b = Repeat({2, 1}), c = TaskMapping::Primitive(K::ColSpatial, {2, 2});
  TaskMapping left = a.Compose(b).Compose(c), right = a.Compose(b.Compose(c));
  for (int64_t w = 0; w < left.Workers(); ++w) EXPECT_EQ(left.TasksOf(w), right.TasksOf(w));
}

TEST(TaskMapping, ToStringAndType) {
  TaskMapping m = Spatial({4, 8}).Compose(Repeat({2, 2}));
  EXPECT_EQ(m.ToString(), "spatial(4, 8) * repeat(2, 2)");
  EXPECT_EQ(m.TypeString(), "mapping<2, 32, (8, 16)>");
}

// Random compositions of primitives cover their task domain exactly once,
// and each worker gets TaskCount / Workers tasks, checked against a direct
// evaluation of the composition rule f * g on nested lists.
std::vector<Task> Reference(const std::vector<MappingAtom>& atoms, size_t first, int64_t w) {
  const MappingAtom& f = atoms[first];
  if (first + 1 == atoms.size()) return AtomTasks(f, w);
  std::vector<MappingAtom> rest(atoms.begin() + static_cast<long>(first) + 1, atoms.end());
  int64_t g_workers = 1;
  Task g_shape(f.dims.size(), 1);
  for (const MappingAtom& a : rest) {
    g_workers *= a.Workers();
    for (size_t d = 0; d < g_shape.size(); ++d) g_shape[d] *= a.dims[d];
  }
  std::vector<Task> out;
  for (const Task& tf : AtomTasks(f, w / g_workers))
    for (const Task& tg : Reference(atoms, first + 1, w % g_workers)) {
      Task t(tf.size());
      for (size_t d = 0; d < t.size(); ++d) t[d] = tf[d] * g_shape[d] + tg[d];
      out.push_back(t);
    }
  return out;
}

TEST(TaskMapping, RandomCompositionsMatchDefinitionAndCoverOnce) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 3);
    int n = 1 + static_cast<int>(rng() % 3);
    TaskMapping m;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> dims;
      for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<int64_t>(rng() % 3));
      TaskMapping p = TaskMapping::Primitive(static_cast<K>(rng() % 4), dims);
      m = i == 0 ? p : m.Compose(p);
    }
    std::map<Task, int> seen;
    for (int64_t w = 0; w < m.Workers(); ++w) {
      std::vector<Task> tasks = m.TasksOf(w);
      EXPECT_EQ(tasks, Reference(m.Atoms(), 0, w)) << m.ToString() << " worker " << w;
      std::vector<int64_t> flat, expected;
      m.FlatTasksOf(w, &flat);
      for (const Task& t : tasks) expected.insert(expected.end(), t.begin(), t.end());
      EXPECT_EQ(flat, expected) << m.ToString() << " worker " << w;
      EXPECT_EQ(static_cast<int64_t>(tasks.size()), m.TaskCount() / m.Workers());
      for (const Task& t : tasks) {
        for (int d = 0; d < rank; ++d) {
          EXPECT_GE(t[d], 0);
          EXPECT_LT(t[d], m.Shape()[d]);
        }
        ++seen[t];
      }
    }
    std::vector<int64_t> none = {7};
    m.FlatTasksOf(m.Workers(), &none);
    EXPECT_TRUE(none.empty());  // out of range: no tasks, as TasksOf
    EXPECT_EQ(static_cast<int64_t>(seen.size()), m.TaskCount()) << m.ToString();
    for (const auto& [t, c] : seen) EXPECT_EQ(c, 1) << m.ToString();
  }
}

}  // namespace
}  // namespace tmc

#include "support/mma_layouts.h"

namespace tmc {
namespace {

// The fragment layouts against the PTX ISA's figures, lane by lane.
TEST(MmaLayouts, MatchThePtxIsa) {
  for (int64_t l = 0; l < 32; ++l) {
    int64_t g = l / 4, t = l % 4;
    EXPECT_EQ(MmaM16N8K16A().TasksOf(l),
              (std::vector<Task>{{g, 2 * t}, {g, 2 * t + 1}, {g + 8, 2 * t}, {g + 8, 2 * t + 1},
                                 {g, 2 * t + 8}, {g, 2 * t + 9}, {g + 8, 2 * t + 8}, {g + 8, 2 * t + 9}}));
    EXPECT_EQ(MmaM16N8K16B().TasksOf(l),
              (std::vector<Task>{{2 * t, g}, {2 * t + 1, g}, {2 * t + 8, g}, {2 * t + 9, g}}));
    EXPECT_EQ(MmaM16N8K16C().TasksOf(l),
              (std::vector<Task>{{g, 2 * t}, {g, 2 * t + 1}, {g + 8, 2 * t}, {g + 8, 2 * t + 1}}));
  }
}

TEST(MmaLayouts, SameAssignmentAcceptsOtherSpellings) {
  TaskMapping c = TaskMapping::Primitive(MappingAtom::Kind::Repeat, {2, 1})
                      .Compose(TaskMapping::Primitive(MappingAtom::Kind::Spatial, {8, 4}))
                      .Compose(TaskMapping::Primitive(MappingAtom::Kind::Repeat, {1, 2}));
  EXPECT_TRUE(SameAssignment(c, MmaM16N8K16C()));
  EXPECT_FALSE(SameAssignment(MmaM16N8K16C(), MmaM16N8K16B()));
  TaskMapping swapped = TaskMapping::Primitive(MappingAtom::Kind::Spatial, {8, 4})
                            .Compose(TaskMapping::Primitive(MappingAtom::Kind::Repeat, {2, 2}));
  EXPECT_FALSE(SameAssignment(swapped, MmaM16N8K16C()));  // rows 2g, 2g+1 instead of g, g+8
}

}  // namespace
}  // namespace tmc
