"""tmc from Python: load a .tm module, call its kernels and graphs.

    import tmc
    m = tmc.load("kernels.tm", arch="sm_90a")
    y = m.rms_norm_warp(x, g)        # outputs allocated when not given
    m.rms_norm_warp(x, g, y)         # or written into the caller's
    out = m.mlp(x, w, b)             # a graph: its kernels, one call

NumPy arrays and PyTorch CPU tensors run on the CPU executor (the kernels
compiled for the host, with the GPU's semantics); PyTorch CUDA tensors and
objects with __cuda_array_interface__ (or DLPack, through PyTorch) run on
the GPU, on the current stream. docs/deploy.md.
"""

import ctypes
import os
import subprocess

from . import _build, _runtime
from ._runtime import DEVICE_CPU

__all__ = ["load", "Module", "Function", "Error", "SignatureError", "CheckError", "run_checked", "runtime_version"]


class Error(RuntimeError):
    """A failure of the compiler or the runtime (its message says which)."""


class SignatureError(Error, ValueError):
    """Arguments that do not match a kernel's or graph's parameters."""


class CheckError(Error):
    """tmc run's checker found a bug (out-of-bounds access, race, ...)."""


def runtime_version():
    return _runtime.lib().tmc_runtime_version().decode()


# Element types of NumPy and PyTorch, by tmc name.
_NUMPY = {"bool": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
          "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16", "f32": "float32", "f64": "float64"}
_TORCH = {"bool": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
          "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}
# __cuda_array_interface__ typestr (without the byte order) -> tmc name.
_TYPESTR = {"b1": "bool", "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64", "u1": "u8", "u2": "u16", "u4": "u32",
            "u8": "u64", "f2": "f16", "f4": "f32", "f8": "f64"}


# The values of the integer types (scalars are checked, never wrapped).
_INT_RANGE = {"bool": (0, 1), "i8": (-2**7, 2**7 - 1), "i16": (-2**15, 2**15 - 1), "i32": (-2**31, 2**31 - 1),
              "i64": (-2**63, 2**63 - 1), "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1), "u32": (0, 2**32 - 1),
              "u64": (0, 2**64 - 1)}


def _torch():
    import sys
    return sys.modules.get("torch")


class _Array:
    """One tensor argument as the runtime sees it: address, dtype, shape,
    where it lives, and the object to return."""

    def __init__(self, obj, name, where):
        self.obj = obj
        torch = _torch()
        if torch is not None and isinstance(obj, torch.Tensor):
            self.kind = "torch"
            dt = {v: k for k, v in _TORCH.items()}.get(str(obj.dtype).replace("torch.", ""))
            if dt is None:
                raise SignatureError("%s: argument '%s' has dtype %s, which tmc has no type for" % (where, name, obj.dtype))
            if not obj.is_contiguous():
                raise SignatureError("%s: argument '%s' is not contiguous (strides %s); pass .contiguous()" %
                                     (where, name, tuple(obj.stride())))
            self.dtype, self.shape, self.ptr = dt, tuple(obj.shape), obj.data_ptr()
            self.device = DEVICE_CPU if obj.device.type == "cpu" else obj.device.index if obj.device.type == "cuda" else None
            if self.device is None:
                raise SignatureError("%s: argument '%s' is on device '%s'; tmc runs on 'cpu' and 'cuda'" %
                                     (where, name, obj.device))
            self.stream = None
            return
        cai = getattr(obj, "__cuda_array_interface__", None)
        if cai is not None:
            self.kind = "cai"
            dt = _TYPESTR.get(cai["typestr"][1:])
            if dt is None:
                raise SignatureError("%s: argument '%s' has typestr '%s', which tmc has no type for" %
                                     (where, name, cai["typestr"]))
            self.dtype, self.shape, self.ptr = dt, tuple(cai["shape"]), cai["data"][0]
            strides = cai.get("strides")
            if strides is not None and tuple(strides) != _contiguous_strides(self.shape, _runtime.DTYPE_BYTES[dt]):
                raise SignatureError("%s: argument '%s' is not contiguous (strides %s)" % (where, name, tuple(strides)))
            # The array's device: CuPy's and Numba's arrays say it; else the
            # current one of PyTorch, else 0.
            dev = getattr(obj, "device", None)
            self.device = getattr(dev, "id", None)
            if not isinstance(self.device, int):
                self.device = torch.cuda.current_device() if torch is not None and torch.cuda.is_available() else 0
            self.stream = cai.get("stream")
            return
        if hasattr(obj, "__dlpack__") and torch is not None and not hasattr(obj, "__array_interface__"):
            self.__init__(torch.utils.dlpack.from_dlpack(obj), name, where)
            self.obj = obj
            return
        import numpy as np
        if isinstance(obj, np.ndarray):
            self.kind = "numpy"
            dt = {v: k for k, v in _NUMPY.items()}.get(obj.dtype.name)
            if dt is None:
                raise SignatureError("%s: argument '%s' has dtype %s, which tmc has no type for" % (where, name, obj.dtype))
            if not obj.flags["C_CONTIGUOUS"]:
                raise SignatureError("%s: argument '%s' is not C-contiguous (strides %s); pass np.ascontiguousarray(...)" %
                                     (where, name, obj.strides))
            self.dtype, self.shape, self.ptr = dt, tuple(obj.shape), obj.ctypes.data
            self.device, self.stream = DEVICE_CPU, None
            return
        raise SignatureError("%s: argument '%s' must be a tensor (a NumPy array, a PyTorch tensor or an object with "
                             "__cuda_array_interface__), not %s" % (where, name, type(obj).__name__))


def _nbytes(self):
    n = _runtime.DTYPE_BYTES[self.dtype]
    for d in self.shape:
        n *= d
    return n


_Array.nbytes = _nbytes


def _contiguous_strides(shape, item):
    strides, s = [], item
    for d in reversed(shape):
        strides.append(s)
        s *= d
    return tuple(reversed(strides))


def _eval_formula(text, names):
    """A shape formula of the metadata (integers, names, + - * / %, min,
    max, parentheses) with C's integer division."""
    import ast

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in names:
                raise KeyError(n.id)
            return names[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod)):
                if b == 0:
                    raise ZeroDivisionError(text)
                q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
                return q if not isinstance(n.op, ast.Mod) else a - q * b
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("min", "max") and len(n.args) == 2:
            return (min if n.func.id == "min" else max)(ev(n.args[0]), ev(n.args[1]))
        raise ValueError("unsupported shape formula '%s'" % text)

    # As the runtime reads them: integer literals may carry a type suffix
    # (2i64), casts (i64(N)) keep the value, `/` divides integers.
    import re
    clean = re.sub(r"\b(\d+)[iu]\d+\b", r"\1", text)
    clean = re.sub(r"\b[iu](8|16|32|64)\(", "(", clean).replace("/", "//")
    try:
        tree = ast.parse(clean, mode="eval")
    except SyntaxError:
        raise ValueError("unsupported shape formula '%s'" % text) from None
    return ev(tree)


class Function:
    """A kernel or graph of a loaded module, called with its parameters as
    written in the .tm file (shape symbols come from the tensors)."""

    def __init__(self, module, part, name, params, graph, doc):
        self._module, self._part, self.name, self.params, self.is_graph = module, part, name, params, graph
        self.__name__ = name
        self.__doc__ = doc
        self._handles = {}

    @property
    def inputs(self):
        return [p for p in self.params if not p["output"]]

    @property
    def outputs(self):
        return [p for p in self.params if p["output"]]

    def __repr__(self):
        return "<tmc %s %s(%s)>" % ("graph" if self.is_graph else "kernel", self.name,
                                    ", ".join(p["name"] for p in self.params))

    def bind(self, args, kwargs):
        """The value of each parameter by name; outputs not given are None."""
        where = self.name
        values = {}
        # Inputs only (outputs allocated), or every parameter in order.
        positional = self.inputs if len(args) <= len(self.inputs) else self.params
        if len(args) > len(self.params):
            raise SignatureError("%s takes %d arguments (%s), %d given" %
                                 (where, len(self.params), ", ".join(p["name"] for p in self.params), len(args)))
        for p, a in zip(positional, args):
            values[p["name"]] = a
        for k, v in kwargs.items():
            if not any(p["name"] == k for p in self.params):
                raise SignatureError("%s has no parameter '%s' (parameters: %s)" %
                                     (where, k, ", ".join(p["name"] for p in self.params)))
            if k in values:
                raise SignatureError("%s: argument '%s' given twice" % (where, k))
            values[k] = v
        for p in self.params:
            if p["name"] not in values:
                if not p["output"]:
                    raise SignatureError("%s: missing argument '%s'" % (where, p["name"]))
                values[p["name"]] = None
        return values

    def output_shape(self, p, symbols):
        try:
            return tuple(_eval_formula(d, symbols) for d in p["shape"])
        except (ValueError, ZeroDivisionError) as e:
            raise SignatureError("%s: cannot compute the shape of output '%s': %s; pass the output" %
                                 (self.name, p["name"], e)) from None
        except KeyError as e:
            raise SignatureError("%s: cannot infer the shape of output '%s' (%s): '%s' is bound by no input; pass the "
                                 "output" % (self.name, p["name"], ", ".join(p["shape"]), e.args[0])) from None

    def __call__(self, *args, **kwargs):
        values = self.bind(args, kwargs)
        where = self.name
        arrays, symbols, bound_by, device, like, like_name, stream = {}, {}, {}, None, None, None, None
        for p in self.params:
            v = values[p["name"]]
            if p["kind"] == "tensor" and v is not None:
                a = _Array(v, p["name"], where)
                if device is None:
                    device, like, like_name = a.device, a, p["name"]
                elif a.device != device:
                    raise SignatureError("%s: argument '%s' is on %s, but '%s' is on %s" % (
                        where, p["name"], _device_name(a.device), like_name, _device_name(device)))
                if a.stream is not None and stream is None:
                    stream = a.stream
                if a.dtype != p["dtype"]:
                    raise SignatureError("%s: argument '%s' has dtype %s; the %s expects %s" % (
                        where, p["name"], a.dtype, "graph" if self.is_graph else "kernel", p["dtype"]))
                if len(a.shape) != len(p["shape"]):
                    raise SignatureError("%s: argument '%s' has rank %d (shape %s); expected %d ([%s])" % (
                        where, p["name"], len(a.shape), list(a.shape), len(p["shape"]), ", ".join(p["shape"])))
                for r, (d, n) in enumerate(zip(p["shape"], a.shape)):
                    if d.isidentifier() and d not in symbols:
                        symbols[d], bound_by[d] = n, p["name"]
                    elif d.isidentifier() and symbols[d] != n:
                        raise SignatureError("%s: argument '%s' has shape %s: dimension %d (%s) is %d, but %s = %d from "
                                             "argument '%s'" % (where, p["name"], list(a.shape), r, d, n, d, symbols[d],
                                                                bound_by[d]))
                    elif d.isdigit() and int(d) != n:
                        raise SignatureError("%s: argument '%s' has shape %s: dimension %d must be %s ([%s])" % (
                            where, p["name"], list(a.shape), r, d, ", ".join(p["shape"])))
                arrays[p["name"]] = a
            elif p["kind"] == "scalar":
                number = getattr(v, "ndim", 0) == 0 and (isinstance(v, (int, float, bool)) or hasattr(v, "__index__") or
                                                         hasattr(v, "__float__"))
                if not number:
                    raise SignatureError("%s: argument '%s' must be a number (%s), not %s" %
                                         (where, p["name"], p["dtype"], type(v).__name__))
                if p["dtype"] not in _runtime.FLOAT_DTYPES:
                    if isinstance(v, float) and not v.is_integer():
                        raise SignatureError("%s: argument '%s' is %s: %r is not an integer" % (where, p["name"], p["dtype"], v))
                    lo, hi = _INT_RANGE[p["dtype"]]
                    if not lo <= int(v) <= hi:
                        raise SignatureError("%s: argument '%s' is %s: %d is outside [%d, %d]" %
                                             (where, p["name"], p["dtype"], int(v), lo, hi))
                    symbols.setdefault(p["name"], int(v))
                    bound_by.setdefault(p["name"], p["name"])
        if device is None:
            raise SignatureError("%s: no tensor argument says where to run (give at least one tensor)" % where)
        # Outputs not given: allocated like the first tensor argument.
        made = {}
        for p in self.outputs:
            if values[p["name"]] is None:
                made[p["name"]] = _allocate(like, p["dtype"], self.output_shape(p, symbols), where, p["name"])
                arrays[p["name"]] = _Array(made[p["name"]], p["name"], where)
        # Empty tensors: when every output is empty there is nothing to
        # compute (an empty batch); otherwise a kernel cannot run (the
        # runtime needs every dimension >= 1).
        empty = [p["name"] for p in self.params if p["kind"] == "tensor" and arrays[p["name"]].nbytes() == 0]
        if empty:
            if all(arrays[p["name"]].nbytes() == 0 for p in self.outputs) and self.outputs:
                return self._results(values, made)
            raise SignatureError("%s: argument '%s' is empty (shape %s), but not every output is: tmc kernels need "
                                 "every dimension >= 1" % (where, empty[0], list(arrays[empty[0]].shape)))
        # Tensor parameters must not overlap (language.md): an output that
        # shares memory with another argument is refused.
        spans = [(p["name"], arrays[p["name"]], p["output"]) for p in self.params if p["kind"] == "tensor"]
        for i, (na, a, out_a) in enumerate(spans):
            for nb, b, out_b in spans[i + 1:]:
                if (out_a or out_b) and a.ptr < b.ptr + b.nbytes() and b.ptr < a.ptr + a.nbytes():
                    raise SignatureError("%s: arguments '%s' and '%s' share memory, and '%s' is written" %
                                         (where, na, nb, na if out_a else nb))
        rt = _runtime.lib()
        ctx = _runtime.context(device)
        c_args = (_runtime.Arg * max(1, len(self.params)))()
        for i, p in enumerate(self.params):
            a = c_args[i]
            if p["kind"] == "tensor":
                arr = arrays[p["name"]]
                a.is_tensor = 1
                a.tensor.data = arr.ptr
                a.tensor.dtype = _runtime.DTYPES.index(arr.dtype)
                a.tensor.rank = len(arr.shape)
                for r, n in enumerate(arr.shape):
                    a.tensor.shape[r] = n
            else:
                v = values[p["name"]]
                a.dtype = _runtime.DTYPES.index(p["dtype"])
                if p["dtype"] in _runtime.FLOAT_DTYPES:
                    a.value.f = float(v)
                else:
                    a.value.i = int(v)
        handle = self._handle(ctx, device) if self.is_graph else None
        s = _stream(ctx, device, stream)
        try:
            if self.is_graph:
                # A workspace of this call's own (the graph's built-in one is
                # shared by every caller), allocated like the outputs.
                size = ctypes.c_size_t(0)
                status = rt.tmc_graph_workspace_size(handle, c_args, len(self.params), ctypes.byref(size))
                workspace, address = None, 0
                if status == 0 and size.value:
                    workspace, address = _workspace(like, size.value)
                if status == 0:
                    status = rt.tmc_graph_launch(handle, c_args, len(self.params), address,
                                                 size.value if address else 0, s)
            else:
                # Through the library, which picks the tuned variant for
                # these shapes (shape-bucket dispatch).
                status = self._module._call_kernel(ctx, s, self.name.encode(), c_args, len(self.params))
        finally:
            if s:
                rt.tmc_stream_destroy(s)
        if status != 0:
            cls = SignatureError if status == _runtime.STATUS_SIGNATURE else Error
            message = _runtime.last_error()
            named = message.startswith("kernel '%s'" % self.name) or message.startswith("graph '%s'" % self.name)
            raise cls(message if named else "%s: %s" % (where, message))
        return self._results(values, made)

    def _results(self, values, made):
        """The outputs, the caller's or allocated: one, a tuple, or None."""
        results = [values[p["name"]] if values[p["name"]] is not None else made[p["name"]] for p in self.outputs]
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def _handle(self, ctx, device):
        with _runtime.LOCK:
            return self._handle_locked(ctx, device)

    def _handle_locked(self, ctx, device):
        if device not in self._handles:
            rt = _runtime.lib()
            mod = ctypes.c_void_p()
            if self._module._part_module(ctx, self._part, ctypes.byref(mod)) != 0:
                raise Error("%s: %s" % (self.name, _runtime.last_error()))
            h = ctypes.c_void_p()  # graphs only: kernels are called through the library (_call_kernel)
            if rt.tmc_module_get_graph(mod, self.name.encode(), ctypes.byref(h)) != 0:
                raise Error("%s: %s" % (self.name, _runtime.last_error()))
            self._handles[device] = h
        return self._handles[device]


def _device_name(device):
    return "the CPU" if device == DEVICE_CPU else "cuda:%d" % device


def _allocate(like, dtype, shape, where, name):
    if like.kind == "numpy":
        import numpy as np
        if dtype not in _NUMPY:
            raise SignatureError("%s: output '%s' is %s, which NumPy has no type for; pass PyTorch tensors or the output" %
                                 (where, name, dtype))
        return np.empty(shape, dtype=_NUMPY[dtype])
    torch = _torch()
    if torch is None:
        raise SignatureError("%s: cannot allocate output '%s' without PyTorch; pass it" % (where, name))
    if dtype not in _TORCH:
        raise SignatureError("%s: output '%s' is %s, which PyTorch has no type for; pass it" % (where, name, dtype))
    dev = "cpu" if like.device == DEVICE_CPU else "cuda:%d" % like.device
    return torch.empty(shape, dtype=getattr(torch, _TORCH[dtype]), device=dev)


def _workspace(like, size):
    """`size` bytes of scratch memory where `like` lives, 256-byte aligned:
    (the owning object, its address)."""
    if like.kind == "numpy" or (like.device == DEVICE_CPU and _torch() is None):
        import numpy as np
        buf = np.empty(size + 256, dtype=np.uint8)
        base = buf.ctypes.data
    elif _torch() is None:
        return None, 0  # GPU arrays without PyTorch: the graph's own (locked) workspace
    else:
        torch = _torch()
        dev = "cpu" if like.device == DEVICE_CPU else "cuda:%d" % like.device
        buf = torch.empty(size + 256, dtype=torch.uint8, device=dev)
        base = buf.data_ptr()
    return buf, (base + 255) // 256 * 256


def _stream(ctx, device, given):
    """The stream to launch on: the tensor's (__cuda_array_interface__), or
    PyTorch's current one on that device; none on the CPU."""
    if device == DEVICE_CPU:
        return None
    handle = given
    torch = _torch()
    if handle is None and torch is not None and torch.cuda.is_available():
        handle = torch.cuda.current_stream(device).cuda_stream
    if not handle:
        return None
    s = ctypes.c_void_p()
    if _runtime.lib().tmc_stream_wrap(ctx, ctypes.c_void_p(handle), ctypes.byref(s)) != 0:
        raise Error("tmc_stream_wrap: " + _runtime.last_error())
    return s


class Module:
    """A loaded .tm module: one attribute per kernel and graph."""

    def __init__(self, library, name, source):
        import json
        _runtime.lib()  # first: the library links against this copy
        self._dll = ctypes.CDLL(library)
        self.source, self.library = source, library
        count = getattr(self._dll, name + "_part_count")
        count.restype = ctypes.c_size_t
        meta = getattr(self._dll, name + "_part_metadata")
        meta.restype, meta.argtypes = ctypes.c_char_p, [ctypes.c_size_t]
        self._call_kernel = getattr(self._dll, name + "_call_kernel")
        self._call_kernel.restype = ctypes.c_int
        self._call_kernel.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_runtime.Arg),
                                      ctypes.c_int]
        self._part_module = getattr(self._dll, name + "_part_module")
        self._part_module.restype = ctypes.c_int
        self._part_module.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
        self.functions = {}
        for part in range(count()):
            doc = json.loads(meta(part).decode())
            graphs = doc.get("graphs") or []
            entries = [(g["name"], g["params"], True) for g in graphs] if graphs else \
                [(k["name"], k["params"], False) for k in doc["kernels"]]
            for fname, params, is_graph in entries:
                if fname in self.functions:
                    continue  # a tuned variant (a later part): its kernel's call chooses it
                ps = [{"name": p["name"], "kind": p["kind"], "dtype": p["dtype"], "shape": p.get("shape", []),
                       "output": bool(p.get("output"))} for p in params if p["kind"] != "shape"]
                text = "%s %s(%s)" % ("graph" if is_graph else "kernel", fname, ", ".join(
                    "%s: %s%s%s" % (p["name"], p["dtype"], "[%s]" % ", ".join(p["shape"]) if p["kind"] == "tensor" else "",
                                    " (output)" if p["output"] else "") for p in ps))
                if not is_graph:
                    k = next(k for k in doc["kernels"] if k["name"] == fname)
                    if k.get("compile_time"):
                        text += "\ncompiled with " + ", ".join("%s=%s" % kv for kv in k["compile_time"].items())
                    conditions = [c for c in k.get("requires") or [] if c != "true"]
                    if conditions:
                        text += "\nlaunch conditions: " + ", ".join(conditions)
                text += "\n"
                self.functions[fname] = Function(self, part, fname, ps, is_graph, text)

    def __getattr__(self, name):
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError("module '%s' has no kernel or graph '%s' (it has: %s)" %
                             (self.__dict__.get("source", "?"), name, ", ".join(sorted(functions))))

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __repr__(self):
        return "<tmc module %s: %s>" % (self.source, ", ".join(sorted(self.functions)))


def load(path, arch="sm_90a", kernels=None, graphs=None, defines=None, shapes=None, tuning_db=None, import_dirs=None,
         extra_args=None):
    """Compiles `path` (through `tmc lib --shared --cpu`, cached) and
    returns its kernels and graphs as a Module. `arch`: one arch or a list
    (sm_80, sm_90a, ...); `kernels`/`graphs`: what to compile (default:
    every kernel and graph the file declares); `defines`: -D values;
    `shapes` and `tuning_db`: pick tuned parameters as tmc lib does;
    `import_dirs`: where imported modules are (-I); `extra_args`: more
    options of tmc lib."""
    archs = [arch] if isinstance(arch, str) else list(arch)
    kernels = [kernels] if isinstance(kernels, str) else kernels
    graphs = [graphs] if isinstance(graphs, str) else graphs
    extra_args = list(extra_args or [])
    for d in import_dirs or []:
        extra_args += ["-I", os.path.abspath(d)]
    library, name = _build.build(path, archs, kernels, graphs, defines, shapes, tuning_db, extra_args)
    return Module(library, name, path)


class CheckResult:
    def __init__(self, returncode, output):
        self.returncode, self.output, self.ok = returncode, output, returncode == 0

    def __repr__(self):
        return "<tmc.CheckResult %s>" % ("ok" if self.ok else "failed")


def run_checked(path, kernel=None, graph=None, shapes=None, defines=None, bounds=True, races=True, seed=None,
                timeout=None, raise_on_failure=True):
    """Runs `tmc run` on a kernel (or graph) of `path` with random inputs at
    `shapes` on the CPU executor, with its checks (bounds, races) and the
    comparison against the op's reference; raises CheckError with tmc's
    report when it finds a bug (or returns a CheckResult with
    raise_on_failure=False)."""
    cmd = [_build.tmc_executable(), "run", path]
    if kernel:
        cmd += ["--kernel", kernel]
    if graph:
        cmd += ["--graph", graph]
    if shapes:
        cmd += ["--shape", ",".join("%s=%d" % (k, v) for k, v in shapes.items())]
    for k, v in sorted((defines or {}).items()):
        cmd += ["-D", "%s=%s" % (k, v)]
    if bounds:
        cmd.append("--check-bounds")
    if races:
        cmd.append("--check-races")
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if timeout is not None:
        cmd += ["--timeout", str(timeout)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    result = CheckResult(r.returncode, r.stdout + r.stderr)
    if raise_on_failure and not result.ok:
        raise CheckError("tmc run %s%s found a problem:\n%s" % (path, " --kernel " + kernel if kernel else "",
                                                               result.output.rstrip()))
    return result
