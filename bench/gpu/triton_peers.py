"""Triton peers of the standard library's kernels, for bench/gpu/stdlib_bench.py.

Written here in the style of Triton's tutorials (matrix multiplication with
a few autotune configs, fused softmax, layer norm), each a function of torch
tensors on the GPU that returns its result(s). Importing this module needs
Triton; stdlib_bench.py imports it inside a try and reports when it cannot.
The matmuls accumulate in f32 and write f32, as std.matmul's matmul_tc does.
"""
import torch
import triton
import triton.language as tl


def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                   IEEE: tl.constexpr):
    # Grouped ordering of the output tiles (better L2 reuse), as the tutorial.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        if IEEE:
            acc = tl.dot(a, b, acc, input_precision="ieee")  # f32 on the FMA units, no tf32
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def _config(bm, bn, bk, stages, warps):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=stages, num_warps=warps)


# The tutorial's configs for 16-bit inputs on recent GPUs (a subset, so that
# autotuning stays within the benchmark's time budget).
_MM16_CONFIGS = [
    _config(128, 256, 64, 3, 8),
    _config(256, 128, 64, 3, 8),
    _config(128, 128, 64, 4, 4),
    _config(128, 128, 32, 4, 4),
    _config(64, 256, 32, 4, 4),
]
_MM32_CONFIGS = [
    _config(128, 128, 16, 3, 8),
    _config(128, 64, 32, 3, 4),
    _config(64, 64, 32, 4, 4),
]
# One autotuned kernel per input type: the autotuner's cache is keyed on
# the sizes, and f16 and bf16 must not share a tuning result.
_matmul_by_dtype = {}


def matmul(a, b):
    """C = A @ B with f32 accumulation and an f32 result."""
    M, K = a.shape
    K2, N = b.shape
    assert K == K2
    kernel = _matmul_by_dtype.get(a.dtype)
    if kernel is None:
        configs = _MM32_CONFIGS if a.dtype == torch.float32 else _MM16_CONFIGS
        kernel = triton.autotune(configs=configs, key=["M", "N", "K"])(triton.jit(_matmul_kernel))
        _matmul_by_dtype[a.dtype] = kernel
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 IEEE=a.dtype == torch.float32)
    return c


def _warps(block):
    return 4 if block <= 1024 else 8 if block <= 4096 else 16


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, C, stride_x, stride_y, BLOCK: tl.constexpr):
    # One program per row, the row in registers (the tutorial's fused softmax).
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride_y + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x):
    R, C = x.shape
    block = triton.next_power_of_2(C)
    y = torch.empty_like(x)
    _softmax_kernel[(R,)](x, y, C, x.stride(0), y.stride(0), BLOCK=block, num_warps=_warps(block))
    return y


@triton.jit
def _layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, C, stride, eps, BLOCK: tl.constexpr):
    # One program per row, the row read once (the tutorial's forward pass
    # with the whole row in one block).
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / C
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / C
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (d * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def layernorm(x, w, b, eps):
    R, C = x.shape
    block = triton.next_power_of_2(C)
    y = torch.empty_like(x)
    mean = torch.empty((R,), device=x.device, dtype=torch.float32)
    rstd = torch.empty((R,), device=x.device, dtype=torch.float32)
    _layernorm_kernel[(R,)](x, y, w, b, mean, rstd, C, x.stride(0), eps, BLOCK=block, num_warps=_warps(block))
    return y, mean, rstd


@triton.jit
def _rmsnorm_kernel(x_ptr, y_ptr, w_ptr, rstd_ptr, C, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / C + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(rstd_ptr + row, rstd)


def rmsnorm(x, w, eps):
    R, C = x.shape
    block = triton.next_power_of_2(C)
    y = torch.empty_like(x)
    rstd = torch.empty((R,), device=x.device, dtype=torch.float32)
    _rmsnorm_kernel[(R,)](x, y, w, rstd, C, x.stride(0), eps, BLOCK=block, num_warps=_warps(block))
    return y, rstd
