"""``torch.nn.modules`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401 - re-exported
    CELU,
    ELU,
    GELU,
    GLU,
    GRU,
    LSTM,
    RNN,
    SELU,
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AlphaDropout,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    BCELoss,
    BCEWithLogitsLoss,
    Bilinear,
    ChannelShuffle,
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    CosineEmbeddingLoss,
    CosineSimilarity,
    CrossEntropyLoss,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    Embedding,
    FeatureAlphaDropout,
    Flatten,
    Fold,
    GaussianNLLLoss,
    GroupNorm,
    GRUCell,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    HingeEmbeddingLoss,
    HuberLoss,
    Identity,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    KLDivLoss,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LocalResponseNorm,
    LogSigmoid,
    LogSoftmax,
    LPPool1d,
    LPPool2d,
    LSTMCell,
    MarginRankingLoss,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    Mish,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    MultiheadAttention,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PairwiseDistance,
    PixelShuffle,
    PixelUnshuffle,
    PoissonNLLLoss,
    PReLU,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReLU,
    ReLU6,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    RMSNorm,
    RNNBase,
    RNNCell,
    RNNCellBase,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    SoftMarginLoss,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
    TripletMarginLoss,
    Unflatten,
    Unfold,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)

# the submodules, reachable as attributes as in PyTorch (nn.modules.conv._ConvNd)
from . import (
    activation,  # noqa: E402,F401
    batchnorm,  # noqa: E402,F401
    channelshuffle,  # noqa: E402,F401
    container,  # noqa: E402,F401
    conv,  # noqa: E402,F401
    distance,  # noqa: E402,F401
    dropout,  # noqa: E402,F401
    flatten,  # noqa: E402,F401
    fold,  # noqa: E402,F401
    instancenorm,  # noqa: E402,F401
    linear,  # noqa: E402,F401
    loss,  # noqa: E402,F401
    module,  # noqa: E402,F401
    normalization,  # noqa: E402,F401
    padding,  # noqa: E402,F401
    pixelshuffle,  # noqa: E402,F401
    pooling,  # noqa: E402,F401
    rnn,  # noqa: E402,F401
    sparse,  # noqa: E402,F401
    transformer,  # noqa: E402,F401
    upsampling,  # noqa: E402,F401
    utils,  # noqa: E402,F401
)

__all__ = ['AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d', 'AlphaDropout', 'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'BCELoss', 'BCEWithLogitsLoss', 'BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'Bilinear', 'CELU', 'ChannelShuffle', 'CircularPad1d', 'CircularPad2d', 'CircularPad3d', 'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d', 'CosineEmbeddingLoss', 'CosineSimilarity', 'CrossEntropyLoss', 'Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'ELU', 'Embedding', 'FeatureAlphaDropout', 'Flatten', 'Fold', 'GELU', 'GLU', 'GRU', 'GRUCell', 'GaussianNLLLoss', 'GroupNorm', 'Hardsigmoid', 'Hardswish', 'Hardtanh', 'HingeEmbeddingLoss', 'HuberLoss', 'Identity', 'InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d', 'KLDivLoss', 'L1Loss', 'LPPool1d', 'LPPool2d', 'LSTM', 'LSTMCell', 'LayerNorm', 'LeakyReLU', 'Linear', 'LocalResponseNorm', 'LogSigmoid', 'LogSoftmax', 'MSELoss', 'MarginRankingLoss', 'MaxPool1d', 'MaxPool2d', 'MaxPool3d', 'Mish', 'Module', 'ModuleDict', 'ModuleList', 'MultiLabelMarginLoss', 'MultiLabelSoftMarginLoss', 'MultiMarginLoss', 'MultiheadAttention', 'NLLLoss', 'PReLU', 'PairwiseDistance', 'PixelShuffle', 'PixelUnshuffle', 'PoissonNLLLoss', 'RMSNorm', 'RNN', 'RNNBase', 'RNNCell', 'RNNCellBase', 'ReLU', 'ReLU6', 'ReflectionPad1d', 'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d', 'ReplicationPad3d', 'SELU', 'Sequential', 'SiLU', 'Sigmoid', 'SmoothL1Loss', 'SoftMarginLoss', 'Softmax', 'Softmax2d', 'Softmin', 'Softplus', 'Softsign', 'Tanh', 'Tanhshrink', 'Threshold', 'Transformer', 'TransformerDecoder', 'TransformerDecoderLayer', 'TransformerEncoder', 'TransformerEncoderLayer', 'TripletMarginLoss', 'Unflatten', 'Unfold', 'Upsample', 'UpsamplingBilinear2d', 'UpsamplingNearest2d', 'ZeroPad1d', 'ZeroPad2d', 'ZeroPad3d']
