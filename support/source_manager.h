// Owns the text of every source file and maps locations to file, line, column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tmc {

/// A position in some loaded file: a global byte offset. Each file occupies
/// its own range of offsets (as in clang), so one 32-bit value names both the
/// file and the byte. Offset 0 is the invalid location.
struct SourceLoc {
  uint32_t offset = 0;
  bool IsValid() const { return offset != 0; }
  friend bool operator==(SourceLoc a, SourceLoc b) = default;
};

/// A half-open byte range [begin, end) inside one file.
struct SourceRange {
  SourceLoc begin;
  SourceLoc end;
  bool IsValid() const { return begin.IsValid(); }
};

/// Line and column of a location, both 1-based; the column counts bytes, as
/// clang does.
struct PresumedLoc {
  std::string_view path;
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t file_id = 0;
};

/// The part of a file the user wrote, when a tool wraps it in text of its
/// own (`tmc mapping`): bytes [begin, end), `begin` at a line start.
struct VisibleText {
  uint32_t begin = 0;
  uint32_t end = UINT32_MAX;
};

class SourceManager {
 public:
  /// Adds a file with the given contents; returns its id. Locations count
  /// lines from the visible part's first line, and a location past its end
  /// is shown at its end.
  uint32_t AddFile(std::string path, std::string contents, VisibleText visible = {});
  /// True for locations in a wrapper's text.
  bool IsHidden(SourceLoc loc) const;

  std::string_view Contents(uint32_t file_id) const { return files_[file_id].contents; }
  std::string_view Path(uint32_t file_id) const { return files_[file_id].path; }
  size_t FileCount() const { return files_.size(); }

  /// The location of byte `byte_offset` of file `file_id`.
  SourceLoc Loc(uint32_t file_id, uint32_t byte_offset) const {
    return SourceLoc{files_[file_id].base + byte_offset};
  }
  uint32_t FileOf(SourceLoc loc) const;
  uint32_t ByteOffset(SourceLoc loc) const { return loc.offset - files_[FileOf(loc)].base; }
  PresumedLoc Presumed(SourceLoc loc) const;
  /// The text of line `line` (1-based) of the file, without its newline.
  std::string_view LineText(uint32_t file_id, uint32_t line) const;
  std::string_view Text(SourceRange range) const;

 private:
  struct File {
    std::string path;
    std::string contents;
    uint32_t base = 0;
    std::vector<uint32_t> line_starts;
    uint32_t hidden_lines = 0;  // lines before the visible part
    uint32_t visible_begin = 0;
    uint32_t visible_end = UINT32_MAX;
  };
  std::vector<File> files_;
  uint32_t next_base_ = 1;
};

}  // namespace tmc
