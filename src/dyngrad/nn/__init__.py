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
