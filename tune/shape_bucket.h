// Shapes as the tuning database keys them: the exact shape, and a bucket
// of shapes (each dimension rounded up to a power of two) so that a tuned
// result also serves nearby shapes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tmc::tune {

/// Shape symbols by name (`M=4096`): sorted, so that texts compare equal.
using Shape = std::map<std::string, int64_t>;

/// "A=1,B=x" as its (name, value) pairs, in order; nullopt when an item
/// has no name or no '=' (an empty text: none).
std::optional<std::vector<std::pair<std::string, std::string>>> SplitAssignments(const std::string& text);

/// "K=4096,M=4096,N=4096" (names in order).
std::string ShapeText(const Shape& s);

/// The inverse of ShapeText (also accepts an empty text: no symbols);
/// nullopt for anything else.
std::optional<Shape> ParseShapeText(const std::string& text);

/// Each dimension rounded up to a power of two: M=1000 -> M=1024.
Shape PowerOfTwoBucket(const Shape& s);

/// How far apart two shapes are: the sum over dimensions of
/// |log2 a - log2 b|; infinity when they name different symbols.
double ShapeDistance(const Shape& a, const Shape& b);

}  // namespace tmc::tune
