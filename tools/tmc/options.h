// Command-line options of the tmc driver.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tmc::driver {

/// -lineinfo: line tables only; -g: full debug information.
enum class DebugInfo { None, LineTables, Full };

struct Options {
  std::string command = "compile";  // compile | run | mapping | tune | db | lib
  std::vector<std::string> inputs;
  std::string emit = "check";       // check | ast
  std::string output;               // -o; empty: stdout
  std::vector<std::string> include_dirs;
  std::map<std::string, int64_t> defines;
  std::set<std::string> defines_scope;  // tmc lib: the kernels -D applies to (empty: all)
  std::map<std::string, std::vector<int64_t>> define_lists;  // -D NAME=V1,V2 (--all-candidates)
  std::string stdlib_dir;
  bool verify_diagnostics = false;
  bool split_input_file = false;
  bool parse_only = false;
  bool warnings_as_errors = false;
  bool no_warnings = false;
  std::set<std::string> disabled_warnings;  // -Wno-FLAG
  unsigned error_limit = 20;
  std::optional<bool> color;                // -f[no-]color-diagnostics; unset: when stderr is a terminal
  // lowering and code generation
  std::set<std::string> print_after;
  bool print_after_all = false;
  std::string stop_after;
  bool verify_each = false;
  bool ptxas_verbose = false;  // -v
  int opt_level = 3;           // -O0 .. -O3
  bool time_report = false;    // -ftime-report
  bool all_candidates = false; // --all-candidates: every candidate of the parameter space, -o DIR
  int jobs = 0;                // -j N: threads for --all-candidates (0: one per core)
  bool fp_contract = true;     // -ffp-contract=fast (default) | off
  int index_bits = 32;         // -findex-bits=32 (default) | 64: offsets into global tensors on the GPU
  DebugInfo debug_info = DebugInfo::None;
  std::string arch = "sm_80";
  int sm = 80;
  bool no_fuse = false;   // --no-fuse: one kernel per graph operation
  std::string op;         // --op NAME: the op's automatic kernel
  std::string op_source;  // that kernel's .tm text (made by the driver, not an option)
  std::string graph;      // --graph NAME: compile (tmc run: check) the graph's kernels
  // Made by the driver for --graph: the kernels in launch order, each with
  // the graph values its parameters bind (types "f16[M, 768]", and names
  // or the literal text of scalars); the launch plan; the modules the
  // rewritten kernels need.
  struct GraphKernel {
    std::string name;
    std::vector<std::string> arg_types, arg_values;
    // Copies of the kernel for other compile-time values, chosen at launch
    // by their conditions (`where TPR == 32 && C <= 1024`); with `name`.
    std::vector<std::string> alternatives;
  };
  std::vector<GraphKernel> graph_kernels;
  std::string graph_plan;
  // Compile-time values of generated kernels, by kernel (the alternatives).
  std::map<std::string, std::map<std::string, int64_t>> kernel_defines;
  std::vector<std::string> main_imports;
  // tmc run
  std::string kernel;
  std::map<std::string, int64_t> shapes;  // --shape M=128,N=64
  std::string target = "cpu";
  uint64_t seed = 1;
  bool check_bounds = false;
  bool check_races = false;
  bool bench = false;
  double timeout = 5;     // --timeout SECONDS: per block on the CPU executor; 0: none
  std::string save_case;  // --save-case DIR: write a GPU replay case
  std::map<std::string, std::string> args;  // --arg NAME=VALUE: scalar arguments
  std::optional<double> rtol, atol;         // --rtol / --atol (default: per output type)
  std::string init_output = "nan";          // --init-output=nan|zero
  std::string profile;                      // --profile[=text|json]; empty: no profile
  // the tuning database and the compile cache (docs/tuning.md)
  std::string db_path;          // --db PATH; empty: TMC_TUNING_DB or ~/.cache/tmc/tuning.db
  bool no_tuning_db = false;    // --no-tuning-db: compile with -D values and defaults only
  std::optional<bool> cache;    // --cache / --no-cache; unset: on for run and tune, off for a compile
  // tmc tune
  int shard_index = 0, shard_count = 1;   // --shard I/N
  std::string plan_file;                  // --plan FILE: kernels x shapes to tune
  std::map<std::string, int64_t> check_shapes;  // --check-shape: the CPU check's shape
  // Where each compile-time parameter of a kernel came from: "-D",
  // "tuned (...)" or "default" (--emit=meta says it); made by the driver.
  std::map<std::string, std::map<std::string, std::string>> param_sources;
  // tmc lib (docs/deploy.md)
  std::vector<std::string> lib_archs;    // --arch sm_80,sm_90a
  std::vector<std::string> lib_kernels;  // --kernel K (repeatable)
  std::vector<std::string> lib_graphs;   // --graph G (repeatable)
  bool lib_shared = false;               // --shared: also libNAME.so
  bool lib_keep_source = false;          // --keep-source: keep NAME.c
  bool lib_cpu = false;                  // --cpu: host-compiled kernels for CPU contexts
  std::string depfile;                   // --depfile FILE: the files read, for build systems
  std::string runtime_dir;               // --runtime-dir DIR: tmc_runtime.h and libtmc_runtime
  // tmc mapping
  std::optional<int64_t> worker;
  std::optional<int64_t> threads;
  bool grid = false;
};

/// Parses argv. On error, prints a message to stderr and returns false.
/// `exit_now` is set for --help and --version (already printed).
bool ParseOptions(int argc, char** argv, Options* options, bool* exit_now);

}  // namespace tmc::driver
