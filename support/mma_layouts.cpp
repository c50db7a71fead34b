// Fragment layouts, written in the mapping algebra and compared task by
// task, so that a user's equivalent spelling is accepted.
#include "support/mma_layouts.h"

#include <string>
#include <unordered_map>

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

TaskMapping WgmmaD(int64_t n) {
  return Chain({{K::Repeat, {1, n / 8}}, {K::Spatial, {4, 1}}, {K::Repeat, {2, 1}}, {K::Spatial, {8, 4}}, {K::Repeat, {1, 2}}});
}

TaskMapping WgmmaA() {
  return Chain({{K::Spatial, {4, 1}}, {K::Repeat, {1, 2}}, {K::Repeat, {2, 1}}, {K::Spatial, {8, 4}}, {K::Repeat, {1, 2}}});
}

bool SameAssignment(const TaskMapping& m, const TaskMapping& layout) {
  if (m.Workers() != layout.Workers() || m.Shape() != layout.Shape()) return false;
  std::vector<int64_t> a, b;
  for (int64_t w = 0; w < m.Workers(); ++w) {
    m.FlatTasksOf(w, &a);
    layout.FlatTasksOf(w, &b);
    if (a != b) return false;
  }
  return true;
}

namespace {

// Pieces of `layout` (tasks per worker: `regs`) at registers k*regs of every
// worker of `m`, or nullopt. `layouts` are the accepted piece layouts (the
// first whose lane-1 task matches is taken per piece).
std::optional<std::vector<FragmentPiece>> Split(const TaskMapping& m, const std::vector<TaskMapping>& layouts) {
  const TaskMapping& first = layouts.front();
  if (m.Rank() != 2 || m.Workers() != first.Workers()) return std::nullopt;
  int64_t regs = first.TaskCount() / first.Workers();
  int64_t per_worker = m.TaskCount() / m.Workers();
  if (per_worker % regs != 0) return std::nullopt;
  // Each worker's tasks flattened: (row, column) at 2 i, 2 i + 1.
  std::vector<std::vector<int64_t>> mine(static_cast<size_t>(m.Workers()));
  std::vector<std::vector<std::vector<int64_t>>> want(layouts.size());
  for (int64_t w = 0; w < m.Workers(); ++w) {
    m.FlatTasksOf(w, &mine[static_cast<size_t>(w)]);
    for (size_t k = 0; k < layouts.size(); ++k) {
      if (layouts[k].Rank() != 2) return std::nullopt;
      want[k].emplace_back();
      layouts[k].FlatTasksOf(w, &want[k].back());
    }
  }
  std::vector<FragmentPiece> out;
  for (int64_t p = 0; p < per_worker / regs; ++p) {
    bool found = false;
    for (size_t k = 0; k < layouts.size() && !found; ++k) {
      // Worker 0 holds the piece's top-left element first in every layout.
      const int64_t* origin = &mine[0][static_cast<size_t>(2 * p * regs)];
      const int64_t* base = &want[k][0][0];
      int64_t dr = origin[0] - base[0], dc = origin[1] - base[1];
      bool match = true;
      for (size_t w = 0; w < mine.size() && match; ++w)
        for (int64_t r = 0; r < regs && match; ++r) {
          const int64_t* t = &mine[w][static_cast<size_t>(2 * (p * regs + r))];
          const int64_t* h = &want[k][w][static_cast<size_t>(2 * r)];
          match = t[0] == h[0] + dr && t[1] == h[1] + dc;
        }
      if (match) {
        out.push_back(FragmentPiece{dr, dc, p * regs, k == 1});
        found = true;
      }
    }
    if (!found) return std::nullopt;
  }
  return out;
}

// Split enumerates every task of every worker, and the checker and the
// lowering ask for the same few splits again and again (each operand of
// each mma and ldmatrix): a fragment tile of 128 registers per lane costs
// thousands of small vectors per question. The answers are memoized per
// thread, keyed by the spellings of the mapping and of the layouts.
std::optional<std::vector<FragmentPiece>> MemoizedSplit(const TaskMapping& m, const std::vector<TaskMapping>& layouts) {
  thread_local std::unordered_map<std::string, std::optional<std::vector<FragmentPiece>>> memo;
  std::string key = m.ToString();
  for (const TaskMapping& l : layouts) key += " | " + l.ToString();
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  if (memo.size() >= 256) memo.clear();  // a bound for long-lived processes
  return memo[key] = Split(m, layouts);
}

}  // namespace

std::optional<std::vector<FragmentPiece>> SplitIntoFragments(const TaskMapping& m, const TaskMapping& layout) {
  return MemoizedSplit(m, {layout});
}

TaskMapping LdMatrixLayout(bool trans) {
  if (trans) return Chain({{K::ColSpatial, {4, 8}}, {K::Repeat, {2, 1}}});
  return Chain({{K::Spatial, {8, 4}}, {K::Repeat, {1, 2}}});
}

std::optional<std::vector<FragmentPiece>> SplitIntoLdMatrices(const TaskMapping& m) {
  return MemoizedSplit(m, {LdMatrixLayout(false), LdMatrixLayout(true)});
}

std::optional<std::vector<FragmentPiece>> PiecesInRegion(const std::vector<FragmentPiece>& pieces, int64_t piece_rows,
                                                         int64_t piece_cols, int64_t row, int64_t col, int64_t rows,
                                                         int64_t cols) {
  std::vector<FragmentPiece> out;
  for (const FragmentPiece& p : pieces) {
    bool inside = p.row >= row && p.row + piece_rows <= row + rows && p.col >= col && p.col + piece_cols <= col + cols;
    bool overlaps = p.row < row + rows && p.row + piece_rows > row && p.col < col + cols && p.col + piece_cols > col;
    if (overlaps && !inside) return std::nullopt;
    if (inside) out.push_back(p);
  }
  if (static_cast<int64_t>(out.size()) * piece_rows * piece_cols != rows * cols) return std::nullopt;
  return out;
}

std::optional<RegionPieces> UniformRegions(const std::vector<FragmentPiece>& pieces, int64_t piece_rows,
                                           int64_t piece_cols, int64_t tensor_rows, int64_t tensor_cols, int64_t rows,
                                           int64_t cols) {
  if (rows <= 0 || cols <= 0 || tensor_rows % rows != 0 || tensor_cols % cols != 0) return std::nullopt;
  auto region = [&](int64_t i, int64_t j) {
    return PiecesInRegion(pieces, piece_rows, piece_cols, i * rows, j * cols, rows, cols);
  };
  auto origin = region(0, 0);
  if (!origin) return std::nullopt;
  RegionPieces out;
  for (FragmentPiece p : *origin) out.pieces.push_back(p);
  auto reg_of = [](const std::vector<FragmentPiece>& v) { return v.front().reg; };
  if (tensor_rows / rows > 1) {
    auto next = region(1, 0);
    if (!next) return std::nullopt;
    out.row_stride = reg_of(*next) - reg_of(*origin);
  }
  if (tensor_cols / cols > 1) {
    auto next = region(0, 1);
    if (!next) return std::nullopt;
    out.col_stride = reg_of(*next) - reg_of(*origin);
  }
  for (int64_t i = 0; i < tensor_rows / rows; ++i)
    for (int64_t j = 0; j < tensor_cols / cols; ++j) {
      auto r = region(i, j);
      if (!r || r->size() != origin->size()) return std::nullopt;
      for (size_t k = 0; k < r->size(); ++k) {
        const FragmentPiece &a = (*r)[k], &b = (*origin)[k];
        if (a.row - i * rows != b.row || a.col - j * cols != b.col || a.trans != b.trans ||
            a.reg != b.reg + i * out.row_stride + j * out.col_stride)
          return std::nullopt;
      }
    }
  return out;
}

}  // namespace tmc
