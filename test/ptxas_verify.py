#!/usr/bin/env python3
"""ptxas_verify.py [--no-spills] ARCH... < kernel.ptx

Assembles PTX read from standard input with CUDA's ptxas for each ARCH
(sm_80, sm_90a, ...), as LLVM's NVPTX tests do: invalid PTX fails the test.
With --no-spills, also fails when ptxas -v reports spill stores or loads or a
local-memory stack frame for any function."""
import os
import re
import subprocess
import sys
import tempfile

PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")


def main():
    args = sys.argv[1:]
    no_spills = "--no-spills" in args
    archs = [a for a in args if a != "--no-spills"]
    ptx = sys.stdin.read()
    if ".entry" not in ptx and ".func" not in ptx:
        sys.exit("ptxas_verify: no PTX on standard input")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "in.ptx")
        open(path, "w").write(ptx)
        for arch in archs:
            r = subprocess.run([PTXAS, "-arch=" + arch, "-v", path, "-o", os.path.join(d, "out.cubin")],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"ptxas -arch={arch} failed:\n{r.stderr}")
            if no_spills:
                for m in re.finditer(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr):
                    if any(int(x) for x in m.groups()):
                        sys.exit(f"ptxas -arch={arch}: local memory used:\n{r.stderr}")
            print(f"ptxas -arch={arch}: ok")


if __name__ == "__main__":
    main()
