// JSON string literals, for the JSON tmc writes by hand (kernel metadata,
// the --all-candidates index).
#pragma once

#include <string>
#include <string_view>

namespace tmc {

/// `s` quoted and escaped per RFC 8259.
std::string JsonString(std::string_view s);

}  // namespace tmc
