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

std::optional<std::vector<std::pair<std::string, std::string>>> SplitAssignments(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> items;
  if (text.empty()) return items;
  for (size_t start = 0;;) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    items.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

std::optional<Shape> ParseShapeText(const std::string& text) {
  auto items = SplitAssignments(text);
  if (!items) return std::nullopt;
  Shape s;
  for (const auto& [name, value] : *items) {
    int64_t v = 0;
    const char* b = value.data();
    const char* e = value.data() + value.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e || v <= 0 || !s.emplace(name, v).second) return std::nullopt;
  }
  return s;
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
