// A content-addressed cache of compiled kernels (PTX, cubins): one file
// per entry, named by the SHA-256 of everything the output depends on
// (docs/tuning.md). Entries carry the digest of their contents, so that a
// truncated or corrupt file is detected, removed and rebuilt, never used.
#pragma once

#include <string>

namespace tmc::tune {

class CompileCache {
 public:
  explicit CompileCache(std::string dir) : dir_(std::move(dir)) {}

  /// $TMC_CACHE_DIR, else $XDG_CACHE_HOME/tmc/kernels, else
  /// ~/.cache/tmc/kernels.
  static std::string DefaultDir();
  /// The SHA-256 of `text`, as 64 hex digits.
  static std::string Digest(const std::string& text);

  enum class Lookup { Hit, Miss, Corrupt };
  /// The entry of `key` (a Digest); a corrupt entry is removed.
  Lookup Get(const std::string& key, std::string* payload) const;
  /// Writes the entry atomically (a temporary file renamed into place), so
  /// that concurrent writers and readers never see half an entry.
  bool Put(const std::string& key, const std::string& payload, std::string* error) const;

  const std::string& dir() const { return dir_; }
  std::string PathOf(const std::string& key) const;

 private:
  std::string dir_;
};

}  // namespace tmc::tune
