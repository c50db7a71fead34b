# lit configuration of tmc's tests: one folder per stage, FileCheck and
# --verify-diagnostics; the unit tests run through unit/lit.cfg.py.
import os
import lit.formats

config.name = "tmc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tm", ".test"]
config.excludes = ["Inputs", "unit", "CMakeLists.txt", "run_tests.py", "expect_exit.py", "fuzz_frontend.py",
                   "ptxas_verify.py", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.tmc_obj_root

config.environment["PATH"] = os.pathsep.join(
    [config.tmc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.environment["TMC_STDLIB_DIR"] = os.path.join(config.tmc_source_dir, "stdlib")
# Every diagnostic kind emitted during the run is logged here; run_tests.py
# then checks that each registered kind was exercised by some test.
log = os.environ.get("TMC_DIAGNOSTIC_LOG")
if log:
    config.environment["TMC_DIAGNOSTIC_LOG"] = log

# The IR verifier runs after every pass of every compilation in the suite,
# release build included (ir/transforms/pipeline.cpp): a pass that breaks
# the IR fails the test that reaches it, not only in debug builds.
config.environment["TMC_VERIFY_EACH"] = "1"

# The tuning database and the compile cache never come from the user's
# home: a test names its database with --db; the default one (which every
# compile would consult) does not exist, and the cache is the build's own.
# The tuner ranks by its static model even where a GPU is present, so that
# its tests are deterministic (REQUIRES: cuda-gpu tests unset this).
config.environment["TMC_TUNING_DB"] = os.path.join(config.tmc_obj_root, "no-such-dir", "tuning.db")
config.environment["TMC_CACHE_DIR"] = os.path.join(config.tmc_obj_root, "kernel-cache")
config.environment["TMC_TUNE_NO_GPU"] = "1"

config.substitutions.append(("%tmc", os.path.join(config.tmc_tools_dir, "tmc")))
config.substitutions.append(("%expect-exit", config.python + " " + os.path.join(config.tmc_source_dir, "test", "expect_exit.py")))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%examples", os.path.join(config.tmc_source_dir, "examples")))
config.substitutions.append(("%stdlib", os.path.join(config.tmc_source_dir, "stdlib")))
config.substitutions.append(("%source-root", config.tmc_source_dir))
# The build tree (cmake --install of it, the runtime's libraries) and the
# runtime's headers, for the deployment tests.
config.substitutions.append(("%build-root", config.tmc_build_root))
config.substitutions.append(("%runtime-include", os.path.join(config.tmc_source_dir, "runtime")))

# CUDA tools: PTX in tests is assembled by ptxas, CUDA C compiled by nvcc
# (as LLVM's NVPTX tests use %ptxas-verify). Tests that need them say
# REQUIRES: ptxas / nvcc and are skipped cleanly where CUDA is absent.
cuda_bin = "/usr/local/cuda/bin"
if os.path.exists(os.path.join(cuda_bin, "ptxas")):
    config.available_features.add("ptxas")
if os.path.exists(os.path.join(cuda_bin, "nvcc")):
    config.available_features.add("nvcc")
config.substitutions.append(("%ptxas-verify", config.python + " " +
                             os.path.join(config.tmc_source_dir, "test", "ptxas_verify.py")))
config.substitutions.append(("%nvcc", os.path.join(cuda_bin, "nvcc") + " -Werror all-warnings -c"))

# A GPU and its driver: tests that run kernels on it say REQUIRES: cuda-gpu
# and are skipped cleanly elsewhere.
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-gpu")
except OSError:
    pass

# The Python package's tests run with an interpreter that has NumPy,
# pytest and PyTorch: Debian's (/usr/bin/python3, where python3-numpy,
# python3-pytest and python3-torch install), which may not be the python3
# first on the PATH (a pyenv one, say). Features: python-numpy,
# python-torch; %pkg-python runs that interpreter with build/python first
# on its path, %numpy-python without it.
import subprocess
for candidate in ["/usr/bin/python3", config.python]:
    if not os.path.exists(candidate):
        continue
    probe = subprocess.run([candidate, "-c", "import numpy, pytest"], capture_output=True)
    if probe.returncode != 0:
        continue
    config.available_features.add("python-numpy")
    if subprocess.run([candidate, "-c", "import torch"], capture_output=True).returncode == 0:
        config.available_features.add("python-torch")
    config.substitutions.append(("%pkg-python", "env PYTHONPATH=" + os.path.join(config.tmc_build_root, "python") +
                                 " PYTHONDONTWRITEBYTECODE=1 " + candidate))
    config.substitutions.append(("%numpy-python", "env PYTHONDONTWRITEBYTECODE=1 " + candidate))
    break
