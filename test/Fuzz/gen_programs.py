#!/usr/bin/env python3
"""A generator of well-typed .tm programs, and a driver that runs each one
through the whole compiler.

fuzz_frontend.py mutates text, so its inputs rarely get past the type
checker; this one builds programs that are valid by construction: ops
(element-wise expressions with lets, ternaries, casts and math calls;
reductions with sum/max/min/prod), kernels that implement them with
compile-time parameters and task mappings of edge extents (compositions of
spatial/repeat/col_spatial/col_repeat, extents 1 and non-powers of two),
global, shared, register and distributed register tensors, device
functions, graphs, and kernels that exercise every built-in (shuffles,
atomics over every element type in global and shared memory, casts over
every pair of types, min/max/abs, math functions).

For each program the driver runs
  tmc FILE                       must exit 0 (1 = a generator bug, counted
                                 separately as "rejected")
  tmc FILE --emit=K              K in ast ir llvm ptx cuda meta: exit 0
  ptxas -arch=sm_80 / sm_90a     on the PTX (sm_90a: --emit=ptx --arch=sm_90a)
  nvcc -arch=sm_80 -c            on the CUDA C
  tmc run --check-bounds --check-races
                                 every kernel, at shapes that divide its
                                 tiles and shapes that do not; for a kernel
                                 that implements an op, FAIL is a wrong answer
Anything else (exit code 2 or a signal, a timeout, a tool rejecting tmc's
output, a FAIL or any error from tmc run) is a finding: the program is
saved to the --save folder with a .txt note of the command and its output.

usage: gen_programs.py TMC SEED COUNT [--save DIR] [--no-cuda] [--no-run]
                       [--timeout S] [--slow S] [--print] [--check-only] [--nvcc-ptx]
  --print     write the programs of seeds SEED..SEED+COUNT-1 to stdout, run nothing
  --no-cuda   skip ptxas and nvcc (also skipped when /usr/local/cuda is absent)
  --no-run    skip tmc run
  --timeout S wall-clock limit of each command (default 300)
  --avoid K,..  do not generate what exposes a known open finding: wrap
              (integer + - * << that may overflow, integer sums: the op
              reference does not wrap), strided-pad (padded strided shared
              layouts: sized without their strides)
  --slow S    a tmc command using more than S seconds of CPU is a finding (default 20)
  --check-only  only run the checker (to test the generator itself)
  --nvcc-ptx  nvcc --ptx instead of nvcc -c: the same device front end
              (cicc) in about 6 s instead of 16 s a program, without the host pass
Program i uses the seed SEED * 1000003 + i, so a run is reproducible and one
program can be regenerated alone (see --print). Exits 1 if there is a finding.
"""
import os
import random
import resource
import subprocess
import sys
import tempfile

FLOATS = ["f16", "bf16", "f32", "f64"]
SINTS = ["i8", "i16", "i32", "i64"]
UINTS = ["u8", "u16", "u32", "u64"]
INTS = SINTS + UINTS
NUMERIC = INTS + FLOATS
ALL_TYPES = ["bool"] + NUMERIC
BITS = {"bool": 1, "i8": 8, "u8": 8, "i16": 16, "u16": 16, "f16": 16, "bf16": 16, "i32": 32, "u32": 32,
        "f32": 32, "i64": 64, "u64": 64, "f64": 64}
MATH1 = ["exp", "exp2", "tanh", "erf", "sin", "cos", "sigmoid", "floor", "ceil"]
EXTENTS = [1, 1, 2, 3, 4, 5, 6, 7, 8]
CUDA = "/usr/local/cuda/bin"


class Ctx:
    """Rendering context of an expression: how to spell input k and a
    device-function call (kernels call it; ops inline its body)."""

    def __init__(self, leaf, inline_funcs):
        self.leaf = leaf
        self.inline_funcs = inline_funcs


class Gen:
    def __init__(self, seed, avoid=()):
        self.r = random.Random(seed)
        self.avoid = set(avoid)  # known open findings not to generate again
        self.funcs = []  # (name, T, expression tree over leaves 0 and 1)
        self.n = 0

    def name(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def pick(self, xs):
        return self.r.choice(xs)

    # ---- expressions over NIN input leaves, all of type T ----------------
    def expr(self, T, nin, depth, allow_funcs=True):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            if r.random() < 0.15:
                return ("lit", self.literal(T), T)
            return ("in", r.randrange(nin))
        kinds = ["bin", "bin", "minmax", "abs", "tern", "select", "cast", "let"]
        if T in FLOATS:
            kinds += ["math", "math", "fma", "pow"]
        else:
            kinds += ["bits", "shift"]
        if allow_funcs and self.funcs and any(f[1] == T for f in self.funcs):
            kinds.append("call")
        k = self.pick(kinds)
        sub = lambda: self.expr(T, nin, depth - 1, allow_funcs)
        if k in ("bin", "shift") and T in INTS and "wrap" in self.avoid:
            k = "bits"  # integer + - << can overflow: the reference does not wrap
        if k == "bin":
            op = self.pick(["+", "-", "*"] if T in FLOATS else ["+", "-"])
            return ("bin", op, sub(), sub())
        if k == "minmax":
            return ("call", self.pick(["min", "max"]), sub(), sub())
        if k == "abs":
            return ("call", "abs", sub())
        if k == "tern":
            return ("tern", self.pick(["<", ">", "<=", ">=", "==", "!="]), sub(), sub(), sub(), sub())
        if k == "select":
            return ("select", self.pick(["<", ">"]), sub(), sub(), sub(), sub())
        if k == "cast":
            # a round trip through a type that holds every value of T exactly
            wider = {"f16": ["f32", "f64"], "bf16": ["f32", "f64"], "f32": ["f64"], "f64": ["f64"],
                     "i8": ["i16", "i32", "i64", "f16", "f32"], "u8": ["u16", "i16", "u32", "f64"],
                     "i16": ["i32", "i64", "f32"], "u16": ["u32", "i32", "u64", "f32"],
                     "i32": ["i64", "f64"], "u32": ["u64", "i64", "f64"], "i64": ["i64"], "u64": ["u64"]}[T]
            return ("cast", T, self.pick(wider), sub())
        if k == "let":
            return ("let", sub(), sub())
        if k == "math":
            # math of one input element (inputs are in +-[1/16, 17/16]), so
            # that f16 rounding before a discontinuous function cannot flip it
            return ("call", self.pick(MATH1), ("in", r.randrange(nin)))
        if k == "fma":
            return ("call", "fma", sub(), sub(), sub())
        if k == "pow":
            return ("pow", ("in", r.randrange(nin)), self.pick(["2.0", "0.5", "3.0"]))
        if k == "bits":
            return ("bin", self.pick(["&", "|", "^"]), sub(), sub())
        if k == "shift":
            return ("bin", self.pick([">>", "<<"]), sub(), str(r.randrange(3)))
        f = self.pick([f for f in self.funcs if f[1] == T])
        return ("fn", f[0], sub(), sub())

    def literal(self, T):
        if T in FLOATS:
            return self.pick(["0.5", "2.0", "1.5", "0.25", "3.0"])
        return self.pick(["1", "2", "3", "5"])

    def render(self, e, ctx):
        k = e[0]
        R = lambda x: self.render(x, ctx) if isinstance(x, tuple) else x
        if k == "lit":
            # suffixed, so that a subexpression of literals alone keeps its
            # type; bin below spells a literal next to a typed operand bare
            return e[1] + e[2]
        if k == "bin" and e[3][0] == "lit" and has_input(e[2]):
            return f"({R(e[2])} {e[1]} {e[3][1]})"
        if k == "in":
            return ctx.leaf(e[1])
        if k == "bin":
            return f"({R(e[2])} {e[1]} {R(e[3])})"
        if k == "call":
            return f"{e[1]}({', '.join(R(a) for a in e[2:])})"
        if k == "tern":
            return f"({R(e[2])} {e[1]} {R(e[3])} ? {R(e[4])} : {R(e[5])})"
        if k == "select":
            return f"select({R(e[2])} {e[1]} {R(e[3])}, {R(e[4])}, {R(e[5])})"
        if k == "cast":
            return f"{e[1]}({e[2]}({R(e[3])}))"
        if k == "let":
            # a let is a statement in kernels; in an expression it is the
            # same value spelled twice (lets are emitted by statement code)
            return f"({R(e[1])} + {R(e[2])})"
        if k == "pow":
            return f"pow(abs({R(e[1])}) + 0.5, {e[2]})"
        if k == "fn":
            if ctx.inline_funcs:
                f = next(f for f in self.funcs if f[0] == e[1])
                a, b = R(e[2]), R(e[3])
                return self.render(f[2], Ctx(lambda i: (a, b)[i], True))
            return f"{e[1]}({R(e[2])}, {R(e[3])})"
        raise AssertionError(k)

    def make_func(self, T):
        name = self.name("fn")
        body = self.expr(T, 2, 2, allow_funcs=False)
        self.funcs.append((name, T, body))
        src = self.render(body, Ctx(lambda i: "ab"[i], False))
        if self.r.random() < 0.5:
            text = f"func {name}(a: {T}, b: {T}) -> {T} {{\n  return {src};\n}}\n"
        else:  # the same value through a var, an if and two returns
            text = (f"func {name}(a: {T}, b: {T}) -> {T} {{\n  var v: {T} = {src};\n"
                    f"  if (a < b) {{\n    return v;\n  }} else {{\n    v = v + {T}(0);\n  }}\n  return v;\n}}\n")
        return text

    # ---- task mappings ----------------------------------------------------
    def mapping(self, max_workers):
        """A rank-2 composition; returns (text, workers, shape, params) where
        params are compile-time parameters the text uses."""
        while True:
            parts, workers, shape, params = [], 1, [1, 1], []
            for _ in range(self.r.randint(1, 3)):
                prim = self.pick(["spatial", "repeat", "col_spatial", "col_repeat"])
                ext = [self.pick(EXTENTS), self.pick(EXTENTS)]
                if prim.endswith("spatial") and self.r.random() < 0.5:
                    ext = [self.pick([1, 2, 4, 8, 16, 32]), self.pick([1, 3, 8, 16, 32])]
                spelled = [str(x) for x in ext]
                if prim.endswith("repeat") and self.r.random() < 0.4:
                    p = self.name("P")
                    alt = self.pick([x for x in EXTENTS if x != ext[0]] or [ext[0]])
                    params.append((p, ext[0], alt))
                    spelled[0] = p
                parts.append(f"{prim}({spelled[0]}, {spelled[1]})")
                if prim.endswith("spatial"):
                    workers *= ext[0] * ext[1]
                shape = [shape[0] * ext[0], shape[1] * ext[1]]
            if workers <= max_workers and shape[0] * shape[1] <= 4096:
                return " * ".join(parts), workers, shape, params

    # ---- programs -----------------------------------------------------------
    def program(self):
        """Returns (source, runs); a run is (kernel, shapes, extra args)."""
        kind = self.pick(["ew2d", "ew2d", "ew1d", "ew1d", "reduce", "reduce", "atomic_reduce", "cast", "builtins",
                          "mma", "warp_map"])
        return getattr(self, "p_" + kind)()

    def p_ew2d(self):
        T = self.pick(NUMERIC)
        nin = self.r.randint(1, 3)
        head, funcs = "", ""
        if self.r.random() < 0.5:
            funcs = self.make_func(T)
        e = self.expr(T, nin, 3 if T not in ("f16", "bf16") else 2)
        ins = [f"X{k}" for k in range(nin)]
        opname = self.name("op")
        # op: maybe with an intermediate let tensor and a scalar let
        op_body = ""
        leaf_op = lambda k: f"{ins[k]}[i, j]"
        if self.r.random() < 0.4 and has_input(e):  # a let tensor's indices need a tensor to index
            op_body += f"  let t[r, c] = {self.render(e, Ctx(lambda k: f'{ins[k]}[r, c]', True))};\n"
            op_out = f"t[i, j]"
        else:
            op_out = self.render(e, Ctx(leaf_op, True))
        params = ", ".join(f"{x}: {T}[R, C]" for x in ins)
        src = f"op {opname}({params}) -> {T}[R, C] {{\n{op_body}  out[i, j] = {op_out};\n}}\n\n" + funcs
        mtext, workers, (TR, TC), mparams = self.mapping(512)
        block = workers if self.r.random() < 0.8 else min(1024, workers + self.pick([1, 31, 32]))
        storage = self.pick(["global", "shared", "dist", "reg"])
        kname = self.name("k")
        cps = ", ".join(f"{p}: int in [{a}, {b}] = {a}" for p, a, b in mparams)
        kparams = f"<{cps}>" if cps else ""
        # spell the tile extents through the parameters where they are used
        tr = mtext_tile(mtext, 0)
        tc = mtext_tile(mtext, 1)
        body = [f"  let m = {mtext};"]
        kleaf = lambda k: f"{ins[k]}[r, c]"
        if storage == "shared":
            layouts = ["", " row_major", " col_major", f" strided(1, {tr})", f" strided({tc}, 1)"]
            if "strided-pad" not in self.avoid:
                layouts.append(f" strided({tc} + 1, 1)")
            layout = self.pick(layouts)
            for k, x in enumerate(ins):
                body.append(f"  shared s{k}: {T}[{tr}, {tc}]{layout};")
            body.append("  for (i, j) in m on threadIdx.x {")
            body.append(f"    let r = blockIdx.y * ({tr}) + i;\n    let c = blockIdx.x * ({tc}) + j;")
            body.append("    if (r < R && c < C) {")
            for k, x in enumerate(ins):
                body.append(f"      s{k}[i, j] = {x}[r, c];")
            body.append("    }\n  }\n  sync;")
            kleaf = lambda k: f"s{k}[i, j]"
        ex = self.render(e, Ctx(kleaf, False))
        if storage == "dist":
            body.append(f"  register acc: {T}[{tr}, {tc}] by m;")
            body.append("  for (i, j) in m on threadIdx.x {")
            body.append(f"    let r = blockIdx.y * ({tr}) + i;\n    let c = blockIdx.x * ({tc}) + j;")
            body.append(f"    if (r < R && c < C) {{\n      acc[i, j] = {ex};\n    }} else {{\n      acc[i, j] = {T}(0);\n    }}\n  }}")
            body.append("  for (i, j) in m on threadIdx.x {")
            body.append(f"    let r = blockIdx.y * ({tr}) + i;\n    let c = blockIdx.x * ({tc}) + j;")
            body.append("    if (r < R && c < C) {\n      Z[r, c] = acc[i, j];\n    }\n  }")
        else:
            body.append("  for (i, j) in m on threadIdx.x {")
            body.append(f"    let r = blockIdx.y * ({tr}) + i;\n    let c = blockIdx.x * ({tc}) + j;")
            body.append("    if (r < R && c < C) {")
            if storage == "reg":
                body.append(f"      register tmp: {T}[2];\n      tmp[0] = {ex};\n      tmp[1] = tmp[0];")
                body.append("      Z[r, c] = tmp[1];")
            else:
                body.append(f"      let v = {ex};\n      Z[r, c] = v;")
            body.append("    }\n  }")
        src += (f"kernel {kname}{kparams}({params}, Z: {T}[R, C])\n    implements {opname}\n"
                f"    grid(cdiv(C, {tc}), cdiv(R, {tr})) block({block})\n{{\n" + "\n".join(body) + "\n}\n")
        if T in FLOATS and self.r.random() < 0.5:
            src += self.graph(opname, T, ins)
        runs = []
        for R_, C_ in self.shapes2(TR, TC):
            runs.append((kname, f"R={R_},C={C_}", []))
        if mparams:  # the other candidate of a parameter, when it fits the block
            p, a, b = mparams[0]
            runs.append((kname, f"R={TR + 1},C={TC}", ["-D", f"{p}={b}"]))
        return src, runs

    def p_mma(self):
        """A tensor-core matmul on f16 or bf16 with W warps per block, each a
        16-row slice and NB 8-column fragments, fragments loaded from global
        memory directly or through shared memory with ldmatrix."""
        T = self.pick(["f16", "bf16"])
        W, NB = self.pick([1, 2, 4]), self.pick([1, 2, 3])
        BM, BN = 16 * W, 8 * NB
        opname, kname = self.name("op"), self.name("k")
        src = ("import std.mma;\n\n"
               f"op {opname}(A: {T}[M, K], B: {T}[K, N]) -> f32[M, N] {{\n"
               "  out[i, j] = sum(k < K) f32(A[i, k]) * f32(B[k, j]);\n}\n\n")
        via = self.pick(["global", "ldmatrix"])
        L = []
        L.append(f"  register a: {T}[16, 16] by mma_a;")
        for n in range(NB):
            L.append(f"  register b{n}: {T}[16, 8] by mma_b;\n  register c{n}: f32[16, 8] by mma_c;")
        L.append("  for (i, j) in mma_c on lane_id {")
        for n in range(NB):
            L.append(f"    c{n}[i, j] = 0.0;")
        L.append("  }")
        L.append(f"  let row0 = blockIdx.y * {BM} + warp_id * 16;\n  let col0 = blockIdx.x * {BN};")
        if via == "ldmatrix":
            pad = self.pick([0, 8, 16])
            L.insert(0, f"  shared sa: {T}[{BM}, {16 + pad}];")
        L.append("  for k0 in range(0, K, 16) {")
        if via == "ldmatrix":
            L.append(f"    for (i, k) in repeat({max(1, BM * 16 // (32 * W * 4))}, 1) * spatial({min(BM, 32 * W // 4)}, 4) * repeat(1, 4) on threadIdx.x {{")
            L.append(f"      let gi = blockIdx.y * {BM} + i;\n      let gk = k0 + k;")
            L.append("      sa[i, k] = (gi < M && gk < K) ? A[gi, gk] : 0.0;\n    }\n    sync;")
            L.append("    ldmatrix(a, sa, warp_id * 16, 0);\n    sync;")
        else:
            L.append("    for (i, k) in mma_a on lane_id {")
            L.append("      a[i, k] = (row0 + i < M && k0 + k < K) ? A[row0 + i, k0 + k] : 0.0;\n    }")
        L.append("    for (k, n) in mma_b on lane_id {")
        for n in range(NB):
            L.append(f"      b{n}[k, n] = (k0 + k < K && col0 + {8 * n} + n < N) ? B[k0 + k, col0 + {8 * n} + n] : 0.0;")
        L.append("    }")
        for n in range(NB):
            L.append(f"    mma(c{n}, a, b{n}, c{n});")
        L.append("  }\n  for (i, j) in mma_c on lane_id {")
        for n in range(NB):
            L.append(f"    if (row0 + i < M && col0 + {8 * n} + j < N) {{\n      C[row0 + i, col0 + {8 * n} + j] = c{n}[i, j];\n    }}")
        L.append("  }")
        src += (f"kernel {kname}(A: {T}[M, K], B: {T}[K, N], C: f32[M, N])\n    implements {opname}\n"
                f"    grid(cdiv(N, {BN}), cdiv(M, {BM})) block({32 * W})\n{{\n" + "\n".join(L) + "\n}\n")
        shapes = [(BM, 16, BN), (BM + 3, 17, BN - 1 if BN > 1 else 1), (self.r.randint(1, 40), self.r.randint(1, 40),
                                                                          self.r.randint(1, 40))]
        return src, [(kname, f"M={m},K={k},N={n}", []) for m, k, n in shapes]

    def p_warp_map(self):
        """Mappings of rank 1 and 3 over lanes and warps: each warp owns a
        tile of a rank-3 tensor, its lanes the tasks of a composition."""
        T = self.pick(NUMERIC)
        rank = self.pick([1, 3])
        W = self.pick([1, 2, 3])
        while True:
            parts, workers, shape = [], 1, [1] * rank
            for _ in range(self.r.randint(1, 3)):
                prim = self.pick(["spatial", "repeat", "col_spatial", "col_repeat"])
                ext = [self.pick(EXTENTS[:7]) for _ in range(rank)]
                parts.append(f"{prim}({', '.join(map(str, ext))})")
                if prim.endswith("spatial"):
                    workers *= eval("*".join(map(str, ext)))
                shape = [a * b for a, b in zip(shape, ext)]
            if workers <= 32 and eval("*".join(map(str, shape))) <= 2048:
                break
        m = " * ".join(parts)
        e = self.expr(T, 1, 2)
        opname, kname = self.name("op"), self.name("k")
        dims = ["A", "B", "C"][:rank]
        iv = ["i", "j", "l"][:rank]
        src = (f"let lanes = {m};\n\nop {opname}(X: {T}[{', '.join(dims)}]) -> {T}[{', '.join(dims)}] {{\n"
               f"  out[{', '.join(iv)}] = {self.render(e, Ctx(lambda k: f'X[{chr(44).join(iv)}]', True))};\n}}\n\n")
        # the tile of warp w of block b: dimension 0 is split among blocks and warps
        gidx = [f"(blockIdx.x * {W} + warp_id) * {shape[0]} + {iv[0]}"] + [f"t{d} * {shape[d]} + {iv[d]}" for d in range(1, rank)]
        loops, close = "", ""
        for d in range(1, rank):
            loops += f"{'  ' * d}for t{d} in range(cdiv({dims[d]}, {shape[d]})) {{\n"
            close = f"{'  ' * d}}}\n" + close
        ind = "  " * rank
        names = [f"x{d}" for d in range(rank)]
        lets = "".join(f"{ind}  let {names[d]} = {gidx[d]};\n" for d in range(rank))
        cond = " && ".join(f"{names[d]} < {dims[d]}" for d in range(rank))
        ex = self.render(e, Ctx(lambda k: f"X[{', '.join(names)}]", False))
        vars_ = iv[0] if rank == 1 else f"({', '.join(iv)})"
        body = (loops + f"{ind}for {vars_} in lanes on lane_id {{\n" + lets +
                f"{ind}  if ({cond}) {{\n{ind}    Y[{', '.join(names)}] = {ex};\n{ind}  }}\n{ind}}}\n" + close)
        src += (f"kernel {kname}(X: {T}[{', '.join(dims)}], Y: {T}[{', '.join(dims)}])\n    implements {opname}\n"
                f"    grid(cdiv({dims[0]}, {W * shape[0]})) block({32 * W})\n{{\n{body}}}\n")
        runs = []
        for sc in [1, 2]:
            vals = [shape[d] * sc + (sc - 1) for d in range(rank)]
            runs.append((kname, ",".join(f"{dims[d]}={vals[d]}" for d in range(rank)), []))
        return src, runs

    def graph(self, opname, T, ins):
        g = self.name("g")
        args = ", ".join(f"{x}: {T}[R, C]" for x in ins)
        ret = self.pick([f"h + {ins[0]}", f"h * 2.0", f"h - b", f"h + b1"])
        extra = ""
        if ret.endswith(" b"):
            extra = f", b: {T}[C]"
        elif ret.endswith("b1"):
            extra = f", b1: {T}[1, C]"
        return (f"\ngraph {g}({args}{extra}) -> {T}[R, C] {{\n  let h = {opname}({', '.join(ins)});\n"
                f"  return {ret};\n}}\n")

    def shapes2(self, TR, TC):
        shapes = [(TR, TC), (TR * 2 + 1, max(1, TC - 1)), (1, 1)]
        if TR > 1 or TC > 1:
            shapes.append((self.r.randint(1, 3 * TR), self.r.randint(1, 3 * TC)))
        out = []
        for s in shapes:
            if s not in out and s[0] * s[1] <= 40000:
                out.append(s)
        return out

    def p_ew1d(self):
        T = self.pick(NUMERIC)
        nin = self.r.randint(1, 2)
        funcs = self.make_func(T) if self.r.random() < 0.5 else ""
        e = self.expr(T, nin, 3 if T not in ("f16", "bf16") else 2)
        ins = [f"X{k}" for k in range(nin)]
        opname, kname = self.name("op"), self.name("k")
        params = ", ".join(f"{x}: {T}[N]" for x in ins)
        src = (f"op {opname}({params}) -> {T}[N] {{\n  out[i] = "
               f"{self.render(e, Ctx(lambda k: f'{ins[k]}[i]', True))};\n}}\n\n" + funcs)
        B = self.pick([32, 64, 96, 128, 33, 1, 7])
        G = self.pick([1, 2, 3])
        ex = self.render(e, Ctx(lambda k: f"{ins[k]}[g]", False))
        loop = self.pick(["stride", "while", "cp_async"] if BITS[T] >= 32 else ["stride", "while"])
        if loop == "cp_async":
            # stage the block's tile in shared memory with cp_async: 16-byte
            # copies where the whole chunk is inside, element copies elsewhere
            size = BITS[T] // 8
            per = 16 // size
            TILE = B * per
            sh = "\n".join(f"  shared s{k}: {T}[{TILE}];" for k in range(nin))
            copies = ""
            for k in range(nin):
                copies += (f"    if (g + {per - 1} < N) {{\n      cp_async(s{k}[t * {per}], X{k}[g], 16);\n    }} else {{\n"
                           f"      for e in range({per}) {{\n        if (g + e < N) {{\n"
                           f"          cp_async(s{k}[t * {per} + e], X{k}[g + e], {size});\n        }}\n      }}\n    }}\n")
            exs = self.render(e, Ctx(lambda k: f"s{k}[l]", False))
            body = (f"{sh}\n  let t = threadIdx.x;\n  for base in range(blockIdx.x * {TILE}, N, {TILE} * gridDim.x) {{\n"
                    f"    let g = base + t * {per};\n    if (g < N) {{\n{copies.replace(chr(10) + '    ', chr(10) + '      ')}    }}\n"
                    f"    cp_async_commit();\n    cp_async_wait(0);\n    sync;\n"
                    f"    for l in range(t, {TILE}, {B}) {{\n      if (base + l < N) {{\n        Z[base + l] = {exs};\n      }}\n    }}\n"
                    f"    sync;\n  }}\n")
        elif loop == "stride":
            body = (f"  for g in range(blockIdx.x * {B} + threadIdx.x, N, {B} * gridDim.x) {{\n"
                    f"    Z[g] = {ex};\n  }}\n")
        else:
            body = (f"  var g = blockIdx.x * {B} + threadIdx.x;\n  while (true) {{\n    if (g >= N) {{\n      break;\n    }}\n"
                    f"    Z[g] = {ex};\n    g += {B} * gridDim.x;\n  }}\n")
        src += (f"kernel {kname}<B: int = {B}>({params}, Z: {T}[N])\n    implements {opname}\n"
                f"    grid({G}) block(B)\n{{\n{body}}}\n")
        runs = [(kname, f"N={n}", []) for n in sorted({1, B * G, B * G * 2 + 3, self.r.randint(1, 300)})]
        return src, runs

    def red_expr(self, T, nin):
        return self.expr(T, nin, 1, allow_funcs=False)

    def p_reduce(self):
        T = self.pick(NUMERIC)
        red = self.pick(["sum", "max", "min", "prod"] if T in FLOATS else ["sum", "max", "min"])
        if red == "sum" and T in INTS and "wrap" in self.avoid:
            red = "max"
        if T in ("f16", "bf16") and red in ("sum", "prod"):
            T = "f32"
        e = self.red_expr(T, 1)
        opname, kname = self.name("op"), self.name("k")
        oleaf = self.render(e, Ctx(lambda k: "X[r, k]", True))
        src = f"op {opname}(X: {T}[R, C]) -> {T}[R] {{\n  out[r] = {red}(k < C) {oleaf};\n}}\n\n"
        comb = {"sum": "acc + v", "prod": "acc * v", "max": "max(acc, v)", "min": "min(acc, v)"}[red]
        init = {"sum": f"{T}(0)", "prod": f"{T}(1)"}
        shfl_ok = BITS[T] >= 32
        style = self.pick(["thread", "warp", "block"] if shfl_ok else ["thread", "block"])
        lv = lambda idx: self.render(e, Ctx(lambda k: f"X[r, {idx}]", False))
        if style == "thread":
            B = self.pick([32, 64, 5, 128])
            body = (f"  let r = blockIdx.x * {B} + threadIdx.x;\n  if (r < R) {{\n"
                    f"    var acc: {T} = {init.get(red, lv('0'))};\n"
                    f"    for c in range({0 if red in init else 1}, C) {{\n      let v = {lv('c')};\n      acc = {comb};\n    }}\n"
                    f"    Z[r] = acc;\n  }}\n")
            grid = f"cdiv(R, {B})"
        elif style == "warp":
            B = self.pick([32, 64, 256])
            W = B // 32
            body = (f"  let r = blockIdx.x * {W} + warp_id;\n  if (r < R) {{\n"
                    f"    var acc: {T} = {init.get(red, lv('0'))};\n"
                    f"    for c in range(lane_id, C, 32) {{\n      let v = {lv('c')};\n      acc = {comb};\n    }}\n"
                    f"    for s in unroll(5) {{\n      let v = {self.pick(['shfl_xor(acc, 16 >> s)', 'shfl_xor(acc, 1 << s)'])};\n"
                    f"      acc = {comb};\n    }}\n    if (lane_id == 0) {{\n      Z[r] = acc;\n    }}\n  }}\n")
            grid = f"cdiv(R, {W})"
        else:
            B = self.pick([32, 64, 128, 256])
            steps = B.bit_length() - 1
            body = (f"  shared part: {T}[{B}];\n  let r = blockIdx.x;\n  let t = threadIdx.x;\n"
                    f"  var acc: {T} = {init.get(red, lv('0'))};\n"
                    f"  for c in range(t, C, {B}) {{\n    let v = {lv('c')};\n    acc = {comb};\n  }}\n"
                    f"  part[t] = acc;\n  sync;\n  for s in unroll({steps}) {{\n    let h = {B} >> (s + 1);\n"
                    f"    if (t < h) {{\n      let v = part[t + h];\n      acc = part[t];\n      part[t] = {comb};\n    }}\n    sync;\n  }}\n"
                    f"  if (t == 0) {{\n    Z[r] = part[0];\n  }}\n")
            grid = "R"
        src += f"kernel {kname}(X: {T}[R, C], Z: {T}[R])\n    implements {opname}\n    grid({grid}) block({B})\n{{\n{body}}}\n"
        args = []
        if red == "prod":
            args = ["--atol", "1e-3"] if T == "f32" else []
        cs = [1, 7, 32, 33]
        if red == "prod":
            cs = [1, 7, 12]
        runs = [(kname, f"R={rr},C={cc}", args) for rr, cc in [(1, self.pick(cs)), (5, self.pick(cs)),
                                                                (self.r.randint(1, 20), self.pick(cs))]]
        return src, runs

    def p_atomic_reduce(self):
        """Row sums, mins and maxes through atomics on the output (global) or a
        shared accumulator, for every numeric type: the result is order
        independent for integers and within tolerance for floats."""
        T = self.pick(NUMERIC)
        red = self.pick(["sum", "max", "min"])
        if T in ("f16", "bf16") and red == "sum" or red == "sum" and T in INTS and "wrap" in self.avoid:
            red = self.pick(["max", "min"])
        at = {"sum": "atomic_add", "max": "atomic_max", "min": "atomic_min"}[red]
        opname, kname = self.name("op"), self.name("k")
        src = f"op {opname}(X: {T}[R, C]) -> {T}[R] {{\n  out[r] = {red}(k < C) X[r, k];\n}}\n\n"
        B = self.pick([32, 64, 48, 7])
        where = self.pick(["global", "shared"])
        if where == "global":
            if red == "sum":
                body = (f"  let r = blockIdx.y;\n  for c in range(blockIdx.x * {B} + threadIdx.x, C, {B} * gridDim.x) {{\n"
                        f"    let _old = {at}(Z[r, ], X[r, c]);\n  }}\n")
                body = body.replace("Z[r, ]", "Z[r]")
                runs_args = ["--init-output=zero"]
            else:  # the first column initialises, the rest combine after a barrier: one block per row
                body = (f"  let r = blockIdx.y;\n  if (threadIdx.x == 0) {{\n    Z[r] = X[r, 0];\n  }}\n  sync;\n"
                        f"  for c in range(threadIdx.x, C, {B}) {{\n    let _old = {at}(Z[r], X[r, c]);\n  }}\n")
                runs_args = []
            grid = f"{self.pick([1, 2]) if red == 'sum' else 1}, R"
        else:
            body = (f"  shared acc: {T}[1];\n  let r = blockIdx.y;\n  if (threadIdx.x == 0) {{\n"
                    f"    acc[0] = {T + '(0)' if red == 'sum' else 'X[r, 0]'};\n  }}\n  sync;\n"
                    f"  for c in range(threadIdx.x, C, {B}) {{\n    {at}(acc[0], X[r, c]);\n  }}\n  sync;\n"
                    f"  if (threadIdx.x == 0) {{\n    Z[r] = acc[0];\n  }}\n")
            grid = "1, R"
            runs_args = []
        src += f"kernel {kname}(X: {T}[R, C], Z: {T}[R])\n    implements {opname}\n    grid({grid}) block({B})\n{{\n{body}}}\n"
        runs = [(kname, f"R={rr},C={cc}", runs_args) for rr, cc in [(1, 1), (3, self.pick([5, 31, 64])),
                                                                    (self.r.randint(1, 9), self.r.randint(1, 100))]]
        return src, runs

    def p_cast(self):
        """T(x) for a pair of types, against the op's reference."""
        S, T = self.pick(NUMERIC + ["bool"]), self.pick(NUMERIC + ["bool"])
        opname, kname = self.name("op"), self.name("k")
        x = "X[i]" if S != "bool" else "X[i]"
        src = f"op {opname}(X: {S}[N]) -> {T}[N] {{\n  out[i] = {T}({x});\n}}\n\n"
        B = self.pick([32, 64, 3])
        src += (f"kernel {kname}(X: {S}[N], Z: {T}[N])\n    implements {opname}\n    grid(cdiv(N, {B})) block({B})\n{{\n"
                f"  let g = blockIdx.x * {B} + threadIdx.x;\n  if (g < N) {{\n    Z[g] = {T}(X[g]);\n  }}\n}}\n")
        return src, [(kname, f"N={n}", []) for n in (1, B, 2 * B + 1)]

    def p_builtins(self):
        """A kernel without an op that calls many built-ins over several types:
        checked for crashes, back-end rejections and run-time faults."""
        types = self.r.sample(NUMERIC, 3)
        OT = self.pick(["f32", "f64", "i64"])
        kname = self.name("k")
        lines = []
        B = self.pick([32, 64])
        params = ", ".join(f"X{k}: {t}[N]" for k, t in enumerate(types))
        lines.append(f"  let g = blockIdx.x * {B} + threadIdx.x;")
        lines.append(f"  let gi = min(g, N - 1);")
        lines.append(f"  var out: {OT} = {OT}(0);")
        for k, t in enumerate(types):
            v = f"x{k}"
            lines.append(f"  let {v} = X{k}[gi];")
            # casts to every type and back to the output type
            for u in self.r.sample(ALL_TYPES, 4):
                lines.append(f"  out += {OT}({u}({v}));")
            lines.append(f"  out += {OT}(min({v}, {t}(1))) + {OT}(max({v}, {t}(2))) + {OT}(abs({v}));")
            if t in FLOATS:
                for f in self.r.sample(MATH1 + ["sqrt", "rsqrt", "log", "log2"], 3):
                    arg = f"abs({v}) + {t}(1)" if f in ("sqrt", "rsqrt", "log", "log2") else v
                    lines.append(f"  out += {OT}({f}({arg}));")
                lines.append(f"  out += {OT}(fma({v}, {v}, {t}(1))) + {OT}(pow(abs({v}) + {t}(1), {t}(2)));")
            if BITS[t] >= 32:
                sh = self.pick(["shfl_xor", "shfl_down", "shfl_up", "shfl_idx"])
                lines.append(f"  out += {OT}({sh}({v}, {self.r.randrange(1, 32)}));")
            # atomics on a shared tensor of this type, every operation
            lines.append(f"  shared a{k}: {t}[4];")
            lines.append(f"  if (threadIdx.x < 4) {{\n    a{k}[threadIdx.x] = {v};\n  }}\n  sync;")
            for at in self.r.sample(["atomic_add", "atomic_min", "atomic_max", "atomic_exch"], 2):
                if at == "atomic_add" and t in ("i8", "u8", "i16", "u16", "f16", "bf16", "i64", "u64") and self.r.random() < 0.5:
                    pass
                lines.append(f"  let _o{k}{at[7:]} = {at}(a{k}[threadIdx.x % 4], {v});")
            lines.append(f"  if (threadIdx.x == 5) {{\n    let _c{k} = atomic_cas(a{k}[1], {v}, {v});\n  }}")
            lines.append(f"  sync;\n  out += {OT}(a{k}[threadIdx.x % 4]);\n  sync;")
        lines.append(f"  if (g < N) {{\n    Z[g] = out;\n  }}")
        src = (f"kernel {kname}({params}, Z: {OT}[N])\n    grid(cdiv(N, {B})) block({B})\n{{\n" + "\n".join(lines) + "\n}\n")
        # global atomics over every operation on one type, into a second kernel's output
        t = self.pick(NUMERIC)
        k2 = self.name("k")
        at = self.pick(["atomic_add", "atomic_min", "atomic_max", "atomic_exch", "atomic_cas"])
        call = (f"atomic_cas(Z[g % 4], X[g], X[g])" if at == "atomic_cas" else f"{at}(Z[g % 4], X[g])")
        src += (f"\nkernel {k2}(X: {t}[N], Z: {t}[4])\n    grid(cdiv(N, 32)) block(32)\n{{\n"
                f"  let g = blockIdx.x * 32 + threadIdx.x;\n  if (g < N) {{\n    let _old = {call};\n  }}\n}}\n")
        return src, [(kname, "N=37", []), (kname, "N=64", []), (k2, "N=40", ["--init-output=zero"])]


def has_input(e):
    return isinstance(e, tuple) and (e[0] == "in" or any(has_input(x) for x in e[1:]))


def mtext_tile(mtext, dim):
    """The tile extent of dimension DIM of a composition, spelled as a
    product of the extents (which may be compile-time parameters)."""
    fs = []
    for part in mtext.split(" * "):
        args = part[part.index("(") + 1:-1].split(", ")
        fs.append(args[dim])
    return " * ".join(fs)


# ---- the driver --------------------------------------------------------------
class Driver:
    def __init__(self, tmc, save, timeout, cuda, run):
        self.tmc, self.save, self.timeout, self.cuda, self.run_kernels = tmc, save, timeout, cuda, run
        self.findings = 0
        self.rejected = 0
        self.env = dict(os.environ, TMC_VERIFY_EACH="1")

    def call(self, cmd):
        """Runs CMD; a wall-clock timeout is "timeout", and a tmc command
        that uses more than --slow seconds of CPU (not wall time, which a
        loaded machine stretches) is "slow"."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=self.timeout, env=self.env)
            rc, out = p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            rc, out = "timeout", ((e.stdout or b"") + (e.stderr or b"")).decode("utf-8", "replace")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        if cmd[0] == self.tmc and cpu > self.slow and rc != "timeout":
            out += f"\n(CPU time {cpu:.1f} s)"
            rc = "slow" if rc in (0, 1) and "FAIL" not in out else rc
        return rc, out

    def finding(self, seed, src, what, cmd, out):
        self.findings += 1
        base = os.path.join(self.save, f"prog-{seed}")
        with open(base + ".tm", "w") as f:
            f.write(src)
        with open(base + ".txt", "a") as f:
            f.write(f"{what}\n$ {' '.join(cmd)}\n{out[-4000:]}\n\n")
        print(f"FINDING seed {seed}: {what}: {' '.join(cmd)}\n  {out.strip().splitlines()[-1] if out.strip() else ''}",
              flush=True)

    def check(self, seed, src, tmp):
        path = os.path.join(tmp, f"p{seed}.tm")
        with open(path, "w") as f:
            f.write(src)
        rc, out = self.call([self.tmc, path])
        if rc == 1:
            self.rejected += 1
            if self.save:
                with open(os.path.join(self.save, f"rejected-{seed}.tm"), "w") as f:
                    f.write(src + "\n/*\n" + out.replace("*/", "* /") + "*/\n")
            return
        if rc != 0:
            return self.finding(seed, src, f"check exit {rc}", [self.tmc, path], out)
        if self.check_only:
            return
        for kind in ["ast", "ir", "llvm", "ptx", "cuda", "meta"]:
            outp = os.path.join(tmp, f"p{seed}.{kind}")
            cmd = [self.tmc, path, f"--emit={kind}", "-o", outp]
            rc, out = self.call(cmd)
            if rc != 0:
                self.finding(seed, src, f"--emit={kind} exit {rc} after the check passed", cmd, out)
        if self.cuda:
            ptx = os.path.join(tmp, f"p{seed}.ptx")
            if os.path.exists(ptx):
                cmd = [os.path.join(CUDA, "ptxas"), "-arch=sm_80", ptx, "-o", os.path.join(tmp, "a.cubin")]
                rc, out = self.call(cmd)
                if rc != 0:
                    self.finding(seed, src, f"ptxas sm_80 rejects the PTX (exit {rc})", cmd, out)
            ptx90 = os.path.join(tmp, f"p{seed}.90.ptx")
            cmd = [self.tmc, path, "--emit=ptx", "--arch=sm_90a", "-o", ptx90]
            rc, out = self.call(cmd)
            if rc != 0:
                self.finding(seed, src, f"--emit=ptx --arch=sm_90a exit {rc}", cmd, out)
            else:
                cmd = [os.path.join(CUDA, "ptxas"), "-arch=sm_90a", ptx90, "-o", os.path.join(tmp, "b.cubin")]
                rc, out = self.call(cmd)
                if rc != 0:
                    self.finding(seed, src, f"ptxas sm_90a rejects the PTX (exit {rc})", cmd, out)
            cu = os.path.join(tmp, f"p{seed}.cuda")
            if os.path.exists(cu):
                mode = ["--ptx"] if self.nvcc_ptx else ["-c"]
                cmd = [os.path.join(CUDA, "nvcc"), "-arch=sm_80"] + mode + ["-x", "cu", cu, "-o", os.path.join(tmp, "a.o")]
                rc, out = self.call(cmd)
                if rc != 0:
                    self.finding(seed, src, f"nvcc rejects the CUDA C (exit {rc})", cmd, out)
        if not self.run_kernels:
            return
        for kname, shape, extra in self.runs:
            cmd = [self.tmc, "run", path, "--kernel", kname, "--shape", shape, "--check-bounds", "--check-races"] + extra
            rc, out = self.call(cmd)
            if rc == 0 and "result:     PASS" in out:
                continue
            if rc == 1 and "result:     FAIL" in out:
                self.finding(seed, src, "wrong answer (FAIL)", cmd, out)
            elif rc == 1 and ("is not among" in out or "no value for" in out):
                continue  # an -D candidate the generator picked that the kernel refuses
            else:
                self.finding(seed, src, f"tmc run exit {rc}", cmd, out)


def main():
    args = sys.argv[1:]
    opts = {}
    for flag in ["--save", "--timeout", "--slow", "--avoid"]:
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    flags = {a for a in args if a.startswith("--")}
    args = [a for a in args if not a.startswith("--")]
    if "--help" in flags or "-h" in args or len(args) != 3 or not (args[1].isdigit() and args[2].isdigit()):
        print(__doc__.strip())
        return 0 if ("--help" in flags or "-h" in args) else 2
    tmc, seed, count = args[0], int(args[1]), int(args[2])
    avoid = [a for a in opts.get("--avoid", "").split(",") if a]
    if "--print" in flags:
        for i in range(count):
            s = seed * 1000003 + i
            src, runs = Gen(s, avoid).program()
            print(f"// seed {s}; runs: {runs}\n{src}")
        return 0
    save = opts.get("--save", ".")
    os.makedirs(save, exist_ok=True)
    cuda = "--no-cuda" not in flags and os.path.exists(os.path.join(CUDA, "ptxas")) and os.path.exists(
        os.path.join(CUDA, "nvcc"))
    d = Driver(tmc, save, float(opts.get("--timeout", "300")), cuda, "--no-run" not in flags)
    d.slow = float(opts.get("--slow", "20"))
    d.check_only = "--check-only" in flags
    d.nvcc_ptx = "--nvcc-ptx" in flags
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            s = seed * 1000003 + i
            src, d.runs = Gen(s, avoid).program()
            d.check(s, src, tmp)
            if (i + 1) % 100 == 0 and i + 1 < count:
                print(f"... {i + 1} programs: {d.findings} findings, {d.rejected} rejected", flush=True)
    print(f"{count} programs: {d.findings} findings, {d.rejected} rejected by the checker (generator bugs)")
    return 1 if d.findings else 0


if __name__ == "__main__":
    sys.exit(main())
