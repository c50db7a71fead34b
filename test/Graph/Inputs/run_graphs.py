#!/usr/bin/env python3
"""Runs every graph of a module with tmc run --graph (the plan end to end
against the unfused op-by-op reference), fused and with --no-fuse, at the
given shapes; prints one line per run and exits 1 if any run fails.

usage: run_graphs.py TMC MODULE.tm SHAPES
"""
import re
import subprocess
import sys


def main():
    tmc, module, shapes = sys.argv[1:4]
    fails = 0
    text = open(module).read()
    given = dict(kv.split("=") for kv in shapes.split(","))
    for graph, params in re.findall(r"^graph\s+(\w+)\s*\((.*?)\)\s*->", text, re.M | re.S):
        # Only the symbols this graph has (tmc refuses others).
        names = set(re.findall(r"[A-Za-z_]\w*", " ".join(re.findall(r"\[([^\]]*)\]", params))))
        mine = ",".join(f"{k}={v}" for k, v in given.items() if k in names)
        for extra in ([], ["--no-fuse"]):
            r = subprocess.run([tmc, "run", module, "--graph", graph] + (["--shape", mine] if mine else []) + extra,
                               capture_output=True, text=True, timeout=600)
            kernels = len(re.findall(r"^kernel \d+:", r.stdout, re.M))
            ok = r.returncode == 0 and "result:     PASS" in r.stdout and "FAIL" not in r.stdout
            fails += not ok
            print(f"{'ok' if ok else 'FAIL'} {graph} {' '.join(extra)} ({kernels} kernels)")
            if not ok:
                print(r.stdout + r.stderr)
    print(f"failures: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
