#!/usr/bin/env python3
"""Codegen quality: tmc's PTX against nvcc's PTX for the same kernel.

For every kernel of every .tm file in examples/ and stdlib/ (and a few
extra compile-time variants, EXTRA_VARIANTS below), this compiles
  tmc FILE --emit=ptx                       -> tmc's PTX
  tmc FILE --emit=cuda | nvcc -O3 -ptx      -> nvcc's PTX of tmc's CUDA C
so both compilers start from the same schedule and only the code
generation differs. Both PTX files go through `ptxas -v` (registers,
spills, shared memory) and through a small PTX reader here (instruction
mix of the whole kernel and of its hot loop).

usage: bench/codegen/quality.py [--tmc PATH] [--arch SM] [--json] [--keep DIR] [FILE.tm ...]

Exit status: 0 whether or not tmc wins (this is a benchmark, not a test);
1 if any compilation fails (each failure is printed with its reason).
See bench/codegen/README.md for how to read the table.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDA_BIN = "/usr/local/cuda/bin"

# Compile-time variants measured besides each kernel's defaults, keyed by
# (file relative to the repository, kernel name). Bigger tiles are where
# register pressure and vectorization diverge between compilers.
EXTRA_VARIANTS = {
    ("examples/matmul_simt.tm", "matmul_simt"): [{"BM": 128, "BN": 128, "BK": 16}],
    ("examples/vector_add.tm", "vector_add"): [{"TILE": 2048}],
}

TIMEOUT_S = 120  # per tool invocation; a kernel normally takes a few seconds


class CompileError(Exception):
    pass


# Extra flags for tmc's PTX compile (--tmc-flags).
TMC_FLAGS = []

def run(cmd, cwd):
    """Runs cmd; returns (stdout, stderr). Raises CompileError with the
    command and the first lines of its output on failure."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise CompileError(f"timed out after {TIMEOUT_S}s: {' '.join(cmd)}")
    except OSError as e:
        raise CompileError(f"{cmd[0]}: {e}")
    if p.returncode != 0:
        head = (p.stderr or p.stdout).strip().splitlines()[:12]  # the first error matters most
        raise CompileError(f"exit {p.returncode}: {' '.join(cmd)}\n    " + "\n    ".join(head))
    return p.stdout, p.stderr


# ---------------------------------------------------------------- ptxas -v

def ptxas_report(text):
    """{function: {registers, spill_stores, spill_loads, stack, smem}} from
    `ptxas -v`. ptxas names the function ("Compiling entry function 'F'",
    "Function properties for F") before that function's numbers."""
    funcs, cur = {}, None
    for line in text.splitlines():
        m = (re.search(r"Compiling entry function '([^']+)'", line)
             or re.search(r"Function properties for (\S+)", line))
        if m:
            cur = funcs.setdefault(m.group(1), {"registers": 0, "spill_stores": 0,
                                                "spill_loads": 0, "stack": 0, "smem": 0})
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur["stack"], cur["spill_stores"], cur["spill_loads"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            cur["smem"] = int(s.group(1)) if s else 0
    return funcs


# ---------------------------------------------------------------- PTX reader

def ptx_functions(ptx):
    """{name: (is_entry, body)} for every .entry and .func with a body."""
    # .loc/.file lines carry no ';' (and .file holds a path), so drop them
    # before the comments; then comments (// begin inline asm, etc.).
    text = re.sub(r"^[ \t]*\.(loc|file)\b[^\n]*", "", ptx, flags=re.M)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    funcs = {}
    # `.func (.param .b32 retval) name(` has a return list before the name.
    for m in re.finditer(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)\s*\(", text):
        i = text.index(")", m.end()) + 1
        while i < len(text) and text[i] not in "{;":
            i += 1
        if i >= len(text) or text[i] == ";":  # a declaration, no body
            continue
        # The body ends at the matching brace; vector operands {%r1, %r2}
        # and inline-asm scopes { ... } are balanced, so counting works.
        depth, j = 0, i
        while True:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        funcs[m.group(2)] = (m.group(1) == "entry", text[i + 1:j])
    return funcs


def statements(body):
    """Splits a function body into labels and instructions, in order:
    ('label', name), ('dir', text) or ('ins', pred, opcode, operands).
    Statements end at ';' (mma.sync spans several lines; inline asm from
    nvcc puts `{ cvt.rn.f16.f32 %rs1, %f1;}` on one line)."""
    out = []
    for piece in body.split(";"):
        s = piece.strip()
        while True:  # peel scope braces and labels off the front
            if s[:1] in ("{", "}"):
                s = s[1:].lstrip()
                continue
            m = re.match(r"([$\w]+)\s*:(?!:)", s)
            if m:
                out.append(("label", m.group(1)))
                s = s[m.end():].lstrip()
                continue
            break
        if not s:
            continue
        if s.startswith("."):
            out.append(("dir", " ".join(s.split())))
            continue
        m = re.match(r"(@!?%\w+\s+)?([\w.:]+)\s*(.*)", s, re.S)
        if not m:  # not an instruction (a register declaration list of inline asm, say)
            out.append(("dir", " ".join(s.split())))
            continue
        out.append(("ins", bool(m.group(1)), m.group(2), " ".join(m.group(3).split())))
    return out


def basic_blocks(stmts):
    """[(label, [instructions])]: a block starts at a label or after a
    branch/ret/exit."""
    blocks = [[None, []]]
    for st in stmts:
        if st[0] == "label":
            if blocks[-1][1] or blocks[-1][0] is not None:
                blocks.append([st[1], []])
            else:
                blocks[-1][0] = st[1]
        elif st[0] == "ins":
            if blocks[-1][1] and is_terminator(blocks[-1][1][-1]):
                blocks.append([None, []])
            blocks[-1][1].append(st[1:])
    return blocks


def is_terminator(ins):
    return ins[1].split(".")[0] in ("bra", "brx", "ret", "exit")


def hot_loop(blocks):
    """Instructions of the innermost loop with the most instructions, or [].

    Natural loops (a back edge goes to a block that dominates its source),
    not "label .. backward bra" text ranges: LLVM places a rotated loop's
    latch above its header and reaches it with a backward `bra.uni`, and a
    loop with an if/else in it can hold two labels that backward branches
    reach. In tmc's matmul_simt the innermost text range then is only the
    then-path (242 of the loop's 253 instructions; 220 of 253 in
    matmul_tensor_core)."""
    n = len(blocks)
    index = {b[0]: i for i, b in enumerate(blocks) if b[0]}
    succs = []
    for i, (_, ins) in enumerate(blocks):
        s = []
        last = ins[-1] if ins else None
        if last and last[1].startswith("bra") and last[2] in index:
            s.append(index[last[2]])
        if i + 1 < n and not (last and is_terminator(last) and not last[0]):
            s.append(i + 1)  # fall-through: no unconditional jump/ret ends the block
        succs.append(s)
    preds = [[] for _ in range(n)]
    for i, s in enumerate(succs):
        for j in s:
            preds[j].append(i)
    reachable, work = set(), [0]
    while work:
        b = work.pop()
        if b not in reachable:
            reachable.add(b)
            work.extend(succs[b])
    # Iterative dominators (functions have at most a few hundred blocks).
    # Unreachable blocks keep "dominated by everything"; they are skipped
    # below so they cannot fake a back edge.
    dom = [set(range(n)) for _ in range(n)]
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for i in sorted(reachable - {0}):
            ps = [dom[p] for p in preds[i] if p in reachable]
            new = {i} | (set.intersection(*ps) if ps else set())
            if new != dom[i]:
                dom[i], changed = new, True
    loops = {}  # header -> body blocks (back edges to one header merged)
    for u in sorted(reachable):
        for h in succs[u]:
            if h in dom[u]:
                body, work = loops.setdefault(h, {h}), [u]
                while work:
                    b = work.pop()
                    if b not in body:
                        body.add(b)
                        work.extend(p for p in preds[b] if p in reachable)
    innermost = [body for h, body in loops.items()
                 if not any(h2 != h and h2 in body for h2 in loops)]
    if not innermost:
        return []
    best = max(innermost, key=lambda body: sum(len(blocks[b][1]) for b in body))
    return [ins for b in sorted(best) for ins in blocks[b][1]]


FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"}
SPACES = {"global", "shared", "local", "const", "param"}


def access_bytes(parts):
    """Bytes one thread moves in ld/st: vector count x element size."""
    vec = next((int(p[1:]) for p in parts if re.fullmatch(r"v\d+", p)), 1)
    t = parts[-1]
    if t.endswith("x2"):  # f16x2, bf16x2: 32 bits
        return vec * 4
    m = re.fullmatch(r"[bfsu](\d+)", t)
    return vec * int(m.group(1)) // 8 if m else 0


def instruction_mix(instrs):
    """Counter of the instruction kinds the report cares about:
    'fma.f32', 'mul.f32', 'add.f32' (sub folded in), 'mma',
    'ld.global:16' (bytes per thread), 'st.shared:4', 'ldmatrix:16',
    'cp.async:16', 'smem64' (64-bit shared addressing), 'instructions'."""
    c = Counter()
    for _, op, args in instrs:
        c["instructions"] += 1
        parts = op.split(".")
        base = parts[0]
        space = next((p.split("::")[0] for p in parts[1:] if p.split("::")[0] in SPACES), None)
        if base in ("fma", "mul", "add", "sub", "mad") and parts[-1] in FLOAT_TYPES:
            # sub is an add; mad.rn.f32 is fma.rn.f32 under another name
            c[f"{ {'sub': 'add', 'mad': 'fma'}.get(base, base)}.{parts[-1]}"] += 1
        elif base in ("mma", "wgmma"):
            c["mma"] += 1
        elif base in ("ld", "st"):
            c[f"{base}.{space or 'generic'}:{access_bytes(parts)}"] += 1
        elif base == "ldmatrix":
            x = next((int(p[1:]) for p in parts if re.fullmatch(r"x\d", p)), 1)
            c[f"ldmatrix:{4 * x}"] += 1
        elif base == "cp" and parts[1] == "async" and parts[2] in ("ca", "cg"):
            size = re.search(r"\]\s*,\s*(\d+)", args)  # cp-size follows the source
            c[f"cp.async:{size.group(1) if size else 0}"] += 1
        # 64-bit shared addressing: a cvta to/from shared, or a shared access
        # whose address is a %rd register. The shared operand of ld, st,
        # atom, red, ldmatrix and cp.async (the destination) is the first [..].
        if base == "cvta" and "shared" in (p.split("::")[0] for p in parts):
            c["smem64"] += 1
        elif space == "shared" and base in ("ld", "st", "atom", "red", "ldmatrix", "stmatrix", "cp"):
            addr = re.search(r"\[([^\]]*)\]", args)
            if addr and re.search(r"%rd\d", addr.group(1)):
                c["smem64"] += 1
    return c


def b64_registers(stmts):
    """64-bit integer registers declared: `.reg .b64 %rd<N>` declares
    %rd0..%rd(N-1) and LLVM/NVVM never use %rd0, so N-1; plain lists
    (inline asm scopes: `.reg .u64 p;`) count one per name."""
    n = 0
    for st in stmts:
        m = st[0] == "dir" and re.match(r"\.reg \.[bsu]64 (.*)", st[1])
        if m:
            for name in m.group(1).split(","):
                r = re.search(r"<(\d+)>", name)
                n += int(r.group(1)) - 1 if r else 1
    return n


def analyze_ptx(path):
    """{kernel: {kernel: mix, loop: mix, b64_regs}} for every .entry."""
    out = {}
    for name, (is_entry, body) in ptx_functions(open(path).read()).items():
        if not is_entry:
            continue  # helper .func bodies are not reported
        stmts = statements(body)
        blocks = basic_blocks(stmts)
        out[name] = {"kernel": instruction_mix([i for _, ins in blocks for i in ins]),
                     "loop": instruction_mix(hot_loop(blocks)),
                     "b64_regs": b64_registers(stmts)}
    return out


# ---------------------------------------------------------------- driver

def find_entry(entries, name):
    """tmc's CUDA C declares kernels extern "C", so nvcc keeps the name; if
    that ever changes, accept the Itanium-mangled form _Z<len><name>..."""
    if name in entries:
        return name
    return next((e for e in entries if e.startswith(f"_Z{len(name)}{name}")), None)


def measure_module(tmc, arch, path, defines, tmp, tag):
    """Compiles one .tm file (one set of -D values) both ways; returns
    {'tmc': (ptx analysis, ptxas report), 'nvcc': (...)}."""
    nvcc, ptxas = os.path.join(CUDA_BIN, "nvcc"), os.path.join(CUDA_BIN, "ptxas")
    dflags = [a for k, v in defines.items() for a in ("-D", f"{k}={v}")]
    tmc_ptx, cu, nv_ptx = (os.path.join(tmp, f"{tag}.{ext}") for ext in ("tmc.ptx", "cu", "nvcc.ptx"))
    run([tmc, path, *dflags, *TMC_FLAGS, "--emit=ptx", f"--arch={arch}", "-o", tmc_ptx], tmp)
    run([tmc, path, *dflags, "--emit=cuda", f"--arch={arch}", "-o", cu], tmp)
    run([nvcc, "-O3", f"-arch={arch}", "-ptx", cu, "-o", nv_ptx], tmp)
    result = {}
    for who, ptx in (("tmc", tmc_ptx), ("nvcc", nv_ptx)):
        report = ptxas_report("".join(run([ptxas, "-v", f"-arch={arch}", ptx, "-o", ptx + ".cubin"], tmp)))
        result[who] = (analyze_ptx(ptx), report)
    return result


def kernel_numbers(module, name):
    """Raw numbers of one kernel from both compilers."""
    row = {}
    for who, (ptx, report) in module.items():
        entry = name if who == "tmc" else find_entry(ptx, name)
        if entry not in ptx or entry not in report:
            raise CompileError(f"{who}: no entry '{name}' in its PTX (has {sorted(ptx)}) "
                               f"or ptxas report (has {sorted(report)})")
        row[who] = {"entry": entry, **report[entry], "b64_regs": ptx[entry]["b64_regs"],
                    "kernel_mix": dict(ptx[entry]["kernel"]), "loop_mix": dict(ptx[entry]["loop"])}
    return row


def widths(mix, kind):
    """{bytes per thread: count} of one kind of access, e.g. 'ld.global'."""
    return {int(k.split(":")[1]): v for k, v in mix.items() if k.startswith(kind + ":")}


def mean_width(mix, kind):
    w = widths(mix, kind)
    return sum(b * c for b, c in w.items()) / sum(w.values()) if w else 0


def verdict(t, n):
    """Where tmc misses a goal against nvcc; 'ok' if nowhere."""
    bad = []
    if t["registers"] > n["registers"]:
        bad.append(f"regs +{t['registers'] - n['registers']}")
    if t["spill_stores"] + t["spill_loads"] > n["spill_stores"] + n["spill_loads"]:
        bad.append("spills")
    tf, nf = t["loop_mix"].get("fma.f32", 0), n["loop_mix"].get("fma.f32", 0)
    if tf != nf:
        bad.append(f"loop fma {tf}!={nf}")
    if t["kernel_mix"].get("smem64", 0):
        bad.append("64-bit smem")
    # Widths: the widest access, and the mean over all accesses of the kind
    # (tmc may reach v4 for some loads and stay scalar for others; the mean
    # catches that without depending on how far either compiler unrolled).
    for kind in ("ld.global", "ld.shared", "st.global", "st.shared", "cp.async", "ldmatrix"):
        tw, nw = widths(t["kernel_mix"], kind), widths(n["kernel_mix"], kind)
        if max(tw, default=0) < max(nw, default=0):
            bad.append(f"{kind} widest {max(tw, default=0)}B<{max(nw)}B")
        elif mean_width(t["kernel_mix"], kind) < mean_width(n["kernel_mix"], kind) - 1e-9:
            bad.append(f"{kind} mean {mean_width(t['kernel_mix'], kind):.1f}B<{mean_width(n['kernel_mix'], kind):.1f}B")
    return ", ".join(bad) or "ok"


def print_table(rows):
    def pair(f):
        return lambda r: f"{f(r['tmc'])} / {f(r['nvcc'])}"

    def width(kind):
        # widest x count, then '+N' narrower accesses of the same kind
        def f(x):
            w = widths(x["kernel_mix"], kind)
            if not w:
                return "-"
            b = max(w)
            rest = sum(w.values()) - w[b]
            return f"{b}B×{w[b]}" + (f" +{rest}" if rest else "")
        return f

    def loop(*keys):
        # '-' when the kernel has no loop at all (nothing to count in)
        return lambda x: sum(x["loop_mix"].get(k, 0) for k in keys) if x["loop_mix"] else "-"

    cols = [
        ("kernel", lambda r: r["label"]),
        ("regs", pair(lambda x: x["registers"])),
        ("spill B", pair(lambda x: x["spill_stores"] + x["spill_loads"])),
        ("loop instrs", pair(loop("instructions"))),
        ("loop fma", pair(loop("fma.f32"))),
        ("loop mul+add", pair(loop("mul.f32", "add.f32"))),
        ("ld.global", pair(width("ld.global"))),
        ("ld.shared", pair(width("ld.shared"))),
        ("64-bit smem", pair(lambda x: x["kernel_mix"].get("smem64", 0))),
        ("b64 regs", pair(lambda x: x["b64_regs"])),
        ("tmc worse than nvcc on", lambda r: r["verdict"]),
    ]
    print("| " + " | ".join(c[0] for c in cols) + " |")
    print("|" + "|".join("---" for _ in cols) + "|")
    for r in rows:
        print("| " + " | ".join(str(c[1](r)) for c in cols) + " |")


def measure_file(tmc, arch, path, tmp, rows, failures):
    """Appends a row per kernel (variant) of one .tm file to rows, and a
    line per failed compilation to failures."""
    rel = os.path.relpath(path, REPO)
    if rel.startswith(".."):
        rel = path  # outside the repository: no extra variants, shown as given
    try:
        meta = json.loads(run([tmc, path, "--emit=meta", f"--arch={arch}"], tmp)[0])
    except (CompileError, json.JSONDecodeError) as e:
        failures.append(f"{rel}: --emit=meta: {e}")
        return
    # One compilation per distinct set of -D values: the defaults (no -D)
    # cover every kernel of the file, each extra variant its own kernel.
    variants = {(): [k["name"] for k in meta["kernels"]]}
    for k in meta["kernels"]:
        for v in EXTRA_VARIANTS.get((rel, k["name"]), []):
            variants.setdefault(tuple(v.items()), []).append(k["name"])
    for defines, names in variants.items():
        if not names:
            continue  # a file with no kernel (ops, graphs, imports only)
        defines = dict(defines)
        tag = os.path.splitext(os.path.basename(path))[0] + "".join(f".{k}{v}" for k, v in defines.items())
        try:
            module = measure_module(tmc, arch, path, defines, tmp, tag)
        except CompileError as e:
            failures.append(rel + "".join(f" -D {k}={v}" for k, v in defines.items()) + f": {e}")
            continue
        for k in meta["kernels"]:
            if k["name"] not in names:
                continue
            params = {**k.get("compile_time", {}), **defines}
            label = k["name"] + ("<" + ",".join(f"{a}={b}" for a, b in params.items()) + ">" if params else "")
            try:
                numbers = kernel_numbers(module, k["name"])
            except CompileError as e:
                failures.append(f"{rel} {label}: {e}")
                continue
            rows.append({"file": rel, "kernel": k["name"], "defines": params, "label": label,
                         "verdict": verdict(numbers["tmc"], numbers["nvcc"]), **numbers})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tmc", default=os.path.join(REPO, "build", "bin", "tmc"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    ap.add_argument("--tmc-flags", default="", help="extra flags for tmc's PTX compile, e.g. '-O1'")
    ap.add_argument("--keep", metavar="DIR", help="write the PTX and CUDA files to DIR, not a temporary directory")
    ap.add_argument("files", nargs="*", help=".tm files (default: all of examples/ and stdlib/)")
    args = ap.parse_args()
    TMC_FLAGS[:] = args.tmc_flags.split()
    tmc = os.path.abspath(args.tmc)
    if not os.access(tmc, os.X_OK):
        sys.exit(f"quality.py: {tmc} is not an executable tmc (build it, or pass --tmc)")
    files = [os.path.abspath(f) for f in args.files] or sorted(
        os.path.join(dp, f) for d in ("examples", "stdlib")
        for dp, _, fs in os.walk(os.path.join(REPO, d)) for f in fs if f.endswith(".tm"))

    rows, failures = [], []
    with tempfile.TemporaryDirectory(prefix="tmc-quality-") as scratch:
        tmp = os.path.abspath(args.keep or scratch)
        os.makedirs(tmp, exist_ok=True)
        for path in files:
            measure_file(tmc, args.arch, path, tmp, rows, failures)

    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{args.arch}: tmc's PTX / nvcc -O3 -ptx on tmc --emit=cuda\n")
        print_table(rows)
    for f in failures:
        print(f"FAILED {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
