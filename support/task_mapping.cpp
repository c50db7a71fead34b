// Task-mapping algebra. For f * g, worker w splits into wf = w / g.workers and
// wg = w % g.workers, and its tasks are tf ⊙ g.shape + tg for tf in f(wf), tg
// in g(wg). A chain a1 * ... * an is evaluated left to right with the scale
// of each atom being the product of the shapes of the atoms to its right.
#include "support/task_mapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tmc {

std::optional<int64_t> CheckedProduct(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (d <= 0) return std::nullopt;
    if (p > (int64_t{1} << 62) / d) return std::nullopt;
    p *= d;
  }
  return p;
}

int64_t MappingAtom::Tasks() const { return CheckedProduct(dims).value_or(0); }

int64_t MappingAtom::Workers() const {
  return kind == Kind::Spatial || kind == Kind::ColSpatial ? Tasks() : 1;
}

// Unravels `index` over `dims` into out[0, dims.size()), row-major (last
// dim fastest) or column-major.
static void UnravelInto(int64_t index, const std::vector<int64_t>& dims, bool col_major, int64_t* out) {
  for (size_t k = 0; k < dims.size(); ++k) {
    size_t d = col_major ? k : dims.size() - 1 - k;
    out[d] = index % dims[d];
    index /= dims[d];
  }
}

// Calls f(index, col_major) for each task of `atom` for its worker w, in
// order: the task is `index` unraveled over atom.dims.
template <typename F>
static void ForEachAtomTask(const MappingAtom& atom, int64_t w, F&& f) {
  switch (atom.kind) {
    case MappingAtom::Kind::Spatial: f(w, false); break;
    case MappingAtom::Kind::ColSpatial: f(w, true); break;
    case MappingAtom::Kind::Repeat:
    case MappingAtom::Kind::ColRepeat:
      for (int64_t i = 0, n = atom.Tasks(); i < n; ++i) f(i, atom.kind == MappingAtom::Kind::ColRepeat);
      break;
  }
}

std::vector<Task> AtomTasks(const MappingAtom& atom, int64_t w) {
  std::vector<Task> tasks;
  bool repeat = atom.kind == MappingAtom::Kind::Repeat || atom.kind == MappingAtom::Kind::ColRepeat;
  tasks.reserve(repeat ? static_cast<size_t>(atom.Tasks()) : 1);
  ForEachAtomTask(atom, w, [&](int64_t index, bool col_major) {
    tasks.emplace_back(atom.dims.size());
    UnravelInto(index, atom.dims, col_major, tasks.back().data());
  });
  return tasks;
}

TaskMapping TaskMapping::Primitive(MappingAtom::Kind kind, std::vector<int64_t> dims) {
  TaskMapping m;
  m.atoms_.push_back(MappingAtom{kind, dims});
  m.workers_ = m.atoms_.back().Workers();
  m.shape_ = std::move(dims);
  return m;
}

TaskMapping TaskMapping::Compose(const TaskMapping& rhs) const {
  TaskMapping m = *this;
  m.atoms_.insert(m.atoms_.end(), rhs.atoms_.begin(), rhs.atoms_.end());
  m.workers_ = workers_ * rhs.workers_;
  for (size_t i = 0; i < m.shape_.size() && i < rhs.shape_.size(); ++i)
    m.shape_[i] *= rhs.shape_[i];
  return m;
}

int64_t TaskMapping::TaskCount() const { return CheckedProduct(shape_).value_or(0); }

bool TaskMapping::ForEachTaskFrom(size_t atom, int64_t w, Task& base,
                                  const std::function<bool(const Task&)>& fn) const {
  if (atom == atoms_.size()) return fn(base);
  // Workers and shape of the chain to the right of this atom.
  int64_t rest_workers = 1;
  Task rest_shape(shape_.size(), 1);
  for (size_t j = atom + 1; j < atoms_.size(); ++j) {
    rest_workers *= atoms_[j].Workers();
    for (size_t d = 0; d < rest_shape.size(); ++d) rest_shape[d] *= atoms_[j].dims[d];
  }
  Task saved = base;
  for (const Task& t : AtomTasks(atoms_[atom], w / rest_workers)) {
    for (size_t d = 0; d < base.size(); ++d) base[d] = saved[d] + t[d] * rest_shape[d];
    if (!ForEachTaskFrom(atom + 1, w % rest_workers, base, fn)) {
      base = saved;
      return false;
    }
  }
  base = saved;
  return true;
}

void TaskMapping::FlatTasksOf(int64_t w, std::vector<int64_t>* out) const {
  out->clear();
  size_t rank = shape_.size(), n = atoms_.size();
  if (w < 0 || w >= workers_ || n == 0 || rank == 0) return;
  // Each atom's tasks for its part of w, already scaled by the shapes of
  // the atoms to its right (flattened, rank values a task, atom i's at
  // [begin[i], end[i]) of one buffer); then every combination, the
  // last atom fastest, as ForEachTaskFrom's recursion visits them. The
  // fragment checks ask this of every lane of tiles of hundreds of tasks:
  // one buffer, not a vector per task.
  thread_local std::vector<int64_t> parts, scale, task;
  thread_local std::vector<size_t> begin, end, at;
  parts.clear();
  scale.assign(rank, 1);
  begin.assign(n, 0);
  end.assign(n, 0);
  int64_t rest = 1;  // workers of the atoms to the right
  for (size_t i = n; i-- > 0;) {
    const MappingAtom& a = atoms_[i];
    size_t dims = a.dims.size();
    begin[i] = parts.size();
    ForEachAtomTask(a, (w / rest) % a.Workers(), [&](int64_t index, bool col_major) {
      task.resize(dims);
      UnravelInto(index, a.dims, col_major, task.data());
      size_t base = parts.size();
      parts.resize(base + rank, 0);  // scaled, and zero in the dimensions the atom lacks
      for (size_t d = 0; d < rank && d < dims; ++d) parts[base + d] = task[d] * scale[d];
    });
    end[i] = parts.size();
    if (begin[i] == end[i]) return;  // an atom without tasks
    rest *= a.Workers();
    for (size_t d = 0; d < rank && d < dims; ++d) scale[d] *= a.dims[d];
  }
  at.assign(begin.begin(), begin.end());
  for (;;) {
    for (size_t d = 0; d < rank; ++d) {
      int64_t v = 0;
      for (size_t i = 0; i < n; ++i) v += parts[at[i] + d];
      out->push_back(v);
    }
    size_t i = n;
    while (i > 0) {
      --i;
      at[i] += rank;
      if (at[i] < end[i]) break;
      at[i] = begin[i];
      if (i == 0) return;
    }
  }
}

std::vector<Task> TaskMapping::TasksOf(int64_t w) const {
  std::vector<Task> tasks;
  ForEachTask(w, [&](const Task& t) { tasks.push_back(t); });
  return tasks;
}

static std::string JoinDims(const std::vector<int64_t>& dims) {
  return fmt::format("{}", fmt::join(dims, ", "));
}

std::string TaskMapping::ToString() const {
  std::string s;
  for (const MappingAtom& a : atoms_) {
    if (!s.empty()) s += " * ";
    switch (a.kind) {
      case MappingAtom::Kind::Spatial: s += "spatial"; break;
      case MappingAtom::Kind::ColSpatial: s += "col_spatial"; break;
      case MappingAtom::Kind::Repeat: s += "repeat"; break;
      case MappingAtom::Kind::ColRepeat: s += "col_repeat"; break;
    }
    s += "(" + JoinDims(a.dims) + ")";
  }
  return s;
}

std::string TaskMapping::TypeString() const {
  return fmt::format("mapping<{}, {}, ({})>", Rank(), workers_, JoinDims(shape_));
}

}  // namespace tmc
