#!/usr/bin/env python3
"""Times every standard-library kernel at realistic sizes on the GPU against
PyTorch (cuBLAS, cuDNN and its own kernels), torch.compile and Triton, in
the same run.

tmc cannot run on the GPU machine (no LLVM there): bench/gpu/prepare_stdlib.sh
compiles every candidate of every stdlib kernel to PTX and metadata here,
into bench/gpu/stdlib_ptx/. On the GPU machine this script makes the inputs
with torch (random, never zeros), launches tmc's kernels through the host
runtime (libtmc_bench.so, built from runtime/ by bench/gpu/CMakeLists.txt,
called with ctypes on torch's device pointers), and for each case prints
tmc's median time, each peer's, the ratios, the relative L2 error of every
result against PyTorch's (computed in f32 from the same inputs), and the
fraction of the copy bandwidth or matrix rate measured in the same run.

A kernel with launch conditions ("requires" in its metadata, e.g. the norm
kernels' `where BC >= C`) is launched as the runtime documents: the first
candidate, in the order tmc listed them, whose conditions hold for the
shapes; the check is the runtime's own (tmc_bench_check). Where a case
tunes a kernel's space (matmul tiles and stages, element-wise vector
widths) every candidate whose conditions hold is timed and the fastest
kept, as Triton's autotuner does for its peer.

  python3 bench/gpu/stdlib_bench.py --dry-run     # no GPU needed: plans every case
  bash bench/gpu/stdlib.sh                        # on the GPU machine (check.sh calls it)
  python3 bench/gpu/stdlib_bench.py --report --results FILE

Results are appended to --results as JSON lines; a run that dies (a kernel
fault poisons the CUDA context, a hang hits the time limit) is resumed by
stdlib.sh after the case it was in, which is reported as such.
"""
import argparse
import ctypes
import json
import math
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# ---------------------------------------------------------------- runtime (ctypes)

DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"]
DTYPE_BYTES = {"bool": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2,
               "i32": 4, "u32": 4, "f32": 4, "i64": 8, "u64": 8, "f64": 8}
MAX_RANK = 8


class TmcTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("shape", ctypes.c_int64 * MAX_RANK)]


class TmcValue(ctypes.Union):
    _fields_ = [("i", ctypes.c_int64), ("f", ctypes.c_double)]


class TmcArg(ctypes.Structure):
    _fields_ = [("is_tensor", ctypes.c_int), ("tensor", TmcTensor), ("dtype", ctypes.c_int), ("value", TmcValue)]


class Runtime:
    """libtmc_bench.so: the C API of runtime/tmc_runtime.h and the driver-free
    checks of bench/gpu/bench_shim.cpp."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        p, i32, i64p = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)
        lib.tmc_last_error.restype = ctypes.c_char_p
        lib.tmc_bench_arg_layout.argtypes = [ctypes.POINTER(ctypes.c_size_t), i32]
        lib.tmc_bench_check.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(TmcArg), i32, i64p, i64p,
                                        ctypes.c_char_p, ctypes.c_size_t]
        lib.tmc_bench_eval.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), i64p, i32, i64p,
                                       ctypes.c_char_p, ctypes.c_size_t]
        lib.tmc_init.argtypes = [i32, ctypes.POINTER(p)]
        lib.tmc_module_load.argtypes = [p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(p)]
        lib.tmc_module_get_kernel.argtypes = [p, ctypes.c_char_p, ctypes.POINTER(p)]
        lib.tmc_launch.argtypes = [p, ctypes.POINTER(TmcArg), i32, p]
        lib.tmc_synchronize.argtypes = [p]
        self.lib = lib
        self.ctx = None
        self.modules = {}  # PTX path -> module handle (loaded once: the driver JIT-compiles PTX)
        layout = (ctypes.c_size_t * 6)()
        lib.tmc_bench_arg_layout(layout, 6)
        mine = (ctypes.sizeof(TmcArg), TmcArg.tensor.offset, TmcArg.dtype.offset, TmcArg.value.offset,
                ctypes.sizeof(TmcTensor), TmcTensor.shape.offset)
        if tuple(layout) != mine:
            raise RuntimeError(f"tmc_arg layout differs: C {tuple(layout)}, ctypes {mine}")

    def error(self):
        return (self.lib.tmc_last_error() or b"").decode()

    def check(self, meta_text, kernel, args):
        """(grid, block) if tmc_launch would launch these arguments, else raises LaunchRefused."""
        grid, block = (ctypes.c_int64 * 3)(), (ctypes.c_int64 * 3)()
        err = ctypes.create_string_buffer(2048)
        rc = self.lib.tmc_bench_check(meta_text.encode(), kernel.encode(), args, len(args), grid, block, err,
                                      len(err))
        if rc != 0:
            raise LaunchRefused(err.value.decode())
        return tuple(grid), tuple(block)

    def eval(self, formula, symbols):
        names = (ctypes.c_char_p * max(1, len(symbols)))(*[n.encode() for n in symbols])
        values = (ctypes.c_int64 * max(1, len(symbols)))(*symbols.values())
        out = ctypes.c_int64()
        err = ctypes.create_string_buffer(1024)
        if self.lib.tmc_bench_eval(formula.encode(), names, values, len(symbols), ctypes.byref(out), err, len(err)):
            raise ValueError(err.value.decode())
        return out.value

    def init(self):
        ctx = ctypes.c_void_p()
        if self.lib.tmc_init(0, ctypes.byref(ctx)) != 0:
            raise RuntimeError("tmc_init: " + self.error())
        self.ctx = ctx

    def kernel(self, cand):
        module = self.modules.get(cand.ptx)
        if module is None:
            ptx = open(cand.ptx, "rb").read()
            module = ctypes.c_void_p()
            if self.lib.tmc_module_load(self.ctx, ptx, len(ptx) + 1, cand.meta_text.encode(), ctypes.byref(module)):
                raise RuntimeError("tmc_module_load: " + self.error())
            self.modules[cand.ptx] = module
        k = ctypes.c_void_p()
        if self.lib.tmc_module_get_kernel(module, cand.kernel.encode(), ctypes.byref(k)):
            raise RuntimeError("tmc_module_get_kernel: " + self.error())
        return k

    def launcher(self, kernel, args):
        """A function of no arguments that launches `kernel` on the default stream (torch's)."""
        launch, n, error = self.lib.tmc_launch, len(args), self.error

        def go():
            if launch(kernel, args, n, None) != 0:
                raise RuntimeError("tmc_launch: " + error())
        return go


class LaunchRefused(Exception):
    pass


# ---------------------------------------------------------------- prepared candidates

class Candidate:
    def __init__(self, directory, entry):
        self.kernel = entry["kernel"]
        self.params = entry.get("params", {})
        self.is_default = bool(entry.get("default"))
        self.ptx = os.path.join(directory, entry["file"])
        self.meta_path = os.path.join(directory, entry["meta"])
        self.meta_text = open(self.meta_path).read()
        meta = json.loads(self.meta_text)
        self.sig = next(k for k in meta["kernels"] if k["name"] == self.kernel)
        self.module = os.path.basename(os.path.dirname(directory))

    def label(self, fixed=()):
        """Its compile-time values, less those the case fixed (the element type)."""
        return ",".join(f"{k}={v}" for k, v in self.params.items() if k not in fixed) or "-"


def load_prepared(root):
    """kernel name -> its candidates in tmc's order (index.json under root/MODULE/KERNEL/)."""
    kernels = {}
    for dirpath, _, files in sorted(os.walk(root)):
        if "index.json" not in files:
            continue
        index = json.load(open(os.path.join(dirpath, "index.json")))
        for entry in index.get("candidates", []):
            if entry.get("status") == "ok":
                c = Candidate(dirpath, entry)
                kernels.setdefault(c.kernel, []).append(c)
    return kernels


# ---------------------------------------------------------------- tensors

TORCH_DTYPES = {}  # tmc name -> torch dtype, filled when torch is imported


class FakeTensor:
    """Shape and type of a tensor without memory: the dry run's stand-in."""
    _next = 1 << 20

    def __init__(self, shape, dtype):
        self.shape, self.tmc_dtype = tuple(shape), dtype
        self.ptr = FakeTensor._next
        FakeTensor._next += (math.prod(self.shape) * DTYPE_BYTES[dtype] + 255) // 256 * 256 + 256


def info(x):
    """(device address, tmc dtype, shape) of a torch or fake tensor."""
    if isinstance(x, FakeTensor):
        return x.ptr, x.tmc_dtype, x.shape
    rev = {v: k for k, v in TORCH_DTYPES.items()}
    return x.data_ptr(), rev[x.dtype], tuple(x.shape)


def nbytes(x):
    _, dtype, shape = info(x)
    return math.prod(shape) * DTYPE_BYTES[dtype]


class In:
    """An input of a case: a tensor of `shape` and `dtype`, random (never zeros)."""

    def __init__(self, shape, dtype, init="randn"):
        self.shape, self.dtype, self.init = tuple(shape), dtype, init

    def make(self, torch, device):
        if torch is None:
            return FakeTensor(self.shape, self.dtype)
        t = torch.randn(self.shape, device=device, dtype=torch.float32)
        if self.init == "gain":  # norm weights: around 1
            t = 1.0 + 0.1 * t
        elif self.init == "small":  # biases
            t = 0.1 * t
        return t.to(TORCH_DTYPES[self.dtype])


# ---------------------------------------------------------------- cases


class KernelUse:
    """A tmc kernel a case times: its name, the compile-time values fixed for
    the case (the element type), and whether to tune over the rest."""

    def __init__(self, name, fixed=None, tune=False):
        self.name, self.fixed, self.tune = name, fixed or {}, tune


class Case:
    def __init__(self, name, group, kernels, inputs, ref, torch_fn=None, compile_fn=None, triton_fn=None,
                 flops=0, rate=None, no_compile=None, no_triton=None, skip=None, symbols=None):
        self.name, self.group, self.kernels, self.inputs = name, group, kernels, inputs
        self.symbols = symbols or {}  # shape symbols no input gives (a convolution's P, Q)
        self.skip = skip              # why the case cannot run at all
        self.ref = ref                # (torch, *inputs) -> f32 results, aligned with the kernels' outputs
        self.torch_fn = torch_fn      # (torch, *inputs) -> the result (or a tuple, the first compared)
        self.compile_fn = compile_fn  # what torch.compile compiles (default: torch_fn)
        self.triton_fn = triton_fn    # (triton_peers, *inputs) -> result
        self.flops, self.rate = flops, rate  # rate: the measured matrix rate it is held against
        self.no_compile = no_compile  # why torch.compile is not run, if it is not
        self.no_triton = no_triton or "no Triton peer written for this op"


def F(torch):
    return torch.nn.functional


def rms_norm(torch, x, g, eps):
    f = getattr(F(torch), "rms_norm", None)
    if f is not None:
        return f(x, (x.shape[-1],), g, eps)
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * g.float()).to(x.dtype)


def rms_norm_manual(torch, x, g, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * g.float()).to(x.dtype)


def build_cases(small, attention_kernels):
    """Every case, in the order they run (most important first). `small`:
    tiny sizes for the CPU smoke test."""
    MM = (4096, 8192) if not small else (128, 256)
    R, C = (8192, 8192) if not small else (64, 256)
    RW, CW = (32768, 1024) if not small else (64, 128)  # rows short enough for the *_warp kernels
    EPS = 1e-5
    cases = []
    mm_ref = lambda t, a, b: [a.float() @ b.float()]
    # Tuned over the 128-row tiles (128x128 with 4 or 8 warps, 128x256 with
    # 8; 2-4 stages): nine candidates, a few seconds each at these sizes.
    for n in MM:
        for dt in ("bf16", "f16"):
            cases.append(Case(
                f"matmul {dt} {n}^3", "matmul", [KernelUse("matmul_tc_t", {"T": dt, "BM": 128}, tune=True)],
                [In((n, n), dt), In((n, n), dt)], mm_ref,
                torch_fn=lambda t, a, b: a @ b, triton_fn=lambda tp, a, b: tp.matmul(a, b),
                flops=2 * n ** 3, rate=dt,
                no_compile="default mode calls the same cuBLAS kernel as eager; max-autotune's compile would not fit the time budget"))
    n = MM[0]
    cases.append(Case(
        f"matmul bf16 {n}^3 f32 out", "matmul", [KernelUse("matmul_tc", {"T": "bf16", "BM": 128}, tune=True)],
        [In((n, n), "bf16"), In((n, n), "bf16")], mm_ref,
        torch_fn=lambda t, a, b: a @ b, flops=2 * n ** 3, rate="bf16",
        no_compile="default mode calls the same cuBLAS kernel as eager"))
    # Hopper (std.hopper), tuned over BN and STAGES (and, for matmul_tma, CM:
    # clusters of two blocks sharing B by multicast): matmul_wgmma (wgmma over
    # 128-byte-swizzled tiles staged by cp_async) and matmul_tma (TMA-fed,
    # warp-specialized, persistent: a producer thread fills a ring ordered
    # by mbarriers, two consumer warpgroups run wgmma), the kernel meant to
    # reach the goal of issue 14, 1.0x cuBLAS at 8192^3 bf16.
    for kernel, label in (("matmul_wgmma", "wgmma"), ("matmul_tma", "tma")):
        for n in MM:
            cases.append(Case(
                f"matmul bf16 {n}^3 f32 out ({label})", "hopper", [KernelUse(kernel, {"T": "bf16"}, tune=True)],
                [In((n, n), "bf16"), In((n, n), "bf16")], mm_ref,
                torch_fn=lambda t, a, b: a @ b, triton_fn=lambda tp, a, b: tp.matmul(a, b),
                flops=2 * n ** 3, rate="bf16",
                no_compile="default mode calls the same cuBLAS kernel as eager"))
    bs, bn = (16, 2048) if not small else (2, 64)
    cases.append(Case(
        f"bmm bf16 {bs}x{bn}^3", "matmul", [KernelUse("bmm_tc", {"T": "bf16", "BM": 128}, tune=True)],
        [In((bs, bn, bn), "bf16"), In((bs, bn, bn), "bf16")], lambda t, a, b: [t.bmm(a.float(), b.float())],
        torch_fn=lambda t, a, b: t.bmm(a, b), flops=2 * bs * bn ** 3, rate="bf16",
        no_compile="default mode calls the same cuBLAS kernel as eager"))
    n = MM[0]
    cases.append(Case(
        f"matmul f32 {n}^3 (SIMT)", "matmul", [KernelUse("matmul_simt", {}, tune=True)],
        [In((n, n), "f32"), In((n, n), "f32")], mm_ref,
        torch_fn=lambda t, a, b: a @ b, triton_fn=lambda tp, a, b: tp.matmul(a, b), flops=2 * n ** 3, rate="f32",
        no_compile="default mode calls the same cuBLAS kernel as eager"))

    for (r, c, tag) in ((R, C, ""), (RW, CW, " short rows")):
        for dt in ("bf16", "f16", "f32") if not tag else ("bf16",):
            warp = [KernelUse("softmax_warp", {"T": dt})] if tag else []
            cases.append(Case(
                f"softmax {dt} {r}x{c}", "norm",
                warp + [KernelUse("softmax_block", {"T": dt}), KernelUse("softmax_online", {"T": dt})],
                [In((r, c), dt)], lambda t, x: [t.softmax(x.float(), -1)],
                torch_fn=lambda t, x: t.softmax(x, -1), triton_fn=lambda tp, x: tp.softmax(x)))
            warp = [KernelUse("layernorm_warp", {"T": dt})] if tag else []
            cases.append(Case(
                f"layernorm {dt} {r}x{c}", "norm", warp + [KernelUse("layernorm_block", {"T": dt})],
                [In((r, c), dt), In((c,), dt, "gain"), In((c,), dt, "small"), EPS],
                lambda t, x, g, b, eps: [F(t).layer_norm(x.float(), (x.shape[1],), g.float(), b.float(), eps),
                                         x.float().mean(-1),
                                         t.rsqrt(x.float().var(-1, unbiased=False) + eps)],
                torch_fn=lambda t, x, g, b, eps: F(t).layer_norm(x, (x.shape[1],), g, b, eps),
                triton_fn=lambda tp, x, g, b, eps: tp.layernorm(x, g, b, eps)))
            warp = [KernelUse("rmsnorm_warp", {"T": dt})] if tag else []
            cases.append(Case(
                f"rmsnorm {dt} {r}x{c}", "norm", warp + [KernelUse("rmsnorm_block", {"T": dt})],
                [In((r, c), dt), In((c,), dt, "gain"), EPS],
                lambda t, x, g, eps: [rms_norm_manual(t, x.float(), g.float(), eps),
                                      t.rsqrt(x.float().pow(2).mean(-1) + eps)],
                torch_fn=lambda t, x, g, eps: rms_norm(t, x, g, eps),
                compile_fn=lambda t, x, g, eps: rms_norm_manual(t, x, g, eps),
                triton_fn=lambda tp, x, g, eps: tp.rmsnorm(x, g, eps)))

    cases += attention_cases(attention_kernels, small)

    def ew(kernel, dt, inputs, ref, fn, extra=None, label=None):
        fixed = {"T": dt, **(extra or {})}
        cases.append(Case(f"{label or kernel.replace('_rows', '') + ' ' + dt} {R}x{C}", "elementwise",
                          [KernelUse(kernel, fixed, tune=True)], inputs, ref, torch_fn=fn))
    X = lambda dt: In((R, C), dt)
    for dt in ("bf16", "f32", "f16"):
        ew("add_rows", dt, [X(dt), X(dt)], lambda t, x, y: [x.float() + y.float()], lambda t, x, y: x + y)
        if dt == "f16":
            continue
        ew("gelu_rows", dt, [X(dt)], lambda t, x: [F(t).gelu(x.float())], lambda t, x: F(t).gelu(x))
        if dt == "f32":
            continue
        ew("relu_rows", dt, [X(dt)], lambda t, x: [t.relu(x.float())], lambda t, x: t.relu(x))
        ew("gelu_tanh_rows", dt, [X(dt)], lambda t, x: [F(t).gelu(x.float(), approximate="tanh")],
           lambda t, x: F(t).gelu(x, approximate="tanh"))
        ew("silu_rows", dt, [X(dt)], lambda t, x: [F(t).silu(x.float())], lambda t, x: F(t).silu(x))
        ew("sigmoid_rows", dt, [X(dt)], lambda t, x: [t.sigmoid(x.float())], lambda t, x: t.sigmoid(x))
        ew("mul_rows", dt, [X(dt), X(dt)], lambda t, x, y: [x.float() * y.float()], lambda t, x, y: x * y)
        ew("add_bias_rows", dt, [X(dt), In((C,), dt, "small")], lambda t, x, b: [x.float() + b.float()],
           lambda t, x, b: x + b)
        ew("add_rows", dt, [X(dt), In((1, C), dt, "small")], lambda t, x, y: [x.float() + y.float()],
           lambda t, x, y: x + y, label=f"add {dt} row broadcast")
        ew("div_rows", dt, [X(dt), In((R, 1), dt, "gain")], lambda t, x, y: [x.float() / y.float()],
           lambda t, x, y: x / y, label=f"div {dt} column broadcast")
        ew("tanh_rows", dt, [X(dt)], lambda t, x: [t.tanh(x.float())], lambda t, x: t.tanh(x))
        ew("exp_rows", dt, [X(dt)], lambda t, x: [t.exp(x.float())], lambda t, x: t.exp(x))
    for src, dst in (("bf16", "f32"), ("f32", "bf16"), ("f32", "f16")):
        ew("cast_rows", src, [X(src)], lambda t, x: [x.float()],
           (lambda d: lambda t, x: x.to(TORCH_DTYPES[d]))(dst), extra={"U": dst}, label=f"cast {src}->{dst}")

    for dt in ("bf16", "f32"):
        cases.append(Case(f"sum_rows {dt} {R}x{C}", "reduce",
                          [KernelUse("sum_rows_warp", {"T": dt}), KernelUse("sum_rows_block", {"T": dt})],
                          [X(dt)], lambda t, x: [x.double().sum(-1)], torch_fn=lambda t, x: x.sum(-1, dtype=t.float32)))
        cases.append(Case(f"max_rows {dt} {R}x{C}", "reduce",
                          [KernelUse("max_rows_warp", {"T": dt}), KernelUse("max_rows_block", {"T": dt})],
                          [X(dt)], lambda t, x: [x.float().amax(-1)], torch_fn=lambda t, x: x.amax(-1)))
        cases.append(Case(f"mean_rows {dt} {R}x{C}", "reduce", [KernelUse("mean_rows_warp", {"T": dt})],
                          [X(dt)], lambda t, x: [x.double().mean(-1)], torch_fn=lambda t, x: x.mean(-1, dtype=t.float32)))
        cases.append(Case(f"sum_cols {dt} {R}x{C}", "reduce", [KernelUse("sum_cols_threads", {"T": dt})],
                          [X(dt)], lambda t, x: [x.double().sum(0)], torch_fn=lambda t, x: x.sum(0, dtype=t.float32)))
        cases.append(Case(f"max_cols {dt} {R}x{C}", "reduce", [KernelUse("max_cols_threads", {"T": dt})],
                          [X(dt)], lambda t, x: [x.float().amax(0)], torch_fn=lambda t, x: x.amax(0)))
    A3, R3, B3 = (64, 1024, 1024) if not small else (2, 32, 64)
    X3 = lambda dt: In((A3, R3, B3), dt)
    for dt in ("bf16", "f32"):
        cases.append(Case(f"sum_mid {dt} {A3}x{R3}x{B3}", "reduce",
                          [KernelUse("sum_mid_tree", {"T": dt})],
                          [X3(dt)], lambda t, x: [x.double().sum(1)], torch_fn=lambda t, x: x.sum(1, dtype=t.float32)))
        cases.append(Case(f"transpose {dt} {R}x{C}", "transpose", [KernelUse("transpose_tiled", {"T": dt})],
                          [X(dt)], lambda t, x: [x.float().t()], torch_fn=lambda t, x: x.t().contiguous()))
        cases.append(Case(f"permute021 {dt} {A3}x{R3}x{B3}", "transpose", [KernelUse("permute021_tiled", {"T": dt})],
                          [X3(dt)], lambda t, x: [x.float().transpose(1, 2)],
                          torch_fn=lambda t, x: x.transpose(1, 2).contiguous()))
        cases.append(Case(f"permute102 {dt} {A3}x{R3}x{B3}", "transpose",
                          [KernelUse("permute102_rows", {"T": dt}, tune=True)],
                          [X3(dt)], lambda t, x: [x.float().transpose(0, 1)],
                          torch_fn=lambda t, x: x.transpose(0, 1).contiguous()))
    # ResNet-style 3x3 convolutions, NHWC, weights HWIO (torch's OIHW
    # permuted); pooling 3x3 stride 2.
    cn, ch, cc, cf = (32, 56, 128, 128) if not small else (2, 8, 16, 16)
    for dt in ("bf16", "f16"):
        cases.append(Case(
            f"conv2d {dt} {cn}x{ch}x{ch}x{cc} 3x3 -> {cf}", "conv",
            [KernelUse("conv2d_tc", {"T": dt, "BM": 128}, tune=True)],
            [In((cn, ch, ch, cc), dt), In((3, 3, cc, cf), dt), 1, 1, 1, 1, 1, 1],
            lambda t, x, w, *g: [F(t).conv2d(x.float().permute(0, 3, 1, 2), w.float().permute(3, 2, 0, 1),
                                            padding=1).permute(0, 2, 3, 1)],
            # x.permute is a channels-last view: cuDNN runs NHWC and the
            # result's permute back to NHWC is a view too (no copy timed).
            torch_fn=lambda t, x, w, *g: F(t).conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1),
                                                     padding=1).permute(0, 2, 3, 1),
            flops=2 * cn * ch * ch * cf * 9 * cc, rate=dt, symbols={"P": ch, "Q": ch},
            no_compile="cuDNN in either case"))
    pp = (ch - 1) // 2 + 1  # 3x3, stride 2, padding 1
    for kind in ("max", "avg"):
        pool = (lambda k: (lambda t, x, *g: (F(t).max_pool2d if k == "max" else F(t).avg_pool2d)(
            x.permute(0, 3, 1, 2), 3, 2, 1).permute(0, 2, 3, 1)))(kind)
        cases.append(Case(
            f"{kind}pool2d bf16 {cn}x{ch}x{ch}x{cc} 3x3/2", "conv",
            [KernelUse(f"{kind}pool2d_nhwc", {"T": "bf16"})],
            [In((cn, ch, ch, cc), "bf16"), 3, 3, 2, 2, 1, 1],
            (lambda p: lambda t, x, *g: [p(t, x.float())])(pool),
            torch_fn=pool, symbols={"P": pp, "Q": pp}))
    return cases


# ---------------------------------------------------------------- attention (std.attention)

ATTENTION_DIMS = {"B": "B", "H": "H", "BH": "BH", "Z": "BH", "S": "S", "N": "S", "L": "S", "T": "S", "SQ": "S",
                  "SK": "S", "SEQ": "S", "M": "S", "D": "D", "HD": "D", "E": "D", "DH": "D", "DK": "D", "DV": "D"}


def attention_layout(sig):
    """How the kernel's Q (its first tensor) maps onto (batch, heads, seq,
    head dim): a list of roles per dimension, or None when it cannot be told."""
    q = next(p for p in sig["params"] if p["kind"] == "tensor")
    rank = len(q["shape"])
    roles = [ATTENTION_DIMS.get(str(d).upper()) for d in q["shape"]]
    if None in roles or len(set(roles)) != rank:
        roles = {2: ["S", "D"], 3: ["BH", "S", "D"], 4: ["B", "H", "S", "D"]}.get(rank)
    return roles


class AttentionInputs:
    """Inputs of an attention kernel made from its signature: every input
    tensor laid out like Q, every scalar a scale (1/sqrt(D)) or 0."""

    def __init__(self, sig, dtype, bh, s, d):
        self.sig, self.dtype = sig, dtype
        self.roles = attention_layout(sig)
        heads = 16 if bh % 16 == 0 else 1
        self.size = {"B": bh // heads, "H": heads, "BH": bh, "S": s, "D": d}
        self.scale = 1.0 / math.sqrt(d)

    def specs(self):
        out = []
        outs = output_names(self.sig)
        for p in self.sig["params"]:
            if p["kind"] == "shape" or p["name"] in outs:
                continue
            if p["kind"] == "tensor":
                if len(p["shape"]) != len(self.roles):
                    raise ValueError(f"input '{p['name']}' has rank {len(p['shape'])}, Q has {len(self.roles)}")
                out.append(In([self.size[r] for r in self.roles], p["dtype"]))
            elif p["dtype"] in ("f32", "f64", "f16", "bf16"):
                out.append(self.scale if "scale" in p["name"].lower() else 1.0)
            else:
                out.append(0)
        return out

    def sdpa(self, t, q, k, v, *rest):
        """PyTorch's attention on the same inputs, in the kernel's layout."""
        order = [self.roles.index(r) for r in ("B", "H", "S", "D") if r in self.roles]
        if "BH" in self.roles:
            order = [self.roles.index("BH"), self.roles.index("S"), self.roles.index("D")]
        to = lambda x: x.permute(*order) if x.dim() == len(order) else x
        back = [order.index(i) for i in range(len(order))]
        q, k, v = to(q), to(k), to(v)
        try:
            o = F(t).scaled_dot_product_attention(q, k, v, scale=self.scale)
        except (AttributeError, TypeError):  # torch before 2.1: the same, unfused
            o = t.softmax((q.float() @ k.float().transpose(-2, -1)) * self.scale, -1).to(v.dtype) @ v
        return o.permute(*back)


def attention_cases(kernels, small):
    """One case per attention kernel of std.attention and std.hopper_attention:
    seq 4096 and 16384, head dim 128, batch x heads filling the GPU."""
    cases = []
    sizes = [(64, 4096), (16, 16384)] if not small else [(2, 128)]
    for name, cands in sorted(kernels.items()):
        types = sorted({c.params.get("T") for c in cands} - {None}) or [None]
        for dt in [t for t in ("bf16", "f16") if t in types] or types[:1]:
            sig = next(c.sig for c in cands if c.params.get("T") == dt)
            for bh, s in sizes:
                try:
                    ai = AttentionInputs(sig, dt or "bf16", bh, s, 128 if not small else 64)
                    inputs = ai.specs()
                except Exception as e:  # noqa: BLE001 - reported, the run goes on
                    cases.append(Case(f"{name} (attention)", "attention", [KernelUse(name)], [], None,
                                      skip=f"cannot make inputs from its signature: {e}"))
                    break
                d = ai.size["D"]
                fixed = {"T": dt} if dt else {}
                cases.append(Case(
                    f"{name} {dt} BH{bh} S{s}", "attention", [KernelUse(name, fixed, tune=True)], inputs,
                    (lambda ai: lambda t, *xs: [ai.sdpa(t, *[x.float() if hasattr(x, "float") else x for x in xs])])(ai),
                    torch_fn=(lambda ai: lambda t, *xs: ai.sdpa(t, *xs))(ai),
                    flops=4 * bh * s * s * d, rate=dt or "bf16",
                    no_compile="scaled_dot_product_attention is already one fused kernel (flash or cuDNN)",
                    no_triton="no Triton attention written here (the tutorial's fused attention would be the peer)"))
    return cases


# ---------------------------------------------------------------- binding a kernel's arguments


def output_names(sig):
    """The kernel's outputs: those the metadata marks (a kernel implementing
    an op), else its last tensor (docs/runtime.md)."""
    marked = [p["name"] for p in sig["params"] if p.get("output")]
    tensors = [p["name"] for p in sig["params"] if p["kind"] == "tensor"]
    return set(marked) if marked else set(tensors[-1:])


def bind(rt, cand, inputs, make_output, given=None):
    """The tmc_arg array for `cand` with `inputs` (tensors and scalars, in the
    order of the kernel's inputs), outputs made by make_output(shape, dtype)
    from the metadata's shape formulas. Returns (args, outputs)."""
    params = [p for p in cand.sig["params"] if p["kind"] != "shape"]
    outs = output_names(cand.sig)
    ins = [p for p in params if p["name"] not in outs]
    if len(ins) != len(inputs):
        raise LaunchRefused(f"the case gives {len(inputs)} inputs, kernel '{cand.kernel}' takes {len(ins)}: "
                            + ", ".join(p["name"] for p in ins))
    symbols = dict(given or {})
    it = iter(inputs)
    values = {}
    for p in ins:
        x = next(it)
        values[p["name"]] = x
        if p["kind"] == "tensor":
            shape = info(x)[2]
            for f, extent in zip(p["shape"], shape):
                if re.fullmatch(r"[A-Za-z_]\w*", str(f)):
                    symbols.setdefault(f, extent)
    outputs = []
    for p in params:
        if p["name"] in outs:
            shape = [rt.eval(str(f), symbols) for f in p["shape"]]
            values[p["name"]] = make_output(shape, p["dtype"])
            outputs.append(values[p["name"]])
    args = (TmcArg * len(params))()
    for a, p in zip(args, params):
        x = values[p["name"]]
        if p["kind"] == "tensor":
            ptr, dtype, shape = info(x)
            a.is_tensor = 1
            a.tensor.data, a.tensor.dtype, a.tensor.rank = ptr, DTYPES.index(dtype), len(shape)
            for d, e in enumerate(shape):
                a.tensor.shape[d] = e
        else:
            a.dtype = DTYPES.index(p["dtype"])
            if p["dtype"] in ("f16", "bf16", "f32", "f64"):
                a.value.f = float(x)
            else:
                a.value.i = int(x)
    return args, outputs


def candidates_for(prepared, use):
    """The candidates with the case's fixed values, in the order tmc run
    tries them: fewest parameters changed from the kernel's default
    candidate first (index.json marks it), then tmc's order."""
    every = prepared.get(use.name, [])
    default = next((c for c in every if c.is_default), None)
    def changed(c):
        if default is None:
            return 0
        return sum(1 for k, v in c.params.items() if k not in use.fixed and str(default.params.get(k)) != str(v))
    fitting = [c for c in every if all(str(c.params.get(k)) == str(v) for k, v in use.fixed.items())]
    return sorted(fitting, key=changed)


# ---------------------------------------------------------------- numerics and timing

TOLERANCE = {"f32": 1e-4, "f16": 1e-2, "bf16": 1e-2, "f64": 1e-10}  # rtol of `tmc run` (docs/runtime.md)


def rel_l2(torch, out, ref):
    """(relative L2 error, non-finite elements) of `out` against `ref`."""
    o = out.detach().reshape(ref.shape).double()
    r = ref.detach().double()
    bad = int(o.numel() - torch.isfinite(o).sum().item())
    if bad:
        return float("nan"), bad
    den = torch.linalg.vector_norm(r).item()
    return torch.linalg.vector_norm(o - r).item() / (den if den else 1.0), 0


def dtype_of(x):
    return info(x)[1]


class Timer:
    """Median of event-timed repetitions on the current (default) stream."""

    def __init__(self, torch, cpu):
        self.torch, self.cpu = torch, cpu

    def __call__(self, fn, warmup=3, min_reps=20, target_ms=300.0, max_reps=200):
        t = self.torch
        if self.cpu:
            fn()
            times = []
            for _ in range(3):
                s = time.perf_counter()
                fn()
                times.append((time.perf_counter() - s) * 1e3)
            times.sort()
            return {"median_ms": times[1], "min_ms": times[0], "max_ms": times[-1], "reps": 3}
        s, e = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(warmup):
            fn()
        e.record()
        t.cuda.synchronize()
        estimate = max(s.elapsed_time(e) / warmup, 1e-3)
        reps = int(min(max_reps, max(min_reps, target_ms / estimate)))
        note = None
        if estimate * reps > 60_000:  # a very slow kernel: keep the case within its budget
            reps = max(3, int(60_000 / estimate))
            note = f"only {reps} repetitions ({estimate:.0f} ms each)"
        starts = [t.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [t.cuda.Event(enable_timing=True) for _ in range(reps)]
        sleep = getattr(t.cuda, "_sleep", None)
        if sleep is not None:
            sleep(2_000_000)  # ~1 ms of GPU: the launches queue up behind it, launch gaps stay out
        for i in range(reps):
            starts[i].record()
            fn()
            ends[i].record()
        t.cuda.synchronize()
        times = sorted(a.elapsed_time(b) for a, b in zip(starts, ends))
        r = {"median_ms": times[len(times) // 2], "min_ms": times[0], "max_ms": times[-1], "reps": reps}
        if note:
            r["note"] = note
        return r


# ---------------------------------------------------------------- the run


class Bench:
    def __init__(self, args, rt, prepared, torch, triton_peers, triton_error):
        self.a, self.rt, self.prepared, self.torch = args, rt, prepared, torch
        self.tp, self.triton_error = triton_peers, triton_error
        self.cpu = args.device == "cpu"
        self.device = "cpu" if self.cpu else "cuda"
        self.timer = Timer(torch, self.cpu) if torch else None
        self.deadline = args.deadline or (time.time() + args.budget_s)
        self.compile_spent = 0.0
        self.triton_spent = 0.0
        self.ceilings = {}
        self.rt_error = None
        self.results = args.results
        self.done = set()
        if self.results and os.path.exists(self.results):
            for line in open(self.results):
                rec = json.loads(line)
                if rec["type"] in ("start", "case"):
                    self.done.add(rec["case"])
                elif rec["type"] == "ceilings":
                    self.ceilings = rec["values"]
                elif rec["type"] == "spent":
                    self.compile_spent = max(self.compile_spent, rec["compile_s"])
                    self.triton_spent = max(self.triton_spent, rec["triton_s"])

    def left(self):
        return self.deadline - time.time()

    def record(self, rec):
        if self.results:
            with open(self.results, "a") as f:
                f.write(json.dumps(rec) + "\n")

    def say(self, text):
        print(text, flush=True)

    # -- ceilings measured in this run
    def measure_ceilings(self):
        if self.ceilings or self.cpu:
            return
        t = self.torch
        n = 1 << 30  # 1 GiB read and 1 GiB written per copy
        x = t.empty(n, dtype=t.uint8, device="cuda").random_(0, 255)
        y = t.empty_like(x)
        r = self.timer(lambda: y.copy_(x), min_reps=20)
        self.ceilings["copy_GBps"] = 2 * n / (r["median_ms"] * 1e-3) / 1e9
        for dt in ("bf16", "f16", "f32"):
            m = 8192
            a = t.randn(m, m, device="cuda").to(TORCH_DTYPES[dt])
            b = t.randn(m, m, device="cuda").to(TORCH_DTYPES[dt])
            r = self.timer(lambda: a @ b, min_reps=10 if dt == "f32" else 20)
            self.ceilings[f"mm_{dt}_TFLOPs"] = 2 * m ** 3 / (r["median_ms"] * 1e-3) / 1e12
        self.record({"type": "ceilings", "values": self.ceilings})

    def cuda_alive(self):
        if self.cpu:
            return True
        try:
            self.torch.cuda.synchronize()
            return True
        except Exception:  # noqa: BLE001 - a sticky error: the context is gone
            return False

    def run(self, cases):
        t = self.torch
        if not self.cpu:
            t.backends.cuda.matmul.allow_tf32 = False  # the f32 reference and the f32 peer: no tf32
            t.backends.cudnn.allow_tf32 = False
            if t.cuda.current_stream().cuda_stream != 0:
                self.say("warning: torch's current stream is not the default stream tmc launches on")
            try:
                self.rt.init()
            except RuntimeError as e:  # the peers still run; every tmc row says why it has no time
                self.rt_error = str(e)
                self.say(f"tmc runtime unavailable: {e}")
        device = "CPU (smoke test: tmc's kernels not launched)" if self.cpu else t.cuda.get_device_name(0)
        env = (f"device: {device}; torch {t.__version__}, CUDA {t.version.cuda}; "
               + (f"triton {self.tp.triton.__version__}" if self.tp else f"Triton unavailable: {self.triton_error}"))
        self.say(env)
        self.record({"type": "env", "text": env})
        self.measure_ceilings()
        for case in cases:
            if case.name in self.done:
                continue
            if self.a.only and not re.search(self.a.only, case.name):
                continue
            self.record({"type": "start", "case": case.name})
            die = os.environ.get("STDLIB_BENCH_TEST_DIE_IN")  # a test of stdlib.sh's resumption
            if die and re.search(die, case.name):
                os._exit(3)
            if self.left() < 15:
                self.record({"type": "case", "case": case.name, "group": case.group,
                             "skipped": "the time budget is spent"})
                continue
            rec = self.run_case(case)
            self.record(rec)
            self.record({"type": "spent", "compile_s": self.compile_spent, "triton_s": self.triton_spent})
            if rec.get("fatal"):
                self.say("the CUDA context is lost; stopping here (stdlib.sh resumes after this case)")
                return 3
        return 0

    def run_case(self, case):
        t = self.torch
        rec = {"type": "case", "case": case.name, "group": case.group, "flops": case.flops, "rate": case.rate,
               "kernels": [], "peers": {}}
        self.say(f"== {case.name}")
        if case.skip:
            rec["skipped"] = case.skip
            self.say(f"   skipped: {case.skip}")
            return rec
        try:
            inputs = [x.make(t, self.device) if isinstance(x, In) else x for x in case.inputs]
            refs = case.ref(t, *inputs)
        except Exception as e:  # noqa: BLE001
            rec["error"] = f"inputs or reference failed: {e}"
            rec["fatal"] = not self.cuda_alive()
            self.say("   " + rec["error"])
            return rec
        in_bytes = sum(nbytes(x) for x in inputs if not isinstance(x, (int, float)))
        rec["bytes"] = in_bytes
        for use in case.kernels:
            k = self.run_kernel(case, use, inputs, refs)
            rec["kernels"].append(k)
            if "out_bytes" in k:
                rec["bytes"] = in_bytes + k["out_bytes"]
            if k.get("fatal"):
                rec["fatal"] = True
                return rec
        rec["peers"]["torch"] = self.run_peer(case, "torch", lambda *xs: case.torch_fn(t, *xs), inputs, refs)
        rec["peers"]["torch.compile"] = self.run_compile(case, inputs, refs)
        rec["peers"]["triton"] = self.run_triton(case, inputs, refs)
        rec["fatal"] = any(p.get("fatal") for p in rec["peers"].values())
        return rec

    def check_outputs(self, outs, refs):
        """Each output against its reference; and the one to show: the first
        that fails, else the largest error."""
        results = []
        for i, (o, r) in enumerate(zip(outs, refs)):
            err, bad = rel_l2(self.torch, o, r)
            dt = dtype_of(o)
            tol = TOLERANCE.get(dt, 0.0)
            results.append({"output": i, "dtype": dt, "rel_l2": err, "nonfinite": bad, "tol": tol,
                            "ok": bad == 0 and err <= tol})
        failing = [r for r in results if not r["ok"]]
        return (failing[0] if failing else max(results, key=lambda r: r["rel_l2"])), results

    def run_kernel(self, case, use, inputs, refs):
        t = self.torch
        k = {"kernel": use.name}
        cands = candidates_for(self.prepared, use)
        if not cands or self.rt_error:
            k["error"] = self.rt_error or f"not prepared (no candidate with {use.fixed} in {self.a.ptx})"
            self.say(f"   tmc {use.name}: {k['error']}")
            return k

        def make_output(shape, dtype):
            y = t.empty(shape, dtype=TORCH_DTYPES[dtype], device=self.device)
            return y.fill_(float("nan")) if dtype[0] in "fb" else y.fill_(-91)
        bound, refused = [], []
        for c in cands:
            try:
                args, outs = bind(self.rt, c, inputs, make_output, case.symbols)
                self.rt.check(c.meta_text, c.kernel, args)
                bound.append((c, args, outs))
                if not use.tune:
                    break  # the runtime's rule: the first candidate whose conditions hold
            except (LaunchRefused, ValueError) as e:
                refused.append(str(e))
        if not bound:
            k["error"] = "no candidate whose launch conditions hold: " + (refused[-1] if refused else "?")
            self.say(f"   tmc {use.name}: {k['error']}")
            return k
        try:
            if self.cpu:  # no launch: the reference stands in for the kernel's results
                def stand_in(outs):
                    return lambda: [o.copy_(r.reshape(o.shape)) for o, r in zip(outs, refs)]
                launches = [(c, args, outs, stand_in(outs)) for c, args, outs in bound]
                k["stand_in"] = True
            else:
                launches = [(c, args, outs, self.rt.launcher(self.rt.kernel(c), args)) for c, args, outs in bound]
            if len(launches) > 1:  # tune: a short timing of each, the fastest kept
                tried = []
                for item in launches:
                    r = self.timer(item[3], warmup=2, min_reps=5, target_ms=50, max_reps=20)
                    tried.append((r["median_ms"], item))
                tried.sort(key=lambda x: x[0])
                k["tuned"] = [(item[0].label(use.fixed), round(ms, 4)) for ms, item in tried]
                launches = [tried[0][1]]
            c, args, outs, go = launches[0]
            k["candidate"] = c.label(use.fixed)
            for o in outs:  # poison again: unwritten elements show as NaN
                o.fill_(float("nan")) if dtype_of(o)[0] in "fb" else o.fill_(-91)
            go()
            if not self.cpu:
                t.cuda.synchronize()
            k["check"], k["outputs"] = self.check_outputs(outs, refs)
            k["out_bytes"] = sum(nbytes(o) for o in outs)
            k["time"] = self.timer(go)
        except Exception as e:  # noqa: BLE001
            k["error"] = str(e)
            k["fatal"] = not self.cuda_alive()
        head = f"   tmc {use.name} [{k.get('candidate', '?')}]" + (" (CPU stand-in)" if self.cpu else "")
        if "error" in k:
            self.say(f"{head}: {k['error']}")
        else:
            self.say(f"{head}: {k['time']['median_ms']:.4f} ms, rel_l2 {k['check']['rel_l2']:.2e} "
                     f"({'ok' if k['check']['ok'] else 'FAIL'})")
        if "tuned" in k:
            self.say("      tuned: " + "; ".join(f"{label} {ms:.4f}" for label, ms in k["tuned"]))
        return k

    def run_peer(self, case, name, fn, inputs, refs, first_call=None):
        p = {}
        try:
            s = time.time()
            out = fn(*inputs) if first_call is None else first_call(*inputs)
            if not self.cpu:
                self.torch.cuda.synchronize()
            p["first_call_s"] = time.time() - s
            out0 = out[0] if isinstance(out, (tuple, list)) else out
            p["check"], _ = self.check_outputs([out0], refs[:1])
            p["time"] = self.timer(lambda: fn(*inputs))
            self.say(f"   {name}: {p['time']['median_ms']:.4f} ms, rel_l2 {p['check']['rel_l2']:.2e}")
        except Exception as e:  # noqa: BLE001
            p["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
            p["fatal"] = not self.cuda_alive()
            self.say(f"   {name}: failed: {p['error']}")
        return p

    def run_compile(self, case, inputs, refs):
        t = self.torch
        why = case.no_compile
        if why is None and self.cpu:
            why = "not run with --device cpu"
        if why is None and not hasattr(t, "compile"):
            why = f"torch {t.__version__} has no torch.compile"
        if why is None and self.compile_spent > self.a.compile_budget_s:
            why = f"torch.compile's budget ({self.a.compile_budget_s:.0f} s of compiling) is spent"
        if why is None and self.left() < 90:
            why = "too little of the time budget is left to compile"
        if why:
            self.say(f"   torch.compile: skipped: {why}")
            return {"skipped": why, "by_design": why == case.no_compile or self.cpu}
        try:
            t._dynamo.reset()
            t._dynamo.config.cache_size_limit = max(64, t._dynamo.config.cache_size_limit)
        except Exception:  # noqa: BLE001 - older or newer dynamo: compile anyway
            pass
        base = case.compile_fn or case.torch_fn
        compiled = t.compile(lambda *xs: base(t, *xs), dynamic=False)
        s = time.time()
        p = self.run_peer(case, "torch.compile", compiled, inputs, refs)
        self.compile_spent += p.get("first_call_s", time.time() - s)
        p["compile_s"] = p.get("first_call_s")
        return p

    def run_triton(self, case, inputs, refs):
        why = None
        if case.triton_fn is None:
            why = case.no_triton
        elif self.tp is None:
            why = f"Triton unavailable: {self.triton_error}"
        elif self.cpu:
            why = "not run with --device cpu"
        elif self.triton_spent > self.a.triton_budget_s:
            why = f"Triton's budget ({self.a.triton_budget_s:.0f} s of compiling and autotuning) is spent"
        elif self.left() < 45:
            why = "too little of the time budget is left"
        if why:
            self.say(f"   triton: skipped: {why}")
            return {"skipped": why, "by_design": why == case.no_triton or self.tp is None}
        s = time.time()
        p = self.run_peer(case, "triton", lambda *xs: case.triton_fn(self.tp, *xs), inputs, refs)
        self.triton_spent += p.get("first_call_s", time.time() - s)
        return p


# ---------------------------------------------------------------- dry run


def dry_run(args, rt, prepared, cases):
    """Plans every case without CUDA: loads each kernel's prepared metadata,
    binds the arguments (fake device addresses), and has the runtime's own
    check pick the candidate and compute the grid."""
    problems = 0
    used = set()
    print(f"dry run: {sum(len(v) for v in prepared.values())} prepared candidates of {len(prepared)} kernels "
          f"in {args.ptx}; {len(cases)} cases")
    for case in cases:
        print(f"== {case.name}")
        if case.skip:
            print(f"   skipped: {case.skip}")
            continue
        inputs = [x.make(None, None) if isinstance(x, In) else x for x in case.inputs]
        in_bytes = sum(nbytes(x) for x in inputs if isinstance(x, FakeTensor))
        for use in case.kernels:
            used.add(use.name)
            cands = candidates_for(prepared, use)
            if not cands:
                print(f"   tmc {use.name}: NOT PREPARED (no candidate with {use.fixed})")
                problems += 1
                continue
            ok, refused = [], []
            for c in cands:
                try:
                    a, outs = bind(rt, c, inputs, lambda shape, dtype: FakeTensor(shape, dtype), case.symbols)
                    grid, block = rt.check(c.meta_text, c.kernel, a)
                    ok.append((c, grid, block, outs))
                except LaunchRefused as e:
                    refused.append(str(e))
            if not ok:
                print(f"   tmc {use.name}: NO CANDIDATE HOLDS: {refused[-1]}")
                problems += 1
                continue
            c, grid, block, outs = ok[0]
            out_desc = ", ".join(f"{dtype_of(o)}{list(o.shape)}" for o in outs)
            total = in_bytes + sum(nbytes(o) for o in outs)
            what = (f"tune over {len(ok)} of {len(cands)} candidates (first {c.label()})" if use.tune
                    else f"candidate {c.label()}" + (f" ({len(refused)} refused first)" if refused else ""))
            print(f"   tmc {use.name}: {what}; grid {grid[:len(c.sig['grid']) or 1]} block "
                  f"{block[:len(c.sig['block'])]}; {len(a)} args -> {out_desc}; {total / 2**20:.0f} MiB moved")
        peers = ["torch"]
        peers.append("torch.compile" if case.no_compile is None else "no torch.compile")
        peers.append("triton" if case.triton_fn else "no triton")
        extra = f"; {case.flops / 1e12:.2f} TFLOP against the {case.rate} rate" if case.flops else ""
        print(f"   peers: {', '.join(peers)}{extra}")
    rest = sorted(set(prepared) - used)
    if rest and not args.only:
        print(f"prepared but benchmarked by no case: {', '.join(rest)}")
    print(f"dry run: {len(cases)} cases planned, {problems} problems")
    return 1 if problems else 0


# ---------------------------------------------------------------- report


def report(path):
    recs = [json.loads(line) for line in open(path)] if os.path.exists(path) else []
    ceil = next((r["values"] for r in recs if r["type"] == "ceilings"), {})
    cases, order = {}, []
    for r in recs:
        if r["type"] == "start":
            order.append(r["case"])
            cases.setdefault(r["case"], None)
        elif r["type"] == "case":
            cases[r["case"]] = r
    print()
    print("GPU: stdlib against PyTorch, torch.compile and Triton (median ms; ratio = tmc / peer, < 1: tmc faster)")
    for r in recs:
        if r["type"] == "env":
            print(r["text"])
            break
    if ceil:
        print(f"measured: copy {ceil.get('copy_GBps', 0):.0f} GB/s (1 GiB device-to-device, read + write); "
              f"matmul 8192^3 bf16 {ceil.get('mm_bf16_TFLOPs', 0):.0f}, f16 {ceil.get('mm_f16_TFLOPs', 0):.0f}, "
              f"f32 {ceil.get('mm_f32_TFLOPs', 0):.1f} TFLOP/s (torch); nominal H200 dense bf16: 989 TFLOP/s")
    hdr = (f"{'case':<30} {'tmc kernel [candidate]':<34} {'tmc':>8} {'torch':>8} {'compile':>8} {'triton':>8} "
           f"{'/torch':>6} {'/comp':>6} {'/trit':>6} {'rel_l2':>8} {'ok':>4} {'roof':>9}")
    print(hdr)
    failures, notes = 0, []

    def ms(p):
        return p["time"]["median_ms"] if p and "time" in p else None

    def fmt(x, w, spec):
        return f"{x:{w}{spec}}" if x is not None else f"{'-':>{w}}"
    for name in order:
        r = cases.get(name)
        if r is None:
            print(f"{name[:30]:<30} the process died in this case (a kernel fault or the time limit)")
            failures += 1
            continue
        if r.get("skipped"):
            print(f"{name[:30]:<30} skipped: {r['skipped']}")
            continue
        if r.get("error"):
            print(f"{name[:30]:<30} error: {r['error'][:90]}")
            failures += 1
            continue
        peers = r.get("peers", {})
        pt, pc, pr = (ms(peers.get(n)) for n in ("torch", "torch.compile", "triton"))
        for n, p in peers.items():
            if p.get("error"):
                notes.append(f"{name}: {n} failed: {p['error'][:150]}")
            elif p.get("check") and not p["check"]["ok"]:
                notes.append(f"{name}: {n} rel_l2 {p['check']['rel_l2']:.2e} over {p['check']['tol']:g}")
        for k in r.get("kernels", []):
            label = f"{k['kernel']} [{k.get('candidate', '-')}]"
            if "error" in k:
                print(f"{name[:30]:<30} {label[:34]:<34} error: {k['error'][:120]}")
                failures += 1
                continue
            tm = ms(k)
            chk = k["check"]
            ok = "ok" if all(o["ok"] for o in k["outputs"]) else "FAIL"
            failures += ok != "ok"
            if r.get("flops"):
                rate = r["flops"] / (tm * 1e-3) / 1e12
                m = ceil.get(f"mm_{r.get('rate')}_TFLOPs")
                roof = f"{100 * rate / m:.0f}%mm" if m else f"{rate:.0f}TF"
            else:
                bw = r.get("bytes", 0) / (tm * 1e-3) / 1e9
                roof = f"{100 * bw / ceil['copy_GBps']:.0f}%bw" if ceil.get("copy_GBps") else f"{bw:.0f}GB/s"
            ratio = lambda p: tm / p if p else None
            print(f"{name[:30]:<30} {label[:34]:<34} {tm:8.4f} {fmt(pt, 8, '.4f')} {fmt(pc, 8, '.4f')} "
                  f"{fmt(pr, 8, '.4f')} {fmt(ratio(pt), 6, '.2f')} {fmt(ratio(pc), 6, '.2f')} "
                  f"{fmt(ratio(pr), 6, '.2f')} {chk['rel_l2']:8.1e} {ok:>4} {roof:>9}")
            if k["time"].get("note"):
                notes.append(f"{name}: {k['kernel']}: {k['time']['note']}")
        for n, p in peers.items():  # skips by design are in the log; those for time are noted
            if p.get("skipped") and not p.get("by_design"):
                notes.append(f"{name}: {n} skipped: {p['skipped']}")
    if notes:  # kept short: the table must stay within the reply's output tail
        print("notes:")
        for n in notes[:15]:
            print("  " + n)
        if len(notes) > 15:
            print(f"  ... {len(notes) - 15} more in the log (stdlib_log.txt)")
    print("roof: % of the measured copy bandwidth (bytes: every input read once, every output written once) or "
          "of the measured torch matmul rate of the same type")
    print(f"stdlib bench: {sum(1 for n in order if cases.get(n))} cases, {failures} tmc failures")
    return 1 if failures else 0


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="plan every case without CUDA (no GPU needed)")
    ap.add_argument("--report", action="store_true", help="print the table of --results and exit")
    ap.add_argument("--ptx", default=os.path.join(HERE, "stdlib_ptx"), help="prepare_stdlib.sh's output")
    ap.add_argument("--lib", default=os.environ.get("TMC_BENCH_LIB", "/tmp/tmc-replay-build/libtmc_bench.so"),
                    help="libtmc_bench.so (cmake -S bench/gpu -B DIR && cmake --build DIR)")
    ap.add_argument("--results", help="JSON lines file to append results to (and resume from)")
    ap.add_argument("--deadline", type=float, help="time (seconds since the epoch) by which to be done")
    ap.add_argument("--budget-s", type=float, default=420, help="the time budget when no --deadline is given")
    ap.add_argument("--compile-budget-s", type=float, default=150, help="seconds of torch.compile compiling at most")
    ap.add_argument("--triton-budget-s", type=float, default=90, help="seconds of Triton compiling/autotuning at most")
    ap.add_argument("--only", help="run only the cases whose name matches this regular expression")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                    help="cpu: a smoke test of the torch side at tiny sizes (tmc kernels are not launched)")
    args = ap.parse_args()
    if args.report:
        return report(args.results)
    rt = Runtime(args.lib)
    prepared = load_prepared(args.ptx)
    if not prepared:
        print(f"stdlib bench: nothing prepared in {args.ptx}: run bench/gpu/prepare_stdlib.sh (where tmc runs) "
              "and carry that folder")
        return 1
    attention = {k: v for k, v in prepared.items() if v[0].module in ("attention", "hopper_attention")}
    small = args.device == "cpu"
    cases = build_cases(small, attention)
    if args.only:
        cases = [c for c in cases if re.search(args.only, c.name)]
    if args.dry_run:
        return dry_run(args, rt, prepared, cases)
    uncovered = sorted(set(prepared) - {u.name for c in cases for u in c.kernels})
    if uncovered and not args.only:
        print(f"prepared but benchmarked by no case: {', '.join(uncovered)}")
    try:
        import torch
    except ImportError as e:
        print(f"stdlib bench: PyTorch unavailable ({e})")
        return 1
    TORCH_DTYPES.update({"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
                         "i32": torch.int32, "i64": torch.int64, "i8": torch.int8, "u8": torch.uint8,
                         "i16": torch.int16, "bool": torch.bool})
    if args.device == "cuda" and not torch.cuda.is_available():
        print("stdlib bench: torch sees no CUDA device")
        return 1
    try:
        import triton_peers
        triton_error = None
    except Exception as e:  # noqa: BLE001 - Triton missing or broken: reported, the run goes on
        triton_peers, triton_error = None, f"{type(e).__name__}: {e}"
    return Bench(args, rt, prepared, torch, triton_peers, triton_error).run(cases)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
