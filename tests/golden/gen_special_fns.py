"""Generate tests/golden/special_fns.npz: PyTorch 2.13 outputs and input gradients for every
entry in tests/op_db/special_fns.py (inputs are stored alongside, so tests never need torch).

Run from the repository root with torch installed::

    python tests/golden/gen_special_fns.py
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import torch  # noqa: E402
from tests.op_db import special_fns  # noqa: E402, I001
from tests.ops.harness import generate_golden  # noqa: E402

if __name__ == "__main__":
    assert torch.__version__.startswith("2.13"), f"golden values come from torch 2.13, found {torch.__version__}"
    torch.set_num_threads(1)
    path = special_fns.GOLDEN_PATH
    generate_golden(special_fns.SPECS, path)
    print(f"wrote {os.path.abspath(path)} ({os.path.getsize(path)} bytes, {len(special_fns.SPECS)} specs)")
