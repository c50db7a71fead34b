#!/usr/bin/env python3
"""Times tmc's fused graphs on the GPU against PyTorch eager and
torch.compile, in one run: the MLP layer (matmul + bias + GELU), the
transformer block's feed-forward part (layer norm, matmul + bias + GELU,
matmul + bias + residual) and a user's op fused into a matmul (squared
ReLU). Each graph is also run unfused (tmc --no-fuse: one kernel per
operation), to show what fusion saves on the same machine.

bench/gpu/prepare_graphs.sh compiles the plans here (tmc needs LLVM); on the
GPU machine this script loads them with the host runtime (libtmc_bench.so,
ctypes), runs them through tmc_graph_launch on torch's tensors, checks the
result against PyTorch's in f32 (relative L2) and prints the median times
and ratios.

  python3 bench/gpu/graph_bench.py --lib BUILD/libtmc_bench.so --dry-run   # no GPU: checks every planned launch
  python3 bench/gpu/graph_bench.py --lib BUILD/libtmc_bench.so             # on the GPU machine
"""
import argparse
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from stdlib_bench import DTYPES, Runtime, TmcArg, Timer, rel_l2  # noqa: E402

PLANS = os.path.join(HERE, "graph_ptx")
SIZES = [1024, 4096, 8192, 4000]  # rows (M); 4000 does not divide the 128-row tiles


def graphs(torch):
    """name -> (input shapes by M, the PyTorch function)."""
    F = torch.nn.functional

    def mlp(x, w, b):
        return F.gelu(x @ w + b)

    def ffn_block(x, g, beta, w1, b1, w2, b2):
        h = F.layer_norm(x.float(), (x.shape[-1],), g.float(), beta.float(), 1e-5).half()
        u = F.gelu(h @ w1 + b1)
        return u @ w2 + b2 + x

    def ffn_relu2(x, w):
        return torch.relu(x @ w) ** 2

    return {
        "mlp": (lambda m: [(m, 768), (768, 3072), (3072,)], mlp),
        "ffn_block": (lambda m: [(m, 768), (768,), (768,), (768, 3072), (3072,), (3072, 768), (768,)], ffn_block),
        "ffn_relu2": (lambda m: [(m, 1024), (1024, 4096)], ffn_relu2),
    }


def graph_api(rt):
    lib, p = rt.lib, ctypes.c_void_p
    lib.tmc_module_get_graph.argtypes = [p, ctypes.c_char_p, ctypes.POINTER(p)]
    lib.tmc_graph_workspace_size.argtypes = [p, ctypes.POINTER(TmcArg), ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
    lib.tmc_graph_launch.argtypes = [p, ctypes.POINTER(TmcArg), ctypes.c_int, ctypes.c_uint64, ctypes.c_size_t, p]
    lib.tmc_bench_graph_check.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(TmcArg), ctypes.c_int,
                                          ctypes.POINTER(ctypes.c_uint64), ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.c_char_p, ctypes.c_size_t]


def make_args(tensors, dtype="f16"):
    """tmc_arg array of (device pointer, shape) pairs: the graph's inputs, then its output."""
    args = (TmcArg * len(tensors))()
    for a, (ptr, shape) in zip(args, tensors):
        a.is_tensor = 1
        a.tensor.data = ptr
        a.tensor.dtype = DTYPES.index(dtype)
        a.tensor.rank = len(shape)
        for d, n in enumerate(shape):
            a.tensor.shape[d] = n
    return args


def check(rt, meta, graph, args):
    ws, chosen, err = ctypes.c_uint64(), ctypes.create_string_buffer(1024), ctypes.create_string_buffer(2048)
    rc = rt.lib.tmc_bench_graph_check(meta.encode(), graph.encode(), args, len(args), ctypes.byref(ws), chosen,
                                      len(chosen), err, len(err))
    if rc:
        raise RuntimeError(err.value.decode())
    return ws.value, chosen.value.decode()


def dry_run(rt, torch_shapes):
    """Every planned launch checked with the runtime's own code, on fake device addresses."""
    failures = 0
    for name, (shapes, _) in torch_shapes.items():
        for variant in ("", "_unfused"):
            meta = open(os.path.join(PLANS, name + variant + ".json")).read()
            for m in SIZES:
                ins = shapes(m)
                out = ins[0][:1] + (ins[-1][-1] if name != "ffn_block" else 768,)
                args = make_args([((1 << 30) * (i + 1), s) for i, s in enumerate(ins + [out])])
                try:
                    ws, chosen = check(rt, meta, name, args)
                    print(f"ok    {name + variant:20} M={m:<5} workspace {ws:>10} bytes  kernels {chosen}")
                except RuntimeError as e:
                    failures += 1
                    print(f"FAIL  {name + variant:20} M={m:<5} {e}")
    print(f"dry run: {failures} failures")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="libtmc_bench.so (cmake -S bench/gpu -B BUILD && cmake --build BUILD)")
    ap.add_argument("--dry-run", action="store_true", help="check every planned launch without a GPU")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    args = ap.parse_args()
    if not os.path.isdir(PLANS):
        print("graph bench: bench/gpu/graph_ptx is missing: run bench/gpu/prepare_graphs.sh where tmc runs and carry it")
        return 1
    rt = Runtime(args.lib)
    graph_api(rt)
    if args.dry_run:
        class NoTorch:  # the shapes only
            class nn:
                functional = None
        return dry_run(rt, graphs(NoTorch))
    import torch
    torch.manual_seed(0)
    rt.init()
    timer = Timer(torch, cpu=False)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'graph':10} {'M':>5} {'tmc ms':>8} {'unfused':>8} {'eager':>8} {'compile':>8} "
          f"{'eager/tmc':>9} {'compile/tmc':>11} {'rel L2':>9}")
    status = 0
    for name, (shapes, fn) in graphs(torch).items():
        compiled = None
        if not args.no_compile:
            try:
                compiled = torch.compile(fn)
            except Exception as e:  # noqa: BLE001 (a peer that cannot run is reported, not fatal)
                print(f"torch.compile unavailable: {e}")
        loaded = {}
        for variant in ("", "_unfused"):
            ptx = open(os.path.join(PLANS, name + variant + ".ptx"), "rb").read()
            meta = open(os.path.join(PLANS, name + variant + ".json")).read()
            module, graph = ctypes.c_void_p(), ctypes.c_void_p()
            if rt.lib.tmc_module_load(rt.ctx, ptx, len(ptx) + 1, meta.encode(), ctypes.byref(module)) or \
               rt.lib.tmc_module_get_graph(module, name.encode(), ctypes.byref(graph)):
                raise RuntimeError(rt.error())
            loaded[variant] = graph
        for m in SIZES:
            ins = [torch.randn(*s, device="cuda", dtype=torch.float16) * (0.1 if len(s) == 2 and s[0] != m else 1.0)
                   for s in shapes(m)]
            ref = fn(*ins)
            out = torch.empty_like(ref)
            targs = make_args([(t.data_ptr(), tuple(t.shape)) for t in ins + [out]])

            def launch(g):
                def go():
                    if rt.lib.tmc_graph_launch(g, targs, len(targs), 0, 0, None):
                        raise RuntimeError("tmc_graph_launch: " + rt.error())
                return go
            tmc_ms = timer(launch(loaded[""]))["median_ms"]
            err, bad = rel_l2(torch, out.float(), ref.float())
            unfused_ms = timer(launch(loaded["_unfused"]))["median_ms"]
            eager_ms = timer(lambda: fn(*ins))["median_ms"]
            compile_ms = float("nan")
            if compiled is not None:
                try:
                    compile_ms = timer(lambda: compiled(*ins))["median_ms"]
                except Exception as e:  # noqa: BLE001
                    print(f"torch.compile failed on {name}: {e}")
                    compiled = None
            ok = bad == 0 and err < 2e-2
            status |= not ok
            print(f"{name:10} {m:>5} {tmc_ms:>8.4f} {unfused_ms:>8.4f} {eager_ms:>8.4f} {compile_ms:>8.4f} "
                  f"{eager_ms / tmc_ms:>9.2f} {compile_ms / tmc_ms:>11.2f} {err:>9.2e}{'' if ok else '  FAIL'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
