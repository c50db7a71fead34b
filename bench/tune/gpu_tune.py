#!/usr/bin/env python3
"""Tuning on the GPU machine (which cannot run tmc): times the candidates
bench/tune/prepare_gpu.sh prepared here, as `tmc tune` does on a machine
with both (docs/tuning.md), and compares the winner with cuBLAS and Triton.

    python3 bench/tune/gpu_tune.py --lib BUILD/libtmc_bench.so [--out DIR]
    python3 bench/tune/gpu_tune.py --lib BUILD/libtmc_bench.so --dry-run   # here: plans every launch

For each entry of bench/tune/gpu.plan: the candidates that passed the CPU
check and the resource filter here (bench/tune/gpu/here.json) are timed on
torch's random inputs with CUDA events: a first round (1 warm-up, 5 runs)
eliminates those slower than 1.5x the best so far, the rest are timed
again (3 warm-ups, at least 20 runs) and ranked by their median. Printed
per op: candidates timed and eliminated, the tuning time (the GPU's part
here, and the part `tmc tune` took on the build machine), the winner, its
relative L2 error against torch in f32, and its time against cuBLAS
(`a @ b`) and the Triton tutorial matmul (bench/gpu/triton_peers.py).
Written to OUT/measured.json: every measurement as a `tmc db export`
document; `tmc db import measured.json` makes compiles use the winners.
BUILD is made from bench/gpu: cmake -S bench/gpu -B BUILD && cmake --build BUILD.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
import stdlib_bench as sb  # noqa: E402  (the runtime over ctypes, binding, timing)


def read_plan(path):
    plan = []
    for line in open(path):
        line = line.split("#")[0].split()
        if line:
            shape = dict((k, int(v)) for k, v in (item.split("=") for item in line[1].split(",")))
            plan.append((line[0], shape))
    return plan


def shape_text(shape):
    return ",".join(f"{k}={shape[k]}" for k in sorted(shape))


def searched(cand):
    """Its tuned values as the database writes them (type values are fixed)."""
    return ",".join(f"{k}={v}" for k, v in cand.params.items() if not isinstance(v, str))


def fixed(cand):
    return ",".join(f"{k}={v}" for k, v in cand.params.items() if isinstance(v, str))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--prepared", default=os.path.join(HERE, "gpu"))
    ap.add_argument("--plan", default=os.path.join(HERE, "gpu.plan"))
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(HERE, "gpu"))
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    rt = sb.Runtime(args.lib)
    prepared = sb.load_prepared(os.path.join(args.prepared, "ptx"))
    here = json.load(open(os.path.join(args.prepared, "here.json")))
    here_seconds = float(open(os.path.join(args.prepared, "here_seconds")).read())
    passed = {(m["kernel"], m["params"]) for m in here["measurements"] if m["status"] == "ok"}
    indexes = {}
    for d, _, files in os.walk(os.path.join(args.prepared, "ptx")):
        if "index.json" in files:
            idx = json.load(open(os.path.join(d, "index.json")))
            for c in idx["candidates"]:
                indexes[c["kernel"]] = idx
    torch = None
    tp = None
    device = "dry run"
    if not args.dry_run:
        import torch
        sb.TORCH_DTYPES.update({"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16})
        torch.backends.cuda.matmul.allow_tf32 = False
        rt.init()
        device = torch.cuda.get_device_name()
        try:
            import triton_peers as tp
        except Exception as e:  # Triton missing or broken: reported, cuBLAS still compared
            print(f"no Triton peer: {type(e).__name__}: {e}")
    timer = sb.Timer(torch, False) if torch else None
    measurements, winners, rows = [], [], []
    for kernel, shape in read_plan(args.plan):
        cands = [c for c in prepared.get(kernel, []) if (kernel, searched(c)) in passed]
        if not cands:
            print(f"{kernel}: no candidate passed here (see bench/tune/gpu/here.txt)")
            continue
        dt = cands[0].params.get("T", "f32")
        M, N, K = shape["M"], shape["N"], shape["K"]
        ins = [sb.In((M, K), dt).make(torch, "cuda"), sb.In((K, N), dt).make(torch, "cuda")]
        outs = {}

        def make_output(s, d):
            return sb.FakeTensor(s, d) if torch is None else torch.empty(s, dtype=sb.TORCH_DTYPES[d], device="cuda")

        launchers = {}
        for c in cands:
            a, o = sb.bind(rt, c, ins, make_output)
            rt.check(c.meta_text, c.kernel, a)  # what tmc_launch checks, without a GPU
            outs[c] = o[0]
            launchers[c] = (a, None if torch is None else rt.launcher(rt.kernel(c), a))
        if args.dry_run:
            print(f"{kernel} {shape_text(shape)}: {len(cands)} candidates planned")
            continue
        start = time.monotonic()
        first = {}
        for c in cands:
            first[c] = timer(launchers[c][1], warmup=1, min_reps=5, max_reps=5, target_ms=0)["median_ms"]
        best = min(first.values())
        kept = [c for c in cands if first[c] <= 1.5 * best]
        final = {c: timer(launchers[c][1])["median_ms"] for c in kept}
        gpu_seconds = time.monotonic() - start
        winner = min(final, key=final.get)
        launchers[winner][1]()
        ref = ins[0].float() @ ins[1].float()
        err, bad = sb.rel_l2(torch, outs[winner].float(), ref)
        cublas = timer(lambda: ins[0] @ ins[1])["median_ms"]
        triton = timer(lambda: tp.matmul(ins[0], ins[1]))["median_ms"] if tp else float("nan")
        rows.append((kernel, dt, shape_text(shape), len(cands), len(cands) - len(kept), gpu_seconds, searched(winner),
                     final[winner], cublas, triton, err, 2 * M * N * K / final[winner] / 1e9))
        idx = indexes[kernel]
        for c in cands:
            measurements.append({
                "kernel": kernel, "source_hash": idx["source_hash"], "arch": idx["arch"], "dtypes": fixed(c),
                "device": device, "tmc_version": idx["tmc_version"], "shape": shape_text(shape), "params": searched(c),
                "status": "ok", "metric": final.get(c, first[c]), "metric_kind": "gpu-ms", "registers": 0,
                "spill_bytes": 0, "shared_bytes": 0,
                "reason": "" if c in final else f"eliminated after the first round ({first[c]:.4f} ms > 1.5 x {best:.4f})",
                "created": int(time.time())})
        winners.append({"kernel": kernel, "source_hash": idx["source_hash"], "arch": idx["arch"], "dtypes": fixed(winner),
                        "device": device, "tmc_version": idx["tmc_version"], "shape": shape_text(shape),
                        "params": searched(winner), "metric": final[winner], "metric_kind": "gpu-ms",
                        "created": int(time.time())})
    if args.dry_run:
        return
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "measured.json"), "w") as f:
        json.dump({"format": "tmc-tuning-db", "version": 1, "best": winners, "measurements": measurements}, f, indent=1)
    print(f"\ndevice: {device}; tuning here (tmc tune: compile, filter, CPU checks) took {here_seconds} s for the plan")
    print("| op | type | shape | candidates timed | eliminated early | GPU tuning s | winner | tmc ms | cuBLAS ms |"
          " Triton ms | tmc / cuBLAS | tmc / Triton | rel. L2 | TFLOP/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, dt, s, n, el, gs, w, ms, cu, tr, err, gf in rows:
        print(f"| {k} | {dt} | {s} | {n} | {el} | {gs:.1f} | {w} | {ms:.4f} | {cu:.4f} | {tr:.4f} | {ms / cu:.2f} |"
              f" {ms / tr:.2f} | {err:.1e} | {gf / 1e3:.0f} |")
    print(f"\nwrote {os.path.join(args.out, 'measured.json')}: `tmc db import` it on the build machine")


if __name__ == "__main__":
    main()
