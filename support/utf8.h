// UTF-8 validation and code-point/byte offset conversion for the lexer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tmc {

/// Byte offset of the first byte that does not start or continue a valid
/// UTF-8 sequence (overlong forms, surrogates and > U+10FFFF are invalid).
std::optional<size_t> FindInvalidUtf8(std::string_view text);

/// Decodes the code point at `pos` of valid UTF-8; advances `pos`.
uint32_t DecodeUtf8(std::string_view text, size_t& pos);

/// Maps code-point indices (ANTLR's token offsets) to byte offsets. For pure
/// ASCII text the map is the identity and stores nothing.
class CodePointMap {
 public:
  explicit CodePointMap(std::string_view valid_utf8);
  uint32_t ByteOffset(size_t code_point_index) const;

 private:
  std::vector<uint32_t> byte_of_;  // empty: identity
  uint32_t size_ = 0;
};

}  // namespace tmc
