"""tmc kernels and graphs as PyTorch operators.

    m = tmc.load("kernels.tm")
    tmc.torch.register(m, namespace="mylib")
    y = torch.ops.mylib.mlp(x, w, b)

Each kernel and graph becomes `torch.ops.NAMESPACE.NAME`, a functional
operator (inputs in, outputs out, allocated on the inputs' device) with a
CPU implementation (the CPU executor), a CUDA one (the GPU, on the current
stream) and a shape function (Meta / fake tensors), so that it works inside
models, under tracing and, where the installed PyTorch has it, under
torch.compile.
"""

import re
import warnings

import torch as _torch

_SCALAR = {"bool": "bool", "f16": "float", "bf16": "float", "f32": "float", "f64": "float"}
_namespaces = {}  # namespace -> its torch.library.Library (which must outlive the operators)


def _schema(f):
    args = []
    for p in f.inputs:
        if p["kind"] == "tensor":
            args.append("Tensor " + p["name"])
        else:
            args.append("%s %s" % (_SCALAR.get(p["dtype"], "int"), p["name"]))
    outs = ["Tensor"] * len(f.outputs)
    ret = outs[0] if len(outs) == 1 else "(%s)" % ", ".join(outs) if outs else "()"
    return "%s(%s) -> %s" % (f.name, ", ".join(args), ret)


def _shape_function(f):
    from . import _TORCH

    def fake(*args):
        symbols, device = {}, None
        for p, a in zip(f.inputs, args):
            if p["kind"] == "tensor":
                device = device or a.device
                for d, n in zip(p["shape"], a.shape):
                    if d.isidentifier():
                        symbols.setdefault(d, n)
            elif p["dtype"] not in _SCALAR:
                symbols.setdefault(p["name"], int(a))
        outs = [_torch.empty(f.output_shape(p, symbols), dtype=getattr(_torch, _TORCH[p["dtype"]]), device=device)
                for p in f.outputs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    return fake


def register(module, namespace, names=None):
    """Registers the kernels and graphs of `module` (all, or `names`) as
    torch.ops.NAMESPACE.NAME; returns the names registered. A kernel
    without outputs cannot be a functional operator and is refused."""
    from . import SignatureError, _TORCH
    chosen = names or sorted(module.functions)
    # Everything is checked before the first operator is defined.
    for name in chosen:
        if name not in module.functions:
            raise SignatureError("tmc.torch.register: the module has no kernel or graph '%s'" % name)
        f = module.functions[name]
        if not f.outputs:
            raise SignatureError("tmc.torch.register: '%s' has no output tensor to return" % name)
        inputs_bind = {d for p in f.inputs if p["kind"] == "tensor" for d in p["shape"] if d.isidentifier()}
        inputs_bind |= {p["name"] for p in f.inputs if p["kind"] == "scalar"}
        for p in f.outputs:
            if p["dtype"] not in _TORCH:
                raise SignatureError("tmc.torch.register: output '%s' of '%s' is %s, which PyTorch has no type for" %
                                     (p["name"], name, p["dtype"]))
            free = sorted({w for d in p["shape"] for w in re.findall(r"[A-Za-z_]\w*", d)
                           if w not in ("min", "max") and not re.fullmatch(r"[iu]\d+", w)} - inputs_bind)
            if free:
                raise SignatureError("tmc.torch.register: the shape of output '%s' of '%s' ([%s]) depends on %s, which no "
                                     "input gives: a functional operator cannot allocate it" %
                                     (p["name"], name, ", ".join(p["shape"]), ", ".join(free)))
    # Several modules (or calls) may add to one namespace: a FRAGMENT
    # library where PyTorch has them (2.0 and later), else the one DEF
    # library this package made for the namespace.
    lib = _namespaces.get(namespace)
    if lib is None:
        try:
            lib = _torch.library.Library(namespace, "FRAGMENT")
        except ValueError:
            lib = _torch.library.Library(namespace, "DEF")
        _namespaces[namespace] = lib
    done = []
    for name in chosen:
        f = module.functions[name]
        lib.define(_schema(f))

        def run(*args, _f=f, _name="%s.%s" % (namespace, name)):
            if _torch.is_grad_enabled() and any(isinstance(a, _torch.Tensor) and a.requires_grad for a in args):
                warnings.warn("torch.ops.%s has no gradient: its outputs are not connected to the autograd graph" % _name,
                              stacklevel=2)
            return _f(*args)

        lib.impl(name, run, "CPU")
        lib.impl(name, run, "CUDA")
        qualified = "%s::%s" % (namespace, name)
        if hasattr(_torch.library, "register_fake"):
            _torch.library.register_fake(qualified)(_shape_function(f))
        elif hasattr(_torch.library, "impl_abstract"):
            _torch.library.impl_abstract(qualified)(_shape_function(f))
        else:
            # PyTorch 1.x: a Meta kernel, also for meta tensors that go
            # through autograd's dispatch key first.
            lib.impl(name, _shape_function(f), "Meta")
            lib.impl(name, _shape_function(f), "AutogradMeta")
        done.append(name)
    return done
