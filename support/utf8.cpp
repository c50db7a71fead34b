// A strict UTF-8 decoder: the ANTLR runtime would throw or misbehave on bad
// bytes, so the frontend validates before lexing.
#include "support/utf8.h"

namespace tmc {

static int SequenceLength(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}

std::optional<size_t> FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int len = SequenceLength(c);
    if (len == 0 || i + len > s.size()) return i;
    for (int k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i + k;
    unsigned char c1 = static_cast<unsigned char>(len > 1 ? s[i + 1] : 0);
    if (c == 0xE0 && c1 < 0xA0) return i;  // overlong
    if (c == 0xED && c1 >= 0xA0) return i;  // surrogate
    if (c == 0xF0 && c1 < 0x90) return i;  // overlong
    if (c == 0xF4 && c1 >= 0x90) return i;  // > U+10FFFF
    i += len;
  }
  return std::nullopt;
}

uint32_t DecodeUtf8(std::string_view s, size_t& pos) {
  unsigned char c = static_cast<unsigned char>(s[pos]);
  int len = SequenceLength(c);
  if (len <= 1) {
    ++pos;
    return c;
  }
  uint32_t cp = c & (0x7F >> len);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[pos + k]) & 0x3F);
  pos += len;
  return cp;
}

CodePointMap::CodePointMap(std::string_view s) : size_(static_cast<uint32_t>(s.size())) {
  bool ascii = true;
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  if (ascii) return;
  size_t pos = 0;
  while (pos < s.size()) {
    byte_of_.push_back(static_cast<uint32_t>(pos));
    DecodeUtf8(s, pos);
  }
}

uint32_t CodePointMap::ByteOffset(size_t i) const {
  if (byte_of_.empty()) return static_cast<uint32_t>(std::min<size_t>(i, size_));
  return i < byte_of_.size() ? byte_of_[i] : size_;
}

}  // namespace tmc
