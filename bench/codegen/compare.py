#!/usr/bin/env python3
"""Compares two runs of quality.py --json, kernel by kernel, on tmc's side:
for trying a change to tmc's code generation (a pass pipeline, an LLVM
option) against the code it made before.

usage: bench/codegen/compare.py BEFORE.json AFTER.json

For example, tmc's pass pipeline against LLVM's -O3:
    python3 bench/codegen/quality.py --json > tmc.json
    TMC_LLVM_PIPELINE='default<O3>' python3 bench/codegen/quality.py --json > o3.json
    python3 bench/codegen/compare.py o3.json tmc.json

Prints each kernel whose registers, spills, hot-loop length or memory
accesses (count per width) changed, and a summary. A kernel is "worse"
when it takes more registers, spills more, has a longer hot loop or
narrower memory accesses (a lower mean width in one class: global loads,
shared stores, ...), and "better" when it takes fewer registers, has a
shorter loop or wider accesses and is not worse. Exit status 0 (this compares, it does not judge).
"""
import json
import sys


def load(path):
    with open(path) as f:
        return {(r["file"], r["label"]): r for r in json.load(f)}


def loop_length(side):
    return side.get("loop_mix", {}).get("instructions")


def mean_widths(mix):
    """Mean access width in bytes per memory access class ("ld.global",
    "st.shared", ...) of a kernel's instruction mix ("ld.global:16": n)."""
    totals = {}
    for key, count in mix.items():
        op, _, width = key.partition(":")
        if width.isdigit() and (op.startswith("ld.") or op.startswith("st.")) and not op.startswith("ld.param"):
            n, b = totals.get(op, (0, 0))
            totals[op] = (n + count, b + count * int(width))
    return {op: b / n for op, (n, b) in totals.items() if n}


def narrower_or_wider(mix_before, mix_after):
    """Access classes whose mean width fell, and those whose mean width rose."""
    wb, wa = mean_widths(mix_before), mean_widths(mix_after)
    common = set(wb) & set(wa)
    return sorted(op for op in common if wa[op] < wb[op]), sorted(op for op in common if wa[op] > wb[op])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = load(sys.argv[1]), load(sys.argv[2])
    worse = better = mix_changed = 0
    for key, b in before.items():
        a = after.get(key)
        if a is None:
            print(f"{key[0]} {key[1]}: missing from {sys.argv[2]}")
            continue
        tb, ta, nv = b["tmc"], a["tmc"], b["nvcc"]
        lb, la = loop_length(tb), loop_length(ta)
        longer = lb is not None and la is not None and la > lb
        shorter = lb is not None and la is not None and la < lb
        mb, ma = tb["kernel_mix"], ta["kernel_mix"]
        narrower, wider = narrower_or_wider(mb, ma)
        is_worse = (ta["registers"] > tb["registers"] or ta["spill_stores"] > tb["spill_stores"] or longer
                    or bool(narrower))
        is_better = not is_worse and (ta["registers"] < tb["registers"] or shorter or bool(wider))
        mix = {k: (mb.get(k, 0), ma.get(k, 0)) for k in sorted(set(mb) | set(ma))
               if k != "instructions" and mb.get(k, 0) != ma.get(k, 0)}
        worse += is_worse
        better += is_better
        mix_changed += bool(mix)
        if is_worse or is_better or mix:
            verdict = "worse" if is_worse else "better" if is_better else "same"
            print(f"{key[0]} {key[1]}: {verdict}: registers {tb['registers']} -> {ta['registers']} "
                  f"(nvcc {nv['registers']}), hot loop {lb} -> {la} (nvcc {loop_length(nv)}), "
                  f"instructions {mb['instructions']} -> {ma['instructions']}"
                  + (f", memory accesses {mix}" if mix else "")
                  + (f", narrower {', '.join(narrower)}" if narrower else "")
                  + (f", wider {', '.join(wider)}" if wider else ""))
    print(f"{len(before)} kernels: {worse} worse, {better} better, {mix_changed} with other memory accesses")


if __name__ == "__main__":
    main()
