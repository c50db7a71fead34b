#include "tune/compile_cache.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/SHA256.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace tmc::tune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMagic = "tmc-cache 1";

}  // namespace

std::string CompileCache::DefaultDir() {
  if (const char* p = std::getenv("TMC_CACHE_DIR"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "tmc" / "kernels").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".cache" / "tmc" / "kernels").string();
}

std::string CompileCache::Digest(const std::string& text) {
  auto hash = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (uint8_t b : hash) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string CompileCache::PathOf(const std::string& key) const {
  return (fs::path(dir_) / key.substr(0, 2) / key).string();
}

CompileCache::Lookup CompileCache::Get(const std::string& key, std::string* payload) const {
  std::string path = PathOf(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Lookup::Miss;
  std::string magic, digest, size_line;
  bool ok = std::getline(in, magic) && std::getline(in, digest) && std::getline(in, size_line) && magic == kMagic;
  if (ok) {
    std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ok = std::to_string(body.size()) == size_line && Digest(body) == digest;
    if (ok) {
      *payload = std::move(body);
      return Lookup::Hit;
    }
  }
  std::error_code ec;
  fs::remove(path, ec);
  return Lookup::Corrupt;
}

bool CompileCache::Put(const std::string& key, const std::string& payload, std::string* error) const {
  std::string path = PathOf(key);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return *error = "cannot create the cache directory '" + fs::path(path).parent_path().string() + "': " + ec.message(), false;
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(reinterpret_cast<uintptr_t>(&payload));
  {
    std::ofstream out(tmp, std::ios::binary);
    out << kMagic << "\n" << Digest(payload) << "\n" << payload.size() << "\n";
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    if (!out.flush()) {
      fs::remove(tmp, ec);
      return *error = "cannot write the cache entry '" + tmp + "'", false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return *error = "cannot move the cache entry into place at '" + path + "'", false;
  }
  return true;
}

}  // namespace tmc::tune
