// Recursive descent over RFC 8259 JSON, with a depth limit.
#include "runtime/json.h"

#include <cstdlib>

namespace tmc::runtime {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  bool Parse(Json* out, std::string* error) {
    if (!Value(out, 0) || (Skip(), pos_ != t_.size())) {
      *error = (error_.empty() ? std::string("unexpected text") : error_) + " at offset " + std::to_string(pos_);
      return false;
    }
    return true;
  }

 private:
  void Skip() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\n' || t_[pos_] == '\r' || t_[pos_] == '\t')) ++pos_;
  }
  bool Fail(const char* why) {
    error_ = why;
    return false;
  }
  bool Literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (t_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  bool String(std::string* out) {
    if (pos_ >= t_.size() || t_[pos_] != '"') return Fail("expected a string");
    ++pos_;
    while (pos_ < t_.size() && t_[pos_] != '"') {
      char c = t_[pos_++];
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= t_.size()) return Fail("unterminated escape");
      char e = t_[pos_++];
      switch (e) {
        case 'n': *out += '\n'; break;
        case 't': *out += '\t'; break;
        case 'r': *out += '\r'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > t_.size()) return Fail("short \\u escape");
          unsigned v = static_cast<unsigned>(std::strtoul(t_.substr(pos_, 4).c_str(), nullptr, 16));
          pos_ += 4;
          if (v < 0x80) *out += static_cast<char>(v);
          else if (v < 0x800) { *out += static_cast<char>(0xC0 | (v >> 6)); *out += static_cast<char>(0x80 | (v & 0x3F)); }
          else { *out += static_cast<char>(0xE0 | (v >> 12)); *out += static_cast<char>(0x80 | ((v >> 6) & 0x3F)); *out += static_cast<char>(0x80 | (v & 0x3F)); }
          break;
        }
        default: *out += e;
      }
    }
    if (pos_ >= t_.size()) return Fail("unterminated string");
    ++pos_;
    return true;
  }

  bool Value(Json* out, int depth) {
    if (depth > 64) return Fail("nesting too deep");
    Skip();
    if (pos_ >= t_.size()) return Fail("unexpected end");
    char c = t_[pos_];
    if (c == '{') {
      out->kind = Json::Kind::Object;
      ++pos_;
      Skip();
      if (pos_ < t_.size() && t_[pos_] == '}') return ++pos_, true;
      while (true) {
        Skip();
        std::string key;
        if (!String(&key)) return false;
        Skip();
        if (pos_ >= t_.size() || t_[pos_] != ':') return Fail("expected ':'");
        ++pos_;
        if (!Value(&out->fields[key], depth + 1)) return false;
        Skip();
        if (pos_ < t_.size() && t_[pos_] == ',') { ++pos_; continue; }
        if (pos_ < t_.size() && t_[pos_] == '}') return ++pos_, true;
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      out->kind = Json::Kind::Array;
      ++pos_;
      Skip();
      if (pos_ < t_.size() && t_[pos_] == ']') return ++pos_, true;
      while (true) {
        out->items.emplace_back();
        if (!Value(&out->items.back(), depth + 1)) return false;
        Skip();
        if (pos_ < t_.size() && t_[pos_] == ',') { ++pos_; continue; }
        if (pos_ < t_.size() && t_[pos_] == ']') return ++pos_, true;
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      out->kind = Json::Kind::String;
      return String(&out->str);
    }
    if (Literal("true")) { out->kind = Json::Kind::Bool; out->b = true; return true; }
    if (Literal("false")) { out->kind = Json::Kind::Bool; return true; }
    if (Literal("null")) { out->kind = Json::Kind::Null; return true; }
    char* end = nullptr;
    out->number = std::strtod(t_.c_str() + pos_, &end);
    if (end == t_.c_str() + pos_) return Fail("unexpected character");
    out->kind = Json::Kind::Number;
    pos_ = static_cast<size_t>(end - t_.c_str());
    return true;
  }

  const std::string& t_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const Json* Json::Get(const std::string& key) const {
  auto it = fields.find(key);
  return it == fields.end() ? nullptr : &it->second;
}

bool ParseJson(const std::string& text, Json* out, std::string* error) { return Parser(text).Parse(out, error); }

}  // namespace tmc::runtime
