#!/usr/bin/env python3
"""concurrently.py OUT_PREFIX CMD1... --- CMD2... [--- ...]: starts every
command at once, waits for all, writes command i's standard output to
OUT_PREFIX.i.out and its standard error to OUT_PREFIX.i.err, and fails
when any command fails (a test of several tuners sharing a machine)."""
import subprocess
import sys

prefix = sys.argv[1]
commands, current = [], []
for arg in sys.argv[2:]:
    if arg == "---":
        commands.append(current)
        current = []
    else:
        current.append(arg)
commands.append(current)
procs = []
for i, cmd in enumerate(commands):
    out = open(f"{prefix}.{i}.out", "w")
    err = open(f"{prefix}.{i}.err", "w")
    procs.append((cmd, subprocess.Popen(cmd, stdout=out, stderr=err)))
failed = False
for cmd, p in procs:
    if p.wait() != 0:
        sys.stderr.write(f"failed with {p.returncode}: {' '.join(cmd)}\n")
        failed = True
sys.exit(1 if failed else 0)
