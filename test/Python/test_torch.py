# PyTorch: CPU tensors run on the CPU executor (bf16 included), CUDA
# tensors on the GPU on the current stream (where there is one), and
# tmc.torch.register makes kernels and graphs torch.ops operators with a
# shape function.
import os

import pytest

torch = pytest.importorskip("torch")
import tmc  # noqa: E402
import tmc.torch  # noqa: E402
from conftest import ROOT  # noqa: E402


def test_cpu_tensors(kernels):
    torch.manual_seed(3)
    x = torch.randn(33, 130)
    y = kernels.scale_rows(x, 0.25)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32 and y.shape == x.shape
    torch.testing.assert_close(y, x * 0.25, rtol=0, atol=0)
    with pytest.raises(tmc.SignatureError, match="argument 'X' is not contiguous"):
        kernels.scale_rows(torch.randn(130, 33).t(), 1.0)
    with pytest.raises(tmc.SignatureError, match="argument 'X' has dtype f16; the kernel expects f32"):
        kernels.scale_rows(x.half(), 1.0)


def test_bf16_stdlib_kernel():
    m = tmc.load(os.path.join(ROOT, "stdlib", "elementwise.tm"), kernels=["gelu_rows"], defines={"T": "bf16"})
    torch.manual_seed(5)
    x = torch.randn(19, 77).to(torch.bfloat16)
    y = m.gelu_rows(x)
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y.float(), torch.nn.functional.gelu(x.float()), rtol=2e-2, atol=2e-2)


def test_register_as_torch_ops(kernels):
    names = tmc.torch.register(kernels, namespace="tmc_test")
    assert names == ["block", "scale_rows"]
    torch.manual_seed(7)
    x, w, b = torch.randn(45, 64), torch.randn(64, 96), torch.randn(96)
    out = torch.ops.tmc_test.block(x, w, b)
    torch.testing.assert_close(out, torch.relu(x @ w + b), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(torch.ops.tmc_test.scale_rows(x, 3.0), 3 * x)
    # The shape function: meta tensors give the output's shape and dtype
    # without running anything.
    meta = torch.ops.tmc_test.block(torch.empty(1000, 64, device="meta"), torch.empty(64, 96, device="meta"),
                                    torch.empty(96, device="meta"))
    assert meta.shape == (1000, 96) and meta.device.type == "meta"

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(w.clone())
            self.b = torch.nn.Parameter(b.clone())

        def forward(self, inp):
            return torch.ops.tmc_test.scale_rows(torch.ops.tmc_test.block(inp, self.w, self.b), 0.5)

    with torch.no_grad():
        torch.testing.assert_close(Model()(x), 0.5 * torch.relu(x @ w + b), rtol=1e-4, atol=1e-4)


def test_register_twice_in_one_namespace(kernels):
    # A second module (here the same one, under other names) adds to it.
    tmc.torch.register(kernels, namespace="tmc_test_shared", names=["scale_rows"])
    tmc.torch.register(kernels, namespace="tmc_test_shared", names=["block"])
    x = torch.randn(3, 64)
    torch.testing.assert_close(torch.ops.tmc_test_shared.scale_rows(x, 2.0), 2 * x)
    with pytest.raises(tmc.SignatureError, match="no kernel or graph 'nope'"):
        tmc.torch.register(kernels, namespace="tmc_test_shared2", names=["scale_rows", "nope"])
    with pytest.raises((AttributeError, RuntimeError)):  # nothing was defined before the check failed
        torch.ops.tmc_test_shared2.scale_rows


def test_register_refuses_kernels_without_outputs(tmp_path):
    src = tmp_path / "noout.tm"
    src.write_text("kernel nothing(X: f32[N]) grid(1) block(32) {\n  let a = X[0];\n}\n")
    m = tmc.load(str(src))
    with pytest.raises(tmc.SignatureError, match="'nothing' has no output tensor"):
        tmc.torch.register(m, namespace="tmc_test_noout")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_tensors_on_the_current_stream(kernels):
    x = torch.randn(70, 64, device="cuda")
    w = torch.randn(64, 96, device="cuda")
    b = torch.randn(96, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())  # the inputs were made on the default stream
    with torch.cuda.stream(s):
        out = kernels.block(x, w, b)
    s.synchronize()
    assert out.device.type == "cuda"
    torch.testing.assert_close(out, torch.relu(x @ w + b), rtol=1e-3, atol=1e-3)
    with pytest.raises(tmc.SignatureError, match="is on the CPU, but 'x' is on cuda:0"):
        kernels.block(x, w.cpu(), b)


def test_register_refuses_outputs_no_input_sizes(tmp_path):
    src = tmp_path / "crop.tm"
    src.write_text("kernel crop(X: f32[N], Y: f32[P]) grid(cdiv(P, 64)) block(64) {\n"
                   "  let i = blockIdx.x * 64 + threadIdx.x;\n  if (i < P && i < N) { Y[i] = X[i]; }\n}\n")
    m = tmc.load(str(src))
    with pytest.raises(tmc.SignatureError, match=r"the shape of output 'Y' of 'crop' \(\[P\]\) depends on P"):
        tmc.torch.register(m, namespace="tmc_test_crop")
    y = m.crop(torch.arange(10.0), torch.zeros(4))  # called directly, with the output given, it runs
    torch.testing.assert_close(y, torch.arange(4.0))


def test_no_gradient_is_said(kernels):
    tmc.torch.register(kernels, namespace="tmc_test_grad", names=["scale_rows"])
    x = torch.randn(3, 8, requires_grad=True)
    with pytest.warns(UserWarning, match="torch.ops.tmc_test_grad.scale_rows has no gradient"):
        torch.ops.tmc_test_grad.scale_rows(x, 2.0)
