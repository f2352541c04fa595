"""Test configuration: make ``tests.*`` helper modules importable (``from tests.ops.harness
import OpSpec``) whatever the rootdir or import mode."""

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
