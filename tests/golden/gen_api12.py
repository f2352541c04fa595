"""Regenerate tests/golden/api12.npz from PyTorch (needs torch):
``/tmp/venv/bin/python tests/golden/gen_api12.py``."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tests.ops.harness import generate_golden  # noqa: E402
from tests.op_db.api12 import GOLDEN, SPECS  # noqa: E402

if __name__ == "__main__":
    generate_golden(SPECS, GOLDEN)
    print(f"wrote {os.path.normpath(GOLDEN)} ({os.path.getsize(GOLDEN)} bytes)")
