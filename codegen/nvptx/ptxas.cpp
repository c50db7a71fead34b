// ptxas is run as a child process on temporary files; nothing is passed
// through a shell, so paths need no quoting.
#include "codegen/nvptx/ptxas.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace tmc::codegen {
namespace {

namespace fs = std::filesystem;

std::string FindPtxas() {
  if (const char* env = std::getenv("TMC_PTXAS")) return env;
  if (fs::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && fs::exists(fs::path(dir) / "ptxas")) return (fs::path(dir) / "ptxas").string();
  }
  return "";
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

PtxasResult AssemblePtx(const std::string& ptx, const std::string& arch, bool verbose) {
  PtxasResult r;
  std::string ptxas = FindPtxas();
  if (ptxas.empty()) {
    r.error = "ptxas not found: cubins and resource reports (--emit=cubin, -v) need ptxas from the CUDA toolkit: "
              "install the toolkit at /usr/local/cuda, put ptxas on PATH, or set TMC_PTXAS to it";
    return r;
  }
  // A directory of its own per call: several threads (--all-candidates)
  // run ptxas at once.
  std::error_code ec;
  std::string pattern = (fs::temp_directory_path(ec) / "tmc-ptxas-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    r.error = std::string("cannot create a temporary directory for ptxas: ") + std::strerror(errno);
    return r;
  }
  fs::path dir = pattern;
  fs::path in = dir / "kernel.ptx", out = dir / "kernel.cubin", log = dir / "ptxas.log";
  std::ofstream(in, std::ios::binary) << ptx;

  std::vector<std::string> args = {ptxas, "-arch=" + arch, in.string(), "-o", out.string()};
  if (verbose) args.insert(args.begin() + 1, "-v");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid;
  int spawn = posix_spawn(&pid, ptxas.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawn != 0) {
    r.error = "cannot run " + ptxas;
  } else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.error = "ptxas failed:\n" + ReadAll(log);
  } else {
    r.ok = true;
    r.cubin = ReadAll(out);
    r.report = ReadAll(log);
  }
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace tmc::codegen
