#!/usr/bin/env python3
"""Compile speed: tmc against nvcc, side by side in one run.

1. Per kernel file (the examples and the standard library's modules, each
   module with every kernel at its default values): CPU time (user + sys of the child) of
   `tmc FILE --emit=ptx` against `nvcc -O3 -ptx` on the CUDA C that
   `tmc --emit=cuda` writes for the same kernels (that file is written
   beforehand and not timed). Medians of --repeat turns, each turn
   --tmc-runs runs of tmc (default 3) and one of nvcc, and the ratio of
   the fastest runs too. A pause of the machine adds a few milliseconds
   to whichever run it falls in: 10% of a tmc run, under 1% of nvcc's,
   so tmc's shorter runs are sampled more.
2. With --per-kernel, each kernel of those files alone: `tmc FILE --kernel
   K --emit=ptx` against nvcc on `tmc FILE --kernel K --emit=cuda` (a
   module's kernels one at a time, as a user compiling one of them would).
3. Start-up: `tmc --version`, wall time.
4. Whole candidate spaces (--spaces FILE...; by default, or with --spaces
   alone, the SIMT matmul example's and all of std.matmul's, tensor-core
   and SIMT kernels; --no-spaces: none): `tmc FILE
   --all-candidates` (one process, all cores) against one `nvcc -ptx` per
   candidate, as many at a time as there are cores; candidates per second
   of wall time.

Machines are noisy: only the ratios of one run mean something.
"""
import argparse
import concurrent.futures
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
DEFAULT_SPACES = ["examples/matmul_simt.tm", "stdlib/matmul.tm"]


def timed(cmd):
    """Runs cmd; returns (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def median_of(cmd, repeat, pick):
    return statistics.median(timed(cmd)[pick] for _ in range(repeat))


def kernel_files(only):
    """The examples and the standard library's modules that have kernels
    (those named in `only`, relative to the root, when it is not empty)."""
    files = []
    for folder in ["examples", "stdlib"]:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".tm") and (not only or os.path.join(folder, name) in only):
                path = os.path.join(ROOT, folder, name)
                with open(path) as f:
                    if "\nkernel " in "\n" + f.read():
                        files.append(path)
    return files


def tmc_and_nvcc(tmc, args, arch, repeat, tmp, cu, tmc_runs):
    """CPU seconds of `tmc ARGS --emit=ptx` and of nvcc on the CUDA C that
    `tmc ARGS --emit=cuda` writes to `cu` (written first, not timed): the
    medians of `repeat` turns, each `tmc_runs` runs of tmc and one of nvcc
    (tmc, tmc, tmc, nvcc, ...), so that both see the machine's slow and
    quick moments alike, and the
    fastest run of each (a virtual machine's pauses only add time, and
    they weigh most on the short runs: tmc's)."""
    subprocess.run([tmc, *args, "--emit=cuda", f"--arch={arch}", "-o", cu], check=True)
    tmc_cmd = [tmc, *args, "--emit=ptx", f"--arch={arch}", "-o", os.path.join(tmp, "t.ptx")]
    nvcc_cmd = [NVCC, "-O3", f"-arch={arch}", "-ptx", cu, "-o", os.path.join(tmp, "n.ptx")]
    t, n = [], []
    for _ in range(repeat):
        for _ in range(tmc_runs):
            t.append(timed(tmc_cmd)[1])
        n.append(timed(nvcc_cmd)[1])
    return statistics.median(t), statistics.median(n), min(t), min(n)


def per_file(tmc, arch, repeat, tmp, only, tmc_runs):
    rows = []
    for path in kernel_files(only):
        cu = os.path.join(tmp, os.path.basename(path) + ".cu")
        rows.append((os.path.relpath(path, ROOT), *tmc_and_nvcc(tmc, [path], arch, repeat, tmp, cu, tmc_runs)))
    return rows


def kernels_of(tmc, arch, path):
    meta = subprocess.run([tmc, path, "--emit=meta", f"--arch={arch}"], check=True, capture_output=True, text=True)
    return [k["name"] for k in json.loads(meta.stdout)["kernels"]]


def each_kernel(tmc, arch, repeat, tmp, only, tmc_runs):
    rows = []
    for path in kernel_files(only):
        for name in kernels_of(tmc, arch, path):
            cu = os.path.join(tmp, name + ".cu")
            rows.append((f"{os.path.relpath(path, ROOT)} {name}", *tmc_and_nvcc(tmc, [path, "--kernel", name], arch, repeat, tmp, cu, tmc_runs)))
    return rows


def space(tmc, arch, path, tmp, jobs):
    out = os.path.join(tmp, "space-" + os.path.basename(path))
    wall, cpu = timed([tmc, path, "--all-candidates", f"--arch={arch}", "-o", out, "-j", str(jobs)])
    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    ok = [c for c in index["candidates"] if c["status"] == "ok"]
    # The same candidates through nvcc, one process each, `jobs` at a time.
    sources = []
    for i, c in enumerate(ok):
        cu = os.path.join(out, f"cand{i}.cu")
        defines = [a for p, v in c["params"].items() for a in ("-D", f"{p}={v}")]
        subprocess.run([tmc, path, "--kernel", c["kernel"], *defines, "--emit=cuda", f"--arch={arch}", "-o", cu], check=True)
        sources.append(cu)
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda cu: timed([NVCC, "-O3", f"-arch={arch}", "-ptx", cu, "-o", cu + ".ptx"]), sources))
    nvcc_wall = time.perf_counter() - start
    return len(ok), wall, cpu, nvcc_wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tmc", default=os.path.join(ROOT, "build", "bin", "tmc"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--repeat", type=int, default=5, help="turns per kernel or file")
    ap.add_argument("--tmc-runs", type=int, default=3, help="runs of tmc per turn (nvcc: one)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--only", nargs="*", default=[], help="only these files (relative to the root), e.g. examples/matmul_simt.tm")
    ap.add_argument("--per-kernel", action="store_true", help="also each kernel of each file alone (--kernel K)")
    ap.add_argument("--spaces", nargs="*", default=None,
                    help="files whose whole candidate space is compiled (--all-candidates); "
                         "given alone or not at all: " + " ".join(DEFAULT_SPACES))
    ap.add_argument("--no-spaces", action="store_true", help="leave the candidate spaces out")
    args = ap.parse_args()
    # `--spaces` followed by another option (or by nothing) means the
    # default files, not none of them.
    args.spaces = [] if args.no_spaces else (args.spaces or DEFAULT_SPACES)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"compile speed, {args.arch}, {os.cpu_count()} cores, median (and fastest) of "
              f"{args.repeat * args.tmc_runs} runs of tmc and {args.repeat} of nvcc\n")
        print("| file | tmc --emit=ptx CPU ms | nvcc -O3 -ptx CPU ms | tmc / nvcc | fastest runs |")
        print("|---|---|---|---|---|")
        for name, t, n, tf, nf in per_file(args.tmc, args.arch, args.repeat, tmp, args.only, args.tmc_runs):
            print(f"| {name} | {t * 1e3:.0f} | {n * 1e3:.0f} | {t / n:.3f} | {tf / nf:.3f} |")
        if args.per_kernel:
            rows = each_kernel(args.tmc, args.arch, args.repeat, tmp, args.only, args.tmc_runs)
            print("\n| kernel | tmc --kernel K --emit=ptx CPU ms | nvcc -O3 -ptx CPU ms | tmc / nvcc | fastest runs |")
            print("|---|---|---|---|---|")
            for name, t, n, tf, nf in rows:
                print(f"| {name} | {t * 1e3:.0f} | {n * 1e3:.0f} | {t / n:.3f} | {tf / nf:.3f} |")
            for label, pick in (("medians", lambda r: r[1] / r[2]), ("fastest runs", lambda r: r[3] / r[4])):
                ratios = sorted(pick(r) for r in rows)
                over = [r[0] for r in rows if pick(r) > 0.05]
                print(f"\n{len(rows)} kernels, {label}: median {statistics.median(ratios):.3f}, largest {ratios[-1]:.3f}; "
                      f"{len(over)} over 0.05{': ' + ', '.join(over) if over else ''}")
        version = median_of([args.tmc, "--version"], max(args.repeat, 10), 0)
        print(f"\nstart-up: tmc --version {version * 1e3:.1f} ms wall (median of {max(args.repeat, 10)})\n")
        print("| candidate space | candidates | tmc --all-candidates | per second | nvcc, one process each | per second | speed-up |")
        print("|---|---|---|---|---|---|---|")
        for rel in args.spaces:
            n, wall, cpu, nvcc_wall = space(args.tmc, args.arch, os.path.join(ROOT, rel), tmp, args.jobs)
            print(f"| {rel} | {n} | {wall:.2f} s ({cpu:.2f} s CPU) | {n / wall:.1f} | {nvcc_wall:.2f} s | "
                  f"{n / nvcc_wall:.1f} | {nvcc_wall / wall:.1f}x |")


if __name__ == "__main__":
    main()
