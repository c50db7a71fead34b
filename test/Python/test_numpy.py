# tmc.load and calls with NumPy arrays: the CPU executor runs the kernels
# and graphs; results are checked against NumPy at shapes the tiles do and
# do not divide; outputs allocated or the caller's.
import os

import numpy as np
import pytest

import tmc
from conftest import DEPLOY, EXAMPLES, HERE, ROOT


def test_module_lists_kernels_and_graphs(kernels):
    assert sorted(kernels.functions) == ["block", "scale_rows"]
    assert kernels.block.is_graph and not kernels.scale_rows.is_graph
    doc = kernels.scale_rows.__doc__
    assert doc.startswith("kernel scale_rows(X: f32[R, C], s: f32, Y: f32[R, C] (output))\ncompiled with V=4\n"), doc
    assert "scale_rows" in dir(kernels)


@pytest.mark.parametrize("shape", [(37, 300), (64, 256), (1, 1)])
def test_kernel_with_scalar(kernels, rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    y = kernels.scale_rows(x, -1.75)
    assert y.shape == shape and y.dtype == np.float32
    np.testing.assert_allclose(y, x * np.float32(-1.75), rtol=0, atol=0)


def test_output_given_is_written_and_returned(kernels, rng):
    x = rng.standard_normal((5, 70)).astype(np.float32)
    out = np.full((5, 70), np.nan, np.float32)
    r = kernels.scale_rows(x, 3.0, out)
    assert r is out
    np.testing.assert_allclose(out, 3 * x)
    out2 = np.zeros_like(x)
    kernels.scale_rows(X=x, s=0.5, Y=out2)
    np.testing.assert_allclose(out2, 0.5 * x)


@pytest.mark.parametrize("m", [50, 64, 129])
def test_graph(kernels, rng, m):
    x = rng.standard_normal((m, 64)).astype(np.float32)
    w = rng.standard_normal((64, 96)).astype(np.float32)
    b = rng.standard_normal(96).astype(np.float32)
    out = kernels.block(x, w, b)
    ref = np.maximum(x.astype(np.float64) @ w + b, 0)
    assert out.shape == (m, 96)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_tensor_core_example_on_cpu(rng):
    # mma.sync and ldmatrix, emulated by the CPU executor; f16 inputs.
    m = tmc.load(os.path.join(EXAMPLES, "matmul_tensor_core.tm"))
    a = rng.standard_normal((70, 40)).astype(np.float16)
    b = rng.standard_normal((40, 50)).astype(np.float16)
    c = m.matmul_tensor_core(a, b)
    assert c.dtype == np.float32
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=2e-3, atol=2e-3)


def test_errors_name_the_argument(kernels, rng):
    x = rng.standard_normal((8, 64)).astype(np.float32)
    w = rng.standard_normal((64, 96)).astype(np.float32)
    b = rng.standard_normal(96).astype(np.float32)
    cases = [
        (lambda: kernels.block(x.astype(np.float64), w, b), "argument 'x' has dtype f64; the graph expects f32"),
        (lambda: kernels.block(np.asfortranarray(x), w, b), "argument 'x' is not C-contiguous"),
        (lambda: kernels.block(x, w), "missing argument 'b'"),
        (lambda: kernels.block(x[:, :32].copy(), w, b), "argument 'x' has shape [8, 32]: dimension 1 must be 64"),
        (lambda: kernels.block(x, w, b[:95].copy()), "argument 'b' has shape [95]: dimension 0 must be 96"),
        (lambda: kernels.block(x, w[None], b), "argument 'w' has rank 3"),
        (lambda: kernels.scale_rows(x, 1.0, np.zeros((9, 64), np.float32)),
         "argument 'Y' has shape [9, 64]: dimension 0 (R) is 9, but R = 8 from argument 'X'"),
        (lambda: kernels.scale_rows(x, "two"), "argument 's' must be a number"),
        (lambda: kernels.scale_rows([1.0, 2.0], 1.0), "argument 'X' must be a tensor"),
        (lambda: kernels.scale_rows(x, 1.0, Z=x), "scale_rows has no parameter 'Z'"),
        (lambda: kernels.scale_rows(x, 1.0, X=x), "argument 'X' given twice"),
    ]
    for call, message in cases:
        with pytest.raises(tmc.SignatureError) as e:
            call()
        assert message in str(e.value)
    with pytest.raises(AttributeError, match="no kernel or graph 'nope'"):
        kernels.nope


def test_kernel_fault_is_an_exception_with_its_location(tmp_path):
    m = tmc.load(os.path.join(DEPLOY, "divide.tm"))
    x = np.arange(-100, 200, dtype=np.int32)
    np.testing.assert_array_equal(m.divide_by(x, 7), np.trunc(x / 7).astype(np.int32))
    with pytest.raises(tmc.Error, match=r"integer division by zero at .*divide.tm:6:\d+"):
        m.divide_by(x, 0)


def test_build_is_cached_and_follows_imports(tmp_path, rng):
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "twice.tm").write_text(
        "op twice(X: f32[N]) -> f32[N] {\n  out[i] = X[i] * 2.0;\n}\n")
    src = tmp_path / "k.tm"
    src.write_text("import twice;\n"
                   "kernel k(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 64)) block(64) {\n"
                   "  let i = blockIdx.x * 64 + threadIdx.x;\n"
                   "  if (i < N) { Y[i] = X[i] * 2.0; }\n}\n")
    a = tmc.load(str(src), import_dirs=[str(tmp_path / "mods")])
    b = tmc.load(str(src), import_dirs=[str(tmp_path / "mods")])
    assert a.library == b.library  # nothing rebuilt
    x = rng.standard_normal(100).astype(np.float32)
    np.testing.assert_allclose(a.k(x), 2 * x)
    # An edited import is a new build (a new library file, loaded beside the old).
    (tmp_path / "mods" / "twice.tm").write_text(
        "// edited\nop twice(X: f32[N]) -> f32[N] {\n  out[i] = X[i] * 2.0;\n}\n")
    c = tmc.load(str(src), import_dirs=[str(tmp_path / "mods")])
    assert c.library != a.library
    np.testing.assert_allclose(c.k(x), 2 * x)


def test_compile_errors_raise(tmp_path):
    src = tmp_path / "bad.tm"
    src.write_text("kernel k(X: f32[N]) grid(1) block(32) {\n  X[0] = nope;\n}\n")
    with pytest.raises(tmc.Error, match=r"bad.tm:2:\d+: error"):
        tmc.load(str(src))
    with pytest.raises(FileNotFoundError):
        tmc.load(str(tmp_path / "missing.tm"))


def test_run_checked():
    ok = tmc.run_checked(os.path.join(EXAMPLES, "vector_add.tm"), kernel="vector_add", shapes={"N": 1000})
    assert ok.ok
    with pytest.raises(tmc.CheckError, match=r"oob.tm:10:\d+: error: out-of-bounds read of .X."):
        tmc.run_checked(os.path.join(HERE, "Inputs", "oob.tm"), kernel="oob", shapes={"N": 100})


def test_runtime_version():
    assert tmc.runtime_version().count(".") == 2


def test_read_modify_write_tensors_are_inputs(tmp_path, rng):
    # A kernel without an op: the tensors it only writes are its outputs
    # (allocated when not given); one it reads and writes, or updates with
    # atomics, must be passed.
    src = tmp_path / "rmw.tm"
    src.write_text(
        "kernel axpy(X: f32[N], a: f32, Y: f32[N], Z: f32[N]) grid(cdiv(N, 64)) block(64) {\n"
        "  let i = blockIdx.x * 64 + threadIdx.x;\n"
        "  if (i < N) { Y[i] = Y[i] + a * X[i]; Z[i] = X[i]; }\n}\n")
    m = tmc.load(str(src))
    assert [p["name"] for p in m.axpy.outputs] == ["Z"]
    x = rng.standard_normal(100).astype(np.float32)
    y = rng.standard_normal(100).astype(np.float32)
    y0 = y.copy()
    z = m.axpy(x, 2.0, y)
    np.testing.assert_allclose(y, y0 + np.float32(2.0) * x, rtol=1e-6)
    np.testing.assert_array_equal(z, x)
    with pytest.raises(tmc.SignatureError, match="missing argument 'Y'"):
        m.axpy(x, 2.0)


def test_shape_formulas_as_the_runtime_reads_them():
    from tmc import _eval_formula
    assert _eval_formula("((N + 63) / 64)", {"N": 100}) == 2
    assert _eval_formula("(2i64 * i64(N))", {"N": 7}) == 14
    assert _eval_formula("(-7 / 2)", {}) == -3 and _eval_formula("(-7 % 2)", {}) == -1
    assert _eval_formula("max(M, 4) - min(M, 4)", {"M": 9}) == 5
    with pytest.raises(ValueError):
        _eval_formula("N <<", {"N": 1})


def test_scalars_tensors_and_aliasing_are_checked():
    m = tmc.load(os.path.join(DEPLOY, "divide.tm"), kernels="divide_by")  # one name as a string
    x = np.arange(10, dtype=np.int32)
    for value, message in [(2**32 + 3, "argument 'd' is i32: 4294967299 is outside [-2147483648, 2147483647]"),
                           (-2**31 - 1, "is outside"), (x, "argument 'd' must be a number (i32), not ndarray")]:
        with pytest.raises(tmc.SignatureError) as e:
            m.divide_by(x, value)
        assert message in str(e.value)
    np.testing.assert_array_equal(m.divide_by(x, np.int32(3)), x // 3)  # NumPy scalars are numbers
    with pytest.raises(tmc.SignatureError, match="arguments 'X' and 'Y' share memory, and 'Y' is written"):
        m.divide_by(x, 3, x)
    with pytest.raises(tmc.SignatureError, match="share memory"):
        m.divide_by(x[:5], 3, x[3:8])  # overlapping views


def test_defines_reach_only_the_library_kernels(rng):
    # norm.tm's other kernels (and its imports) have other candidates for BC
    # and T: -D applies to the kernel asked for only.
    m = tmc.load(os.path.join(ROOT, "stdlib", "norm.tm"), kernels=["softmax_warp"], defines={"T": "f32", "BC": 128})
    assert "BC=128" in m.softmax_warp.__doc__
    x = rng.standard_normal((9, 100)).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(m.softmax_warp(x), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    with pytest.raises(tmc.Error, match="no compile-time parameter 'XYZ'"):
        tmc.load(os.path.join(ROOT, "stdlib", "norm.tm"), kernels=["softmax_warp"], defines={"XYZ": 1})


def test_empty_batches(kernels):
    # Every output empty: nothing to compute, the (empty) outputs come back.
    y = kernels.scale_rows(np.zeros((0, 40), np.float32), 2.0)
    assert y.shape == (0, 40)
    out = kernels.block(np.zeros((0, 64), np.float32), np.ones((64, 96), np.float32), np.ones(96, np.float32))
    assert out.shape == (0, 96)
    # An empty input with a non-empty output (a matmul over K = 0): refused, clearly.
    mm = tmc.load(os.path.join(EXAMPLES, "matmul_simt.tm"))
    with pytest.raises(tmc.SignatureError, match=r"argument 'A' is empty \(shape \[5, 0\]\), but not every output is"):
        mm.matmul_simt(np.zeros((5, 0), np.float32), np.zeros((0, 7), np.float32))
