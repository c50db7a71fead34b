#!/usr/bin/env python3
"""Times the peers of each replay case in the same run (PyTorch, which
calls cuBLAS for matmuls) and prints tmc's time over the peer's.

usage: tmc-replay bench/gpu/cases/* | python3 bench/gpu/peers.py
Reads the replay lines ("PASS  DIR  rel_l2=...  median=X ms") from
standard input and each case's manifest for its shapes and dtypes."""
import os
import re
import sys


def peer_ms(torch, kernel, tensors):
    """Median milliseconds of the PyTorch equivalent of `kernel`."""
    dev = "cuda"
    dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}
    ins = [torch.randn(*shape, device=dev, dtype=dt.get(dtype, torch.float32)) for dtype, shape in tensors[:-1]]
    if kernel.startswith("matmul"):
        fn = lambda: torch.matmul(ins[0], ins[1]).float()
    elif kernel.startswith("transpose"):
        fn = lambda: ins[0].t().contiguous()
    elif kernel.startswith("row_sum"):
        fn = lambda: ins[0].sum(dim=1)
    elif kernel.startswith("vector_add"):
        fn = lambda: ins[0] + ins[1]
    else:
        return None
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def main():
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("no CUDA device")
    except ImportError as e:
        print(f"peers: PyTorch unavailable ({e}); no ratios")
        return 0
    print(f"{'case':<28} {'tmc ms':>10} {'peer ms':>10} {'tmc/peer':>9}")
    for line in sys.stdin:
        m = re.match(r"(PASS|FAIL)\s+(\S+)\s+.*median=([0-9.]+) ms", line)
        if not m:
            continue
        case, tmc_ms = m.group(2), float(m.group(3))
        manifest = open(os.path.join(case, "manifest.txt")).read().split("\n")
        kernel = manifest[0].split()[1]
        tensors = []
        for row in manifest:
            f = row.split()
            if f and f[0] == "tensor":
                rank = int(f[5])
                tensors.append((f[1], [int(x) for x in f[6:6 + rank]]))
        p = peer_ms(torch, kernel, tensors)
        ratio = f"{tmc_ms / p:9.2f}" if p else "        -"
        print(f"{os.path.basename(case):<28} {tmc_ms:10.4f} {p if p else float('nan'):10.4f} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
