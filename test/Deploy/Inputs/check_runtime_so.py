#!/usr/bin/env python3
"""check_runtime_so.py LIB: the shared runtime's SONAME, that it needs no
C++ library, and that it exports the tmc_* C API only (readelf, nm)."""
import re
import subprocess
import sys

lib = sys.argv[1]
dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True, check=True).stdout
soname = re.search(r"Library soname: \[(.*)\]", dyn)
print("soname", soname.group(1) if soname else "none")
needed = re.findall(r"Shared library: \[(.*)\]", dyn)
cxx = [n for n in needed if "stdc++" in n or "libgcc_s" in n]
print("needs no C++ library" if not cxx else "needs " + ", ".join(cxx))
syms = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout.split("\n")
names = [line.split()[-1] for line in syms if line.strip()]
other = [n for n in names if not n.startswith("tmc_") and not n.startswith("TMC_RUNTIME_")]
print("exports only tmc_ functions" if not other else "also exports " + ", ".join(other[:10]))
