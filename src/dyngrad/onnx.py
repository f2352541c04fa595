"""``torch.onnx``: importable, so scripts that ``import torch.onnx`` for an optional export
run; dyngrad has no graph exporter, so :func:`export` raises.

Example:
    >>> import dyngrad.onnx
    >>> dyngrad.onnx.is_in_onnx_export()
    False
"""

from __future__ import annotations

from typing import Any

__all__ = ["export", "is_in_onnx_export"]


def export(model: Any, args: Any = (), f: Any = None, *rest: Any, **kwargs: Any) -> None:
    """PyTorch's ONNX export; not available in dyngrad (it records no static graph to export).

    Not differentiable (no tensors are computed).

    Args:
        model (Module or callable): what PyTorch would export.
        args (tuple): example inputs, shapes as ``model`` takes them.
        f (str or file): where PyTorch would write the ``.onnx`` file.
        *rest: PyTorch's other positional arguments (ignored).
        **kwargs: PyTorch's keyword arguments (ignored).
    Returns:
        None: it never returns.
    Raises:
        NotImplementedError: always, naming the model's class; nothing is written.

    Example:
        >>> import dyngrad
        >>> try:
        ...     dyngrad.onnx.export(dyngrad.nn.Linear(2, 1), (dyngrad.ones(1, 2),), "m.onnx")
        ... except NotImplementedError as e:
        ...     print(str(e)[:44])
        dyngrad.onnx.export: dyngrad cannot export
    """
    raise NotImplementedError(
        f"dyngrad.onnx.export: dyngrad cannot export {type(model).__name__} to ONNX (it records no static graph); "
        "save the weights with dyngrad.save(model.state_dict(), path) or safetensors instead")


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is running: always False in dyngrad.

    Args:
        None.
    Returns:
        bool: ``False``.
    Raises:
        Nothing.

    Example:
        >>> import dyngrad.onnx
        >>> dyngrad.onnx.is_in_onnx_export()
        False
    """
    return False
