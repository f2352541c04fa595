"""The fused LSTM step (``nn.LSTM``/``nn.LSTMCell``): the gates of one step in one
Function, forward and backward side by side.

Composed of ops, one LSTM step records about 10 nodes (chunk, three sigmoids, two tanhs,
three products, a sum); fused it records one (``benchmarks/lstm_step.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd._context import context
from ..tensor import Tensor
from ._bases import Op
from ._batching import pointwise
from ._util import binary_operands, wrap
from .elementwise import sigmoid, tanh
from .splitting import cat

__all__ = ["lstm_gates"]


def _sig(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)  # = 1 / (1 + exp(-x)), without overflow


class LSTMGates(Op):
    """``h, c' = lstm_gates(xw, hw, c)``: one LSTM step from its pre-activations.

    Shapes: ``xw (*, 4H)``, ``hw (*, 4H)``, ``c (*, H)`` (leading dims broadcast) ->
    ``h (*, H)``, ``c' (*, H)``. With ``a = xw + hw`` and ``i, f, g, o`` its four chunks
    (PyTorch's gate order)::

        i, f, o = sigmoid(a_i), sigmoid(a_f), sigmoid(a_o);  g = tanh(a_g)
        c' = f c + i g;  h = o tanh(c')

    Backward (chain rule; ``s' = s (1 - s)`` for a sigmoid, ``1 - t^2`` for a tanh), with
    ``gc = grad_c' + grad_h o (1 - tanh(c')^2)``::

        grad_a = cat(gc g i (1 - i), gc c f (1 - f), gc i (1 - g^2), grad_h tanh(c') o (1 - o))
        grad_xw = grad_hw = grad_a;  grad_c = gc f

    First-order backward on the saved gate values in NumPy; when the backward is itself
    recorded (``create_graph``) or a transform is active, the same formulas in ops on the
    gates recomputed from the inputs, so every derivative order is exact.
    """

    vmap = staticmethod(pointwise)  # leading dims broadcast: batch dims to the front

    @staticmethod
    def forward(ctx: Any, xw: Tensor, hw: Tensor, c: Tensor) -> tuple:
        a, cd, rt = binary_operands(xw, c)
        a = a + hw._data
        H = cd.shape[-1]
        if a.shape[-1] != 4 * H:
            raise RuntimeError(
                f"lstm_gates: the gates' last dim must be 4 * hidden ({4 * H}), got {a.shape[-1]}"
            )
        i, f, o = _sig(a[..., :H]), _sig(a[..., H:2 * H]), _sig(a[..., 3 * H:])
        g = np.tanh(a[..., 2 * H:3 * H])
        c2 = f * cd + i * g
        tc = np.tanh(c2)
        h = o * tc
        ctx.save_for_backward(xw, hw, c)
        ctx.gates = (i, f, g, o, tc)
        return wrap(h.astype(rt, copy=False)), wrap(c2.astype(rt, copy=False))

    @staticmethod
    def backward(ctx: Any, gh: Tensor, gc2: Tensor) -> tuple:
        xw, hw, c = ctx.saved_tensors
        if not context.enabled and not context.interpreters:  # first order: NumPy
            i, f, g, o, tc = ctx.gates
            ghd, cd = gh._data, c._data
            gc = gc2._data + ghd * o * (1.0 - tc * tc)
            ga = np.concatenate(
                [gc * g * i * (1.0 - i), gc * cd * f * (1.0 - f), gc * i * (1.0 - g * g), ghd * tc * o * (1.0 - o)],
                axis=-1,
            ).astype(xw._data.dtype, copy=False)
            gat = wrap(ga)
            return gat, gat, wrap((gc * f).astype(c._data.dtype, copy=False))
        H = c.shape[-1]
        a = xw + hw
        i, f, o = sigmoid(a[..., :H]), sigmoid(a[..., H:2 * H]), sigmoid(a[..., 3 * H:])
        g = tanh(a[..., 2 * H:3 * H])
        tc = tanh(f * c + i * g)
        gc = gc2 + gh * o * (1 - tc * tc)
        ga = cat([gc * g * i * (1 - i), gc * c * f * (1 - f), gc * i * (1 - g * g), gh * tc * o * (1 - o)], -1)
        return ga, ga, gc * f

    # hand-written: nonlinear in all three inputs (neither elementwise in one nor linear)
    @staticmethod
    def jvp(ctx: Any, txw: Any, thw: Any, tcin: Any) -> tuple:
        """Forward mode: ``ta = txw + thw``; ``tc' = f' c + f tc + i' g + i g'``,
        ``th = o' tanh(c') + o (1 - tanh(c')^2) tc'`` with ``i' = i (1 - i) ta_i`` etc."""
        xw, hw, c = ctx._fwd_inputs[:3]
        H = c.shape[-1]
        a = xw + hw
        i, f, o = sigmoid(a[..., :H]), sigmoid(a[..., H:2 * H]), sigmoid(a[..., 3 * H:])
        g = tanh(a[..., 2 * H:3 * H])
        c2 = f * c + i * g
        tc2 = tanh(c2)
        zero = a * 0
        ta = (txw if txw is not None else zero) + (thw if thw is not None else zero)
        ti, tf = i * (1 - i) * ta[..., :H], f * (1 - f) * ta[..., H:2 * H]
        tg, to = (1 - g * g) * ta[..., 2 * H:3 * H], o * (1 - o) * ta[..., 3 * H:]
        tcn = tf * c + ti * g + i * tg
        if tcin is not None:
            tcn = tcn + f * tcin
        return to * tc2 + o * (1 - tc2 * tc2) * tcn, tcn


def lstm_gates(xw: Tensor, hw: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
    """One LSTM step from its pre-activations: ``(h, c')`` (see :class:`LSTMGates`).

    Args:
        xw (Tensor): ``(*, 4H)``, ``x W_ih^T + b_ih``.
        hw (Tensor): ``(*, 4H)``, ``h W_hh^T + b_hh``.
        c (Tensor): ``(*, H)``, the cell state.

    Returns:
        (Tensor, Tensor): ``h`` and ``c'``, each ``(*, H)``.

    Raises:
        RuntimeError: a gates' last dim that is not ``4 * H``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.ops.recurrent import lstm_gates
        >>> h, c = lstm_gates(dyngrad.zeros(2, 8), dyngrad.zeros(2, 8), dyngrad.ones(2, 2))
        >>> c
        tensor([[0.5000, 0.5000],
                [0.5000, 0.5000]])
    """
    return LSTMGates.apply(xw, hw, c)
