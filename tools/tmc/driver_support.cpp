#include "tools/tmc/driver_support.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

extern char** environ;

namespace tmc::driver {

std::string SelfPath() {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("tmc") : p.string();
}

ProcessResult RunProcess(const std::vector<std::string>& argv, bool merged) {
  ProcessResult r;
  char out_name[] = "/tmp/tmc-out-XXXXXX", err_name[] = "/tmp/tmc-err-XXXXXX";
  int out_fd = mkstemp(out_name), err_fd = merged ? out_fd : mkstemp(err_name);
  if (out_fd < 0 || err_fd < 0) {
    if (out_fd >= 0) close(out_fd), unlink(out_name);
    r.err = "cannot create a temporary file";
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    r.err = std::string("cannot start ") + args[0] + ": " + std::strerror(rc);
  }
  auto slurp = [](const char* name) {
    std::ifstream in(name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  r.out = slurp(out_name);
  close(out_fd);
  unlink(out_name);
  if (!merged) {
    r.err += slurp(err_name);
    close(err_fd);
    unlink(err_name);
  }
  return r;
}

CompileOptions FrontendOptions(const Options& o) {
  CompileOptions copts;
  copts.include_dirs = o.include_dirs;
  copts.stdlib_dir = o.stdlib_dir;
  copts.check.defines = o.defines;
  copts.check.defines_kernel = o.kernel;
  copts.check.defines_scope = o.defines_scope;
  copts.check.kernel_defines = o.kernel_defines;
  copts.main_appendix = o.op_source;
  copts.main_imports = o.main_imports;
  return copts;
}

void ApplyDiagnosticOptions(const Options& o, DiagnosticEngine& diags) {
  diags.SetWarningsAsErrors(o.warnings_as_errors);
  diags.SetSuppressWarnings(o.no_warnings);
  for (const std::string& flag : o.disabled_warnings) diags.DisableWarning(flag);
  diags.SetErrorLimit(o.error_limit);
}

bool WriteFile(const std::string& path, const std::string& bytes, std::string* error) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) *error = "cannot write '" + path + "': " + std::strerror(errno);
  return static_cast<bool>(f);
}

double RandomInputValue(ScalarKind k, std::mt19937_64& rng, std::uniform_real_distribution<double>& uniform) {
  if (IsFloat(k)) {
    double v = uniform(rng);
    return v >= 0 ? v + 0.0625 : v - 0.0625;
  }
  if (k == ScalarKind::Bool) return 1.0;
  int64_t v = static_cast<int64_t>(rng() % 8) + 1;
  return static_cast<double>(IsUnsigned(k) || rng() % 2 ? v : -v);
}

// Every combination of the parameters' values: a -D value or the
// candidate list; a parameter with neither keeps its default (no entry).
std::vector<std::vector<std::pair<std::string, int64_t>>> CandidateSpace(const sema::KernelInstance& k, const Options& o) {
  std::vector<std::vector<std::pair<std::string, int64_t>>> space = {{}};
  for (const auto& [name, values] : k.ct_candidates) {
    std::vector<int64_t> choices = values;
    if (auto it = o.define_lists.find(name); it != o.define_lists.end()) choices = it->second;
    else if (auto it = o.defines.find(name); it != o.defines.end()) choices = {it->second};
    if (choices.empty()) continue;
    std::vector<std::vector<std::pair<std::string, int64_t>>> next;
    for (const auto& partial : space)
      for (int64_t v : choices) {
        next.push_back(partial);
        next.back().emplace_back(name, v);
      }
    space = std::move(next);
  }
  return space;
}

int ChangedParams(const sema::KernelInstance& k, const std::vector<std::pair<std::string, int64_t>>& combo) {
  int n = 0;
  for (const auto& [p, v] : combo) {
    auto it = std::find_if(k.ct_values.begin(), k.ct_values.end(), [&](const auto& cv) { return cv.first == p; });
    if (it == k.ct_values.end() || it->second != v) ++n;
  }
  return n;
}

std::string UnknownScalarArgError(const std::string& owner, const std::vector<std::string>& scalars,
                                  const std::map<std::string, std::string>& args) {
  for (const auto& [name, text] : args) {
    if (std::find(scalars.begin(), scalars.end(), name) != scalars.end()) continue;
    std::string list;
    for (const std::string& s : scalars) list += (list.empty() ? "" : ", ") + s;
    return owner + " has no scalar parameter '" + name + "'" +
           (list.empty() ? std::string(" (it has none)") : " (its scalar parameters: " + list + ")");
  }
  return "";
}

}  // namespace tmc::driver
