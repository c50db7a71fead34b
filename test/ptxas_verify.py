#!/usr/bin/env python3
"""ptxas_verify.py [--no-spills] [--wgmma-clean] [--dir DIR] ARCH... < kernel.ptx

Assembles PTX read from standard input (or, with --dir, every .ptx file in
DIR: the candidates `tmc --all-candidates` wrote) with CUDA's ptxas for each
ARCH (sm_80, sm_90a, ...), as LLVM's NVPTX tests do: invalid PTX fails the
test. With --no-spills, also fails when ptxas -v reports spill stores or
loads or a local-memory stack frame for any function. With --wgmma-clean,
also fails when ptxas reports that it had to serialize wgmma instructions
or inject a warpgroup wait (its C75xx notes: a read of accumulators before
wgmma_wait, or registers it cannot keep in place)."""
import os
import re
import subprocess
import sys
import tempfile

PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
WGMMA_CLEAN = False


def main():
    args = sys.argv[1:]
    no_spills = "--no-spills" in args
    global WGMMA_CLEAN
    WGMMA_CLEAN = "--wgmma-clean" in args
    folder = None
    if "--dir" in args:
        folder = args[args.index("--dir") + 1]
        args = args[:args.index("--dir")] + args[args.index("--dir") + 2:]
    archs = [a for a in args if a not in ("--no-spills", "--wgmma-clean")]
    if folder:
        files = sorted(f for f in os.listdir(folder) if f.endswith(".ptx"))
        if not files:
            sys.exit(f"ptxas_verify: no .ptx file in {folder}")
        for f in files:
            verify(open(os.path.join(folder, f)).read(), archs, no_spills, f)
        return
    ptx = sys.stdin.read()
    if ".entry" not in ptx and ".func" not in ptx:
        sys.exit("ptxas_verify: no PTX on standard input")
    verify(ptx, archs, no_spills, "<stdin>")


def verify(ptx, archs, no_spills, name):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "in.ptx")
        open(path, "w").write(ptx)
        for arch in archs:
            r = subprocess.run([PTXAS, "-arch=" + arch, "-v", path, "-o", os.path.join(d, "out.cubin")],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"ptxas -arch={arch} failed on {name}:\n{r.stderr}")
            if no_spills:
                for m in re.finditer(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr):
                    if any(int(x) for x in m.groups()):
                        sys.exit(f"ptxas -arch={arch}: local memory used in {name}:\n{r.stderr}")
            # ptxas drops setmaxnreg (an info note, not an error) when it
            # cannot tell the register count at entry: always a defect.
            if re.search(r"setmaxnreg' ignored", r.stderr):
                sys.exit(f"ptxas -arch={arch}: setmaxnreg ignored in {name}:\n{r.stderr}")
            if WGMMA_CLEAN:
                for line in r.stderr.splitlines():
                    if re.search(r"\(C75\d\d\).*(wgmma|warpgroup|GMMA)", line, re.I):
                        sys.exit(f"ptxas -arch={arch}: wgmma not clean in {name}:\n{line}")
            print(f"ptxas -arch={arch}: {name} ok")


if __name__ == "__main__":
    main()
