"""The ``Optimizer`` base class: parameter groups, per-parameter state, state dicts.

Concrete optimizers (SGD, Adam, ...) implement ``step`` with NumPy operations that update
``param._data`` in place under ``no_grad`` and bump the parameter's version counter, so a
graph that saved the old value fails loudly at backward instead of using stale data.
"""

from __future__ import annotations

import collections
import copy
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from .. import _backend as B

__all__ = ["Optimizer", "required"]


class _Required:
    """Marker for a hyper-parameter without a default (PyTorch's ``optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required: Any = _Required()


class Optimizer:
    """Base class of all optimizers (PyTorch's ``torch.optim.Optimizer``).

    Args:
        params: an iterable of Tensors, of ``(name, Tensor)`` pairs (``named_parameters()``;
            the names are kept in ``group['param_names']``), or of dicts defining parameter
            groups (each with a ``'params'`` entry and optional per-group hyper-parameters).
        defaults: the default hyper-parameters, used for groups that do not set them.
    Attributes:
        param_groups (list[dict]): one dict per group; ``'params'`` is a list of Tensors.
        state (dict): per-parameter state (Tensor -> dict), filled lazily by ``step``.
        defaults (dict): the defaults given at construction.
    Raises:
        TypeError: ``params`` is a single Tensor, or contains a non-Tensor or a tensor of a
            non-floating dtype (the message names the parameter's index).
        ValueError: an empty parameter list, a parameter that is not a leaf, a parameter in
            two groups, or a group missing a required hyper-parameter.

    Example:
        >>> import dyngrad
        >>> class PlainSGD(dyngrad.optim.Optimizer):
        ...     def __init__(self, params, lr=0.1):
        ...         super().__init__(params, {"lr": lr})
        ...     @dyngrad.no_grad()
        ...     def step(self, closure=None):
        ...         for group in self.param_groups:
        ...             for p in group["params"]:
        ...                 if p.grad is not None:
        ...                     p.add_(p.grad, alpha=-group["lr"])
        >>> w = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = PlainSGD([w])
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.8000, -1.6000], requires_grad=True)
        >>> len(opt.state_dict()["param_groups"])
        1
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = dict(defaults)
        # a defaultdict, as PyTorch's (optimizers written against torch read self.state[p] first)
        self.state: dict[Tensor, dict[str, Any]] = collections.defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                "but got a Tensor"
            )
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (a dict with ``'params'`` and optional hyper-parameters).

        Raises:
            TypeError: not a dict; a parameter that is not a floating-point Tensor.
            ValueError: a non-leaf parameter; a parameter already in another group; a
                required hyper-parameter left unset.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but got a set")
        else:
            params = list(params)
        names = None
        if params and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in params):
            names = [n for n, _ in params]  # named_parameters() given, as PyTorch 2.x accepts
            params = [p for _, p in params]
        offset = sum(len(g["params"]) for g in self.param_groups)
        for i, p in enumerate(params):
            idx = offset + i
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but parameter {idx} is a {type(p).__name__}")
            if B.kind(p._data) not in "fc":
                raise TypeError(
                    f"optimizer can only optimize Tensors of floating point dtype, but parameter {idx} "
                    f"has dtype {p.dtype}"
                )
            if p.grad_fn is not None:
                raise ValueError(
                    f"can't optimize a non-leaf Tensor: parameter {idx} was produced by {type(p.grad_fn).__name__} "
                    "(optimize the leaf it came from, or .detach().requires_grad_() it)"
                )
        group = dict(param_group)
        group["params"] = params
        if names is not None:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params) or len({id(p) for p in params}) != len(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # ------------------------------------------------------------------ grads
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None (default) or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        p.grad = g.detach()
                        g = p.grad
                    g._data[...] = 0
                    g._vc[0] += 1

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; ``closure`` re-evaluates the model and returns
        the loss (it runs with grad enabled). Returns the closure's loss, or None."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        from ..autograd.grad_mode import no_grad

        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad._data
                    if group.get("maximize", False):
                        g = -g
                    st = self.state.get(p)
                    if st is None:
                        st = {}
                    if g.shape != p._data.shape:
                        raise RuntimeError(_resized_message(p, "its .grad", g.shape))
                    try:
                        self._update(p, g, group, st)
                    except ValueError as e:  # a state buffer of another shape: .data was replaced
                        if "broadcast" not in str(e):
                            raise
                        shapes = [tuple(t._data.shape) for t in st.values() if isinstance(t, Tensor) and t._data.ndim]
                        bad = next((sh for sh in shapes if sh != p._data.shape), None)
                        if bad is None:
                            raise
                        raise RuntimeError(_resized_message(p, f"its {type(self).__name__} state", bad)) from None
                    if st:  # no entry for stateless updates (plain SGD), as in PyTorch
                        self.state[p] = st
                    p._vc[0] += 1
        return loss

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _update (or step)")

    # ------------------------------------------------------------------ state dicts
    def state_dict(self) -> dict[str, Any]:
        """PyTorch's layout: ``{'state': {index: {...}}, 'param_groups': [{..., 'params':
        [indices]}]}``; indices count parameters across groups in order."""
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a dict made by :meth:`state_dict` (tensors are copied, cast to each
        parameter's dtype).

        Raises:
            ValueError: a different number of groups or of parameters in a group.
        """
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError(
                f"loaded state dict has {len(saved)} parameter groups, the optimizer has {len(self.param_groups)}"
            )
        for i, (g, s) in enumerate(zip(self.param_groups, saved)):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group (group {i}) with {len(s['params'])} "
                    f"parameters that doesn't match the size of optimizer's group ({len(g['params'])})"
                )
        id_map = {sid: p for g, s in zip(self.param_groups, saved) for sid, p in zip(s["params"], g["params"])}
        self.state = collections.defaultdict(dict)
        for k, st in state_dict["state"].items():
            p = id_map.get(int(k))
            if p is None:
                continue
            new: dict[str, Any] = {}
            for name, v in st.items():
                if isinstance(v, Tensor):
                    arr = v._data.copy()
                    if name != "step" and B.kind(arr) == "f":
                        arr = arr.astype(p._data.dtype)
                    new[name] = Tensor._make(arr)
                else:
                    new[name] = copy.deepcopy(v)
            self.state[p] = new
        for g, s in zip(self.param_groups, saved):
            for k, v in s.items():
                if k != "params":
                    g[k] = copy.deepcopy(v)

    def __getstate__(self) -> dict[str, Any]:
        # A scheduler wraps this instance's ``step`` (to see whether it was called); the
        # wrapper holds a weak reference to *this* optimizer, so a copy or pickle drops it.
        d = dict(self.__dict__)
        if hasattr(d.get("step"), "_wrapped_by_lr_sched"):
            del d["step"]
        return d

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _resized_message(p: Tensor, what: str, shape: tuple) -> str:
    """A parameter whose shape changed (``p.data = p.data[:, :5]``) while ``what`` kept the
    old one: PyTorch's broadcast message, then the way out."""
    from ..autograd.function import size_mismatch

    pair = (tuple(shape), tuple(p._data.shape)) if "state" in what else (tuple(p._data.shape), tuple(shape))
    msg = size_mismatch(*pair) or (
        f"output with shape {list(p._data.shape)} doesn't match the broadcast shape {list(shape)}"
    )
    return (
        f"{msg}: a parameter of shape {list(p._data.shape)} has {what} of shape {list(shape)} "
        "(was its .data replaced?); set .grad to None (zero_grad()) and drop its state "
        "(`del optimizer.state[p]`, or make a new optimizer) after changing a parameter's shape"
    )


def _buf(state: dict[str, Any], name: str, like: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """The state array ``name`` (a Tensor in ``state``), created as ``fill`` like ``like``."""
    t = state.get(name)
    if t is None:
        t = Tensor._make(np.full_like(like, fill))
        state[name] = t
    return t._data


def _lerp_(a: np.ndarray, b: np.ndarray, w: float) -> None:
    """``a = a + w * (b - a)`` in place, with PyTorch's lerp formula (exact same rounding)."""
    if w < 0.5:
        a += w * (b - a)
    else:
        a[...] = b - (b - a) * (1 - w)


def _check_hparams(**kw: float) -> None:
    for name, v in kw.items():
        if not v >= 0.0:
            raise ValueError(f"Invalid {name} value: {v}")


def _scalar_dtype() -> np.dtype:
    """PyTorch's ``_get_scalar_dtype``: float64 when the default dtype is, else float32 (the
    dtype of scalar state such as ``step``, NAdam's ``mu_product``, ASGD's ``eta``/``mu``)."""
    from .._backend import get_default_dtype, to_np_dtype

    return np.dtype(np.float64) if to_np_dtype(get_default_dtype()) == np.float64 else np.dtype(np.float32)


def _scalar(state: dict[str, Any], name: str, init: float) -> np.ndarray:
    """The 0-d scalar state array ``name`` (a Tensor in ``state``), created as ``init``."""
    t = state.get(name)
    if t is None:
        t = state[name] = Tensor._make(np.array(init, dtype=_scalar_dtype()))
    return t._data


def _next_step(state: dict[str, Any]) -> float:
    """Increment ``state['step']`` (created as 0) and return its new value as a float."""
    s = _scalar(state, "step", 0.0)
    s[...] += 1
    return float(s)


def _check_betas(betas: tuple[float, float]) -> None:
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


def _check_common(lr: float, eps: float | None = None, weight_decay: float = 0.0) -> None:
    """PyTorch's checks and messages for lr, eps and weight_decay."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
