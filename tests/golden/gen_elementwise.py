"""Generate tests/golden/elementwise.npz and tests/golden/activation.npz: PyTorch 2.13 outputs
and input gradients for every entry in tests/op_db/elementwise.py and
tests/op_db/activation.py (inputs are stored alongside, so tests never need torch).

Run from the repository root with torch installed::

    python tests/golden/gen_elementwise.py
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import torch  # noqa: E402
from tests.op_db import activation, elementwise  # noqa: E402, I001
from tests.ops.harness import generate_golden  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    assert torch.__version__.startswith("2.13"), f"golden values come from torch 2.13, found {torch.__version__}"
    torch.set_num_threads(1)
    for mod, name in ((elementwise, "elementwise"), (activation, "activation")):
        path = os.path.join(HERE, f"{name}.npz")
        generate_golden(mod.SPECS, path)
        print(f"wrote {path} ({os.path.getsize(path)} bytes, {len(mod.SPECS)} specs)")
