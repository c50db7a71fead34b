// Line tables are built once per file; lookups are binary searches.
#include "support/source_manager.h"

#include <algorithm>

namespace tmc {

uint32_t SourceManager::AddFile(std::string path, std::string contents, VisibleText visible) {
  File file;
  file.visible_begin = std::min<uint32_t>(visible.begin, static_cast<uint32_t>(contents.size()));
  file.visible_end = std::max(visible.end, file.visible_begin);
  for (uint32_t i = 0; i < file.visible_begin; ++i) file.hidden_lines += contents[i] == '\n';
  file.path = std::move(path);
  file.contents = std::move(contents);
  file.base = next_base_;
  file.line_starts.push_back(0);
  for (uint32_t i = 0; i < file.contents.size(); ++i)
    if (file.contents[i] == '\n') file.line_starts.push_back(i + 1);
  // One extra offset past the end so that an end-of-file location is valid.
  next_base_ += static_cast<uint32_t>(file.contents.size()) + 1;
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size() - 1);
}

uint32_t SourceManager::FileOf(SourceLoc loc) const {
  auto it = std::upper_bound(files_.begin(), files_.end(), loc.offset,
                             [](uint32_t off, const File& f) { return off < f.base; });
  return static_cast<uint32_t>(it - files_.begin()) - 1;
}

PresumedLoc SourceManager::Presumed(SourceLoc loc) const {
  uint32_t id = FileOf(loc);
  const File& file = files_[id];
  uint32_t off = std::min(loc.offset - file.base, file.visible_end);
  auto it = std::upper_bound(file.line_starts.begin(), file.line_starts.end(), off);
  uint32_t line = static_cast<uint32_t>(it - file.line_starts.begin());
  uint32_t shown = line > file.hidden_lines ? line - file.hidden_lines : 0;
  return PresumedLoc{file.path, shown, off - file.line_starts[line - 1] + 1, id};
}

bool SourceManager::IsHidden(SourceLoc loc) const {
  const File& file = files_[FileOf(loc)];
  uint32_t off = loc.offset - file.base;
  return off < file.visible_begin || off >= file.visible_end;
}

std::string_view SourceManager::LineText(uint32_t file_id, uint32_t line) const {
  const File& file = files_[file_id];
  if (line == 0) return {};
  line += file.hidden_lines;
  if (line > file.line_starts.size()) return {};
  uint32_t begin = file.line_starts[line - 1];
  uint32_t end = line < file.line_starts.size() ? file.line_starts[line] - 1
                                                : static_cast<uint32_t>(file.contents.size());
  end = std::max(begin, std::min(end, file.visible_end));
  std::string_view text(file.contents.data() + begin, end - begin);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

std::string_view SourceManager::Text(SourceRange range) const {
  if (!range.IsValid()) return {};
  uint32_t id = FileOf(range.begin);
  const File& file = files_[id];
  uint32_t b = range.begin.offset - file.base;
  uint32_t e = std::max(range.end.offset, range.begin.offset) - file.base;
  e = std::min<uint32_t>(e, static_cast<uint32_t>(file.contents.size()));
  b = std::min(b, e);
  return std::string_view(file.contents).substr(b, e - b);
}

}  // namespace tmc
