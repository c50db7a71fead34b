#!/usr/bin/env python3
"""The time `tmc tune` takes to enumerate, compile, filter and check (and,
without a GPU, rank) a whole candidate space, with a cold compile cache.

    python3 bench/tune/tune_space.py [--tmc build/bin/tmc] [--arch sm_90a]

Default: std.matmul's tensor-core kernels (matmul_tc, matmul_tc_t, bmm_tc;
bench/tune/tc_space.plan) for f16 and bf16. Prints one row per element
type and the total, as a Markdown table (docs/benchmarks.md)."""
import argparse
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tmc", default=os.path.join(ROOT, "build", "bin", "tmc"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--file", default=os.path.join(ROOT, "stdlib", "matmul.tm"))
    ap.add_argument("--plan", default=os.path.join(ROOT, "bench", "tune", "tc_space.plan"))
    ap.add_argument("--types", default="f16,bf16")
    args = ap.parse_args()
    rows, totals = [], [0, 0, 0, 0, 0.0]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TMC_CACHE_DIR=os.path.join(tmp, "cache"), TMC_TUNE_NO_GPU="1")
        for t in args.types.split(","):
            start = time.monotonic()
            r = subprocess.run([args.tmc, "tune", args.file, "--plan", args.plan, "--arch", args.arch, "-D", f"T={t}",
                                "--db", os.path.join(tmp, "tuning.db")], env=env, capture_output=True, text=True)
            seconds = time.monotonic() - start
            if r.returncode != 0:
                raise SystemExit(f"tmc tune failed for T={t}:\n{r.stderr[-3000:]}")
            cands = sum(int(m) for m in re.findall(r": (\d+) candidates", r.stderr))
            excluded = sum(int(m) for m in re.findall(r"(\d+) excluded by 'where'", r.stderr))
            failed = sum(int(m) for m in re.findall(r"(\d+) failed to compile", r.stderr))
            dropped = sum(int(m) for m in re.findall(r"(\d+) dropped \(", r.stderr))
            compiled = cands - excluded - failed
            checked = compiled - dropped
            rows.append((f"T={t}", cands, excluded, compiled, checked, seconds))
            for i, v in enumerate((cands, excluded, compiled, checked, seconds)):
                totals[i] += v
    print(f"| space ({os.path.relpath(args.plan, ROOT)}, {args.arch}) | candidates | excluded by where | compiled | "
          "checked on the CPU | seconds |")
    print("|---|---|---|---|---|---|")
    for name, c, e, k, ch, s in rows:
        print(f"| {name} | {c} | {e} | {k} | {ch} | {s:.1f} |")
    print(f"| total | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} | {totals[4]:.1f} |")


if __name__ == "__main__":
    main()
