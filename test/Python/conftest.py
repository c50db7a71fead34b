# Shared fixtures of the Python package's tests (run by python_package.test
# with Debian's python3, NumPy, pytest and PyTorch).
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEPLOY = os.path.join(ROOT, "test", "Deploy", "Inputs")
EXAMPLES = os.path.join(ROOT, "examples")


@pytest.fixture(scope="session")
def kernels():
    """test/Deploy/Inputs/kernels.tm: a kernel with a scalar (its op
    imported from mods/) and a graph fused into a matmul."""
    import tmc
    return tmc.load(os.path.join(DEPLOY, "kernels.tm"), import_dirs=[os.path.join(DEPLOY, "mods")])


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(11)
