// A minimal JSON reader for kernel metadata (no JSON package is available
// on the build machines, and the runtime must stay dependency-free).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tmc::runtime {

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool b = false;
  double number = 0;
  std::string str;
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  const Json* Get(const std::string& key) const;
};

/// Parses `text`; on failure returns false with `error` (and an offset).
bool ParseJson(const std::string& text, Json* out, std::string* error);

}  // namespace tmc::runtime
