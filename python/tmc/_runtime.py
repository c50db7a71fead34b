"""ctypes bindings of the tmc runtime's C API (runtime/tmc_runtime.h).

The package talks to the runtime through its stable C ABI rather than a
compiled extension: nothing to build per Python version, and the same
libtmc_runtime.so.0 that C and C++ applications link (docs/deploy.md).
"""

import ctypes
import os
import threading

MAX_RANK = 8
DEVICE_CPU = -1

# tmc_dtype, in the order of runtime/tmc_runtime.h.
DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"]
DTYPE_BYTES = {"bool": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
               "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
FLOAT_DTYPES = {"f16", "bf16", "f32", "f64"}

STATUS_SIGNATURE = 5
STATUS_NAMES = ["success", "no CUDA driver", "no such device", "CUDA error", "invalid argument",
                "arguments do not match the kernel", "not found", "invalid kernel metadata",
                "kernel fault on the CPU executor"]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("shape", ctypes.c_int64 * MAX_RANK)]


class _Value(ctypes.Union):
    _fields_ = [("i", ctypes.c_int64), ("f", ctypes.c_double)]


class Arg(ctypes.Structure):
    _fields_ = [("is_tensor", ctypes.c_int), ("tensor", Tensor), ("dtype", ctypes.c_int), ("value", _Value)]


_P = ctypes.c_void_p
_lib = None
LOCK = threading.RLock()  # guards the library, the contexts and the handles cached per device


def _package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def runtime_library_candidates():
    """Where libtmc_runtime.so.0 may be: $TMC_RUNTIME_LIB, the build tree
    (build/python/tmc -> build/runtime), an install prefix
    (PREFIX/lib/python3/dist-packages/tmc -> PREFIX/lib)."""
    here = _package_dir()
    out = []
    if os.environ.get("TMC_RUNTIME_LIB"):
        out.append(os.environ["TMC_RUNTIME_LIB"])
    out.append(os.path.join(here, "..", "..", "runtime", "libtmc_runtime.so.0"))
    out.append(os.path.join(here, "..", "..", "..", "libtmc_runtime.so.0"))
    out.append(os.path.join(here, "..", "..", "..", "..", "lib", "libtmc_runtime.so.0"))
    return [os.path.normpath(p) for p in out]


def lib():
    """The runtime library, loaded once (RTLD_GLOBAL: the libraries tmc lib
    builds use this copy)."""
    global _lib
    if _lib is not None:
        return _lib
    with LOCK:
        return _lib if _lib is not None else _load()


def _load():
    global _lib
    tried = runtime_library_candidates()
    path = next((p for p in tried if os.path.exists(p)), None)
    try:
        # Else the loader's search path (an install in /usr: lib/<triplet>).
        l = ctypes.CDLL(path or "libtmc_runtime.so.0", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        raise ImportError("tmc: libtmc_runtime.so.0 not found (looked in: " + ", ".join(tried) +
                          " and the loader's path); build tmc (bash scripts/setup.sh) or set TMC_RUNTIME_LIB") from None
    sigs = {
        "tmc_runtime_version": (ctypes.c_char_p, []),
        "tmc_last_error": (ctypes.c_char_p, []),
        "tmc_init": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_P)]),
        "tmc_context_is_cpu": (ctypes.c_int, [_P]),
        "tmc_device_name": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t]),
        "tmc_module_get_graph": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
        "tmc_graph_launch": (ctypes.c_int, [_P, ctypes.POINTER(Arg), ctypes.c_int, ctypes.c_uint64, ctypes.c_size_t, _P]),
        "tmc_graph_workspace_size": (ctypes.c_int, [_P, ctypes.POINTER(Arg), ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]),
        "tmc_stream_wrap": (ctypes.c_int, [_P, _P, ctypes.POINTER(_P)]),
        "tmc_stream_destroy": (None, [_P]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(l, name)
        f.restype = res
        f.argtypes = args
    _lib = l
    return l


def last_error():
    return lib().tmc_last_error().decode("utf-8", "replace")


_contexts = {}


def context(device):
    """The context of `device` (DEVICE_CPU or a CUDA device number),
    created on first use and kept for the life of the process."""
    with LOCK:
        return _context_locked(device)


def _context_locked(device):
    if device not in _contexts:
        ctx = _P()
        status = lib().tmc_init(device, ctypes.byref(ctx))
        if status != 0:
            from . import Error
            where = "the CPU executor" if device == DEVICE_CPU else "CUDA device %d" % device
            raise Error("tmc: cannot open %s: %s" % (where, last_error()))
        _contexts[device] = ctx
    return _contexts[device]
