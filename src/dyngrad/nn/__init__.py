"""dyngrad.nn: modules, layers, losses, init and the functional namespace (PyTorch's
``torch.nn``)."""

from . import functional, init, utils
from .activation import *  # noqa: F403
from .activation import __all__ as _act_all
from .attention import MultiheadAttention
from .container import DataParallel, ModuleDict, ModuleList, Sequential
from .conv_layers import *  # noqa: F403
from .conv_layers import __all__ as _conv_all
from .fold_pool import *  # noqa: F403
from .fold_pool import __all__ as _fold_pool_all
from .layers import *  # noqa: F403
from .layers import __all__ as _layers_all
from .loss import *  # noqa: F403
from .loss import __all__ as _loss_all
from .loss_extra import *  # noqa: F403
from .loss_extra import __all__ as _loss_extra_all
from .module import Module
from .norm import *  # noqa: F403
from .norm import __all__ as _norm_all
from .norm_instance import *  # noqa: F403
from .norm_instance import __all__ as _norm_instance_all
from .padding import *  # noqa: F403
from .padding import __all__ as _padding_all
from .parameter import Buffer, Parameter
from .resampling import PixelShuffle, PixelUnshuffle, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = (
    ["functional", "init", "utils", "Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict", "DataParallel",
     "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
     "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
     "TransformerDecoderLayer", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
     "PixelUnshuffle"]
    + list(_act_all)
    + list(_conv_all)
    + list(_layers_all)
    + list(_loss_all)
    + list(_norm_all)
    + list(_norm_instance_all)
    + list(_padding_all)
    + list(_fold_pool_all)
    + list(_loss_extra_all)
)


def __getattr__(name: str) -> object:
    # nn.parallel (DistributedDataParallel, on dyngrad.distributed) is imported on first use,
    # so that `import dyngrad` does not pay for the distributed package
    if name == "parallel":
        import importlib

        return importlib.import_module(".parallel", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
def _accept_factory_device() -> None:
    """Built-in layers that take ``device=`` (PyTorch's factory keyword): ``"cpu"`` (or None)
    builds them as before, ``"meta"`` builds shape-only parameters and buffers (as
    ``module.to("meta")``, with the random stream left as it was: PyTorch's meta
    initialisation draws nothing), anything else raises as the creation functions do."""
    import functools
    import inspect
    from typing import Any

    from .._tensor.metadata import check_device, is_meta_device
    from ..creation import get_rng_state, set_rng_state

    def wrap_init(cls: type) -> None:
        init = cls.__init__

        @functools.wraps(init)
        def __init__(self: Module, *args: Any, **kwargs: Any) -> None:
            device = kwargs.get("device")
            if device is None or (not is_meta_device(device) and str(device).split(":")[0] == "cpu"):
                return init(self, *args, **kwargs)
            if not is_meta_device(device):
                check_device(device)
            kwargs["device"] = None
            state = get_rng_state()
            try:
                init(self, *args, **kwargs)
            finally:
                set_rng_state(state)
            self.to("meta")

        cls.__init__ = __init__

    todo, seen = [Module], set()
    while todo:  # every built-in Module class (dyngrad.nn.*) whose own __init__ takes device=
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
        if cls.__module__.startswith(__name__ + ".") and "__init__" in cls.__dict__:
            try:
                params = inspect.signature(cls.__dict__["__init__"]).parameters
            except (TypeError, ValueError):  # pragma: no cover
                continue
            if "device" in params:
                wrap_init(cls)


_accept_factory_device()
from . import modules  # noqa: E402,F401 - PyTorch's module paths (torch.nn.modules.conv ...)
