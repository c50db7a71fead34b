// The mapping expression is checked by the real frontend, as the module
// `let __mapping = EXPR;`, so it accepts exactly what a .tm file accepts and
// reports mistakes with the same diagnostics. The wrapper's lines are hidden
// from diagnostics: they show the expression as the user wrote it. Names
// the expression uses that a module on the import path declares (`mma_c` in
// std.mma) are imported.
#include "tools/tmc/mapping_command.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>

#include "frontend/compilation.h"
#include "frontend/module_index.h"

namespace tmc::driver {
namespace {

std::string TaskString(const Task& t) {
  std::string s = "(";
  for (size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + std::to_string(t[i]);
  return s + ")";
}

// Draws rank-2 slices of the task domain with the owner of each task:
// its worker id, '.' for none, '*' for more than one.
void DrawGrid(const TaskMapping& m, int64_t threads, std::string* out) {
  const std::vector<int64_t>& shape = m.Shape();
  int64_t total = m.TaskCount();
  constexpr int64_t kMaxCells = 1 << 16;
  if (total > kMaxCells) {
    *out += fmt::format("grid: {} tasks are too many to draw (limit {})\n", total, kMaxCells);
    return;
  }
  std::vector<int64_t> owner(static_cast<size_t>(total), -1);
  std::vector<int> count(static_cast<size_t>(total), 0);
  auto flat = [&](const Task& t) {
    int64_t f = 0;
    for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + t[d];
    return f;
  };
  int64_t workers = std::min(threads, m.Workers());
  for (int64_t w = 0; w < workers; ++w)
    m.ForEachTask(w, [&](const Task& t) {
      int64_t f = flat(t);
      owner[static_cast<size_t>(f)] = w;
      ++count[static_cast<size_t>(f)];
    });
  int width = static_cast<int>(std::to_string(std::max<int64_t>(m.Workers() - 1, 0)).size());
  int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  int64_t cols = shape.back();
  int64_t slices = total / (rows * cols);
  for (int64_t s = 0; s < slices; ++s) {
    if (slices > 1) {
      // Leading indices of this slice.
      Task lead(shape.size() - 2);
      int64_t rem = s;
      for (size_t d = lead.size(); d-- > 0;) {
        lead[d] = rem % shape[d];
        rem /= shape[d];
      }
      std::string idx;
      for (int64_t v : lead) idx += std::to_string(v) + ", ";
      *out += fmt::format("[{}:, :]\n", idx);
    }
    for (int64_t r = 0; r < rows; ++r) {
      std::string line;
      for (int64_t c = 0; c < cols; ++c) {
        size_t f = static_cast<size_t>((s * rows + r) * cols + c);
        std::string cell = count[f] == 0 ? "." : count[f] > 1 ? "*" : std::to_string(owner[f]);
        line += fmt::format("{:>{}}", cell, width) + (c + 1 < cols ? " " : "");
      }
      *out += line + "\n";
    }
  }
  int64_t never = 0, twice = 0;
  for (int c : count) {
    never += c == 0;
    twice += c > 1;
  }
  if (never == 0 && twice == 0)
    *out += fmt::format("coverage: each of the {} tasks is owned by exactly one worker\n", total);
  else
    *out += fmt::format("coverage: {} tasks owned by no worker ('.'), {} by several ('*')\n", never, twice);
}

// The names `expr` uses (not members after '.', not digits of literals).
std::vector<std::string> NamesIn(const std::string& expr) {
  std::vector<std::string> names;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  char before = ' ';
  for (size_t i = 0; i < expr.size();) {
    char c = expr[i];
    if (!word(c)) {
      if (!std::isspace(static_cast<unsigned char>(c))) before = c;
      ++i;
      continue;
    }
    size_t j = i;
    while (j < expr.size() && word(expr[j])) ++j;
    if (!std::isdigit(static_cast<unsigned char>(c)) && before != '.') names.push_back(expr.substr(i, j - i));
    before = 'a';
    i = j;
  }
  return names;
}

}  // namespace

std::string DescribeMapping(const TaskMapping& m, std::optional<int64_t> worker, bool grid,
                            std::optional<int64_t> threads) {
  std::string out;
  std::string shape;
  for (size_t i = 0; i < m.Shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(m.Shape()[i]);
  out += fmt::format("mapping: {}\n", m.ToString());
  out += fmt::format("type:    {}\n", m.TypeString());
  out += fmt::format("workers: {}\n", m.Workers());
  out += fmt::format("shape:   ({})\n", shape);
  out += fmt::format("tasks:   {} ({} per worker)\n", m.TaskCount(), m.TaskCount() / m.Workers());
  if (worker) {
    if (*worker < 0 || *worker >= m.Workers()) {
      out += fmt::format("worker {}: no tasks (the mapping has workers 0..{})\n", *worker, m.Workers() - 1);
    } else {
      std::string tasks;
      int64_t shown = 0;
      constexpr int64_t kMaxShown = 4096;
      m.ForEachTask(*worker, [&](const Task& t) {
        tasks += " " + TaskString(t);
        return ++shown < kMaxShown;  // a worker may have 2^40 tasks: the first ones only
      });
      int64_t per_worker = m.TaskCount() / m.Workers();
      if (per_worker > shown) tasks += fmt::format(" ... ({} more)", per_worker - shown);
      out += fmt::format("worker {}:{}\n", *worker, tasks);
    }
  }
  if (grid) {
    int64_t t = threads.value_or(m.Workers());
    if (threads) out += fmt::format("threads: {}\n", t);
    if (t > m.Workers())
      out += fmt::format("idle:    threads {}..{} get no tasks\n", m.Workers(), t - 1);
    DrawGrid(m, t, &out);
  }
  return out;
}

void RunMappingCommand(const Options& options, SourceManager& sm, DiagnosticEngine& diags,
                       std::string* out) {
  const std::string& expr = options.inputs.front();
  ModuleIndex index;
  index.AddRoot(options.stdlib_dir, "std.", 4);
  for (const std::string& dir : options.include_dirs) index.AddRoot(dir, "", 4);
  std::set<std::string> imports;
  for (const std::string& name : NamesIn(expr)) {
    if (options.defines.count(name)) continue;
    const std::vector<NameDefinition>& defs = index.Find(name);
    if (!defs.empty()) imports.insert(defs.front().module);
  }
  std::string text;
  for (const std::string& module : imports) text += "import " + module + ";\n";
  for (const auto& [name, value] : options.defines) text += fmt::format("let {} = {};\n", name, value);
  text += "let __mapping =\n";
  VisibleText visible{static_cast<uint32_t>(text.size()), static_cast<uint32_t>(text.size() + expr.size())};
  text += expr + "\n;\n";
  CompileOptions copts;
  copts.stdlib_dir = options.stdlib_dir;
  copts.include_dirs = options.include_dirs;
  Compilation comp(sm, diags, copts);
  sema::CheckedModule* m = comp.CompileBuffer("<mapping>", text, visible);
  if (!m || !m->ok) return;
  sema::Symbol* sym = m->exports->LookupLocal("__mapping");
  if (!sym || !sym->value || sym->value->kind != sema::ConstValue::Kind::Mapping) {
    auto* decl = static_cast<const ast::ConstDecl*>(sym ? sym->decl : nullptr);
    diags.Report(decl ? decl->value->range : SourceRange{}, DiagKind::NotAMapping,
                 sym && sym->type ? sym->type->ToString() : "?");
    return;
  }
  *out += DescribeMapping(*sym->value->m, options.worker, options.grid, options.threads);
}

}  // namespace tmc::driver
