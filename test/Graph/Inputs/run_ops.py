#!/usr/bin/env python3
"""Checks the automatic kernel of every op in the given modules against the
op on the CPU executor (tmc run --op), at shapes that do not divide the
rules' tiles (primes), at shapes that do (powers of two), in f16 for generic
ops, and once with --check-bounds --check-races. Prints one line per op and
run; exits 1 if any fails.

usage: run_ops.py TMC MODULE.tm ...
"""
import re
import subprocess
import sys

PRIMES = [37, 19, 5, 3, 7, 11, 13, 6, 9, 10, 4, 2]
POWERS = [64, 32, 16, 8, 8, 4, 4, 4, 2, 2, 2, 2]


def main():
    tmc, modules = sys.argv[1], sys.argv[2:]
    fails = 0
    for mod in modules:
        for op in re.findall(r"^op\s+(\w+)", open(mod).read(), re.M):
            gen = subprocess.run([tmc, mod, "--op", op, "--emit=tm"], capture_output=True, text=True)
            if gen.returncode != 0:
                print(f"FAIL {op}: --emit=tm\n{gen.stderr}")
                fails += 1
                continue
            sig = re.search(r"kernel \w+(<[^>]*>)?\((.*?)\)\n", gen.stdout)
            symbols = []
            for dims in re.findall(r"\[([^\]]*)\]", sig.group(2)):
                for d in (x.strip() for x in dims.split(",")):
                    if re.fullmatch(r"[A-Za-z_]\w*", d) and d not in symbols:
                        symbols.append(d)
            generic = sig.group(1) and re.search(r"\bT: type", sig.group(1))
            rule = re.search(r"rule: ([\w ]+)", gen.stdout).group(1)
            runs = [("primes", PRIMES, []), ("powers", POWERS, [])]
            if generic:
                runs.append(("f16", PRIMES, ["-D", "T=f16"]))
            runs.append(("checks", PRIMES, ["--check-bounds", "--check-races"]))
            for label, values, extra in runs:
                shape = ",".join(f"{s}={values[i % len(values)]}" for i, s in enumerate(symbols))
                cmd = [tmc, "run", mod, "--op", op] + (["--shape", shape] if shape else []) + extra
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
                ok = r.returncode == 0 and "result:     PASS" in r.stdout
                fails += not ok
                print(f"{'ok' if ok else 'FAIL'} {op} [{rule}] {label} {shape}")
                if not ok:
                    print("  " + " ".join(cmd) + "\n" + r.stdout + r.stderr)
    print(f"failures: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
