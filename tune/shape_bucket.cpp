#include "tune/shape_bucket.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace tmc::tune {

std::string ShapeText(const Shape& s) {
  std::string text;
  for (const auto& [name, value] : s) text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text;
}

std::optional<Shape> ParseShapeText(const std::string& text) {
  Shape s;
  if (text.empty()) return s;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    int64_t v = 0;
    const char* b = item.data() + eq + 1;
    const char* e = item.data() + item.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e || v <= 0 || !s.emplace(item.substr(0, eq), v).second) return std::nullopt;
    if (comma == std::string::npos) return s;
    start = comma + 1;
  }
}

Shape PowerOfTwoBucket(const Shape& s) {
  Shape b;
  for (const auto& [name, value] : s) {
    int64_t p = 1;
    while (p < value && p < (int64_t{1} << 62)) p *= 2;
    b[name] = p;
  }
  return b;
}

double ShapeDistance(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double d = 0;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first) return std::numeric_limits<double>::infinity();
    d += std::fabs(std::log2(static_cast<double>(ia->second)) - std::log2(static_cast<double>(ib->second)));
  }
  return d;
}

}  // namespace tmc::tune
