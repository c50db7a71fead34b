"""Calls tmc kernels from Python: the SIMT matmul of examples/matmul_simt.tm
on NumPy arrays (the CPU executor), on PyTorch tensors (CPU, or the GPU when
there is one), and as a PyTorch operator.

    /usr/bin/python3 examples/python/matmul.py      (after bash scripts/setup.sh)
"""
import os
import sys

import numpy as np

import tmc

here = os.path.dirname(os.path.abspath(__file__))
m = tmc.load(os.path.join(here, "..", "matmul_simt.tm"), arch="sm_90a")
print(m)

rng = np.random.default_rng(0)
a = rng.standard_normal((100, 70), dtype=np.float32)  # tiles of 64 do not divide 100 or 70
b = rng.standard_normal((70, 90), dtype=np.float32)
c = m.matmul_simt(a, b)  # C is allocated: the kernel's output
err = np.abs(c - a.astype(np.float64) @ b).max()
print("numpy:  C %s, max error %.2e" % (c.shape, err))
ok = err < 1e-4

try:
    import torch
    import tmc.torch
except ImportError:
    torch = None
if torch is not None:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    ta, tb = torch.from_numpy(a).to(device), torch.from_numpy(b).to(device)
    tc = m.matmul_simt(ta, tb)
    err_t = (tc - ta @ tb).abs().max().item()
    tmc.torch.register(m, namespace="examples")
    err_op = (torch.ops.examples.matmul_simt(ta, tb) - ta @ tb).abs().max().item()
    print("torch (%s): max error %.2e; torch.ops.examples.matmul_simt: max error %.2e" % (device, err_t, err_op))
    ok = ok and err_t < 1e-3 and err_op < 1e-3

print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
