"""PyTorch's module paths work with ``dyngrad.`` in front (``from torch.nn.modules.module import
Module`` -> ``from dyngrad.nn.modules.module import Module``): the imports found most often in
public PyTorch code, each giving the same object as the top-level name.
tests/oracle/test_module_paths_oracle.py checks each path exists in PyTorch 2.13."""

from __future__ import annotations

import importlib

import pytest

import dyngrad

# (module path after "dyngrad.", names imported from it, where the same object lives in dyngrad)
PATHS = [
    ("nn.modules.module", ["Module"], "nn"),
    ("nn.modules", ["Module", "Linear", "Conv2d", "BatchNorm2d", "Sequential"], "nn"),
    ("nn.modules.linear", ["Linear", "Identity", "Bilinear"], "nn"),
    ("nn.modules.conv", ["Conv1d", "Conv2d", "ConvTranspose2d", "_ConvNd"], "nn"),
    ("nn.modules.loss", ["MSELoss", "CrossEntropyLoss", "_Loss", "_WeightedLoss"], "nn"),
    ("nn.modules.activation", ["ReLU", "GELU", "MultiheadAttention"], "nn"),
    ("nn.modules.batchnorm", ["BatchNorm1d", "BatchNorm2d", "_BatchNorm"], "nn"),
    ("nn.modules.container", ["Sequential", "ModuleList", "ModuleDict"], "nn"),
    ("nn.modules.dropout", ["Dropout"], "nn"),
    ("nn.modules.normalization", ["LayerNorm", "GroupNorm"], "nn"),
    ("nn.modules.pooling", ["MaxPool1d", "MaxPool2d", "AvgPool2d"], "nn"),
    ("nn.modules.rnn", ["LSTM", "GRU", "RNNBase"], "nn"),
    ("nn.modules.sparse", ["Embedding"], "nn"),
    ("nn.modules.transformer", ["TransformerEncoderLayer", "Transformer"], "nn"),
    ("nn.modules.instancenorm", ["InstanceNorm2d", "_InstanceNorm"], "nn"),
    ("nn.modules.flatten", ["Flatten", "Unflatten"], "nn"),
    ("nn.modules.padding", ["ZeroPad2d", "ReflectionPad2d"], "nn"),
    ("nn.modules.upsampling", ["Upsample"], "nn"),
    ("nn.modules.pixelshuffle", ["PixelShuffle"], "nn"),
    ("nn.modules.distance", ["CosineSimilarity"], "nn"),
    ("nn.modules.fold", ["Fold", "Unfold"], "nn"),
    ("nn.parameter", ["Parameter"], "nn"),
    ("nn.utils.clip_grad", ["clip_grad_norm_", "clip_grad_value_"], "nn.utils"),
    ("nn.utils.weight_norm", ["weight_norm", "remove_weight_norm"], "nn.utils"),
    ("nn.utils.spectral_norm", ["spectral_norm"], "nn.utils"),
    ("nn.utils.stateless", ["functional_call"], "func"),
    ("nn.utils.rnn", ["pad_sequence", "pack_padded_sequence", "pad_packed_sequence"], "nn.utils.rnn"),
    ("autograd.function", ["Function", "once_differentiable"], "autograd.function"),
    ("autograd.variable", ["Variable"], "autograd"),
    ("optim.adamw", ["AdamW"], "optim"),
    ("optim.lr_scheduler", ["_LRScheduler", "LambdaLR", "StepLR"], "optim.lr_scheduler"),
    ("optim.optimizer", ["Optimizer"], "optim"),
    ("utils.data", ["DataLoader", "Dataset", "TensorDataset"], "utils.data"),
    ("utils.data.dataloader", ["default_collate", "DataLoader"], "utils.data"),
    ("utils.data.dataset", ["Dataset", "IterableDataset", "Subset"], "utils.data"),
    ("utils.data.sampler", ["WeightedRandomSampler", "RandomSampler"], "utils.data"),
    ("utils.data.distributed", ["DistributedSampler"], "utils.data"),
    ("utils.hooks", ["RemovableHandle"], "autograd.graph"),
    ("random", ["manual_seed", "get_rng_state", "initial_seed"], ""),
    ("types", ["Number", "Device"], "types"),
    ("backends.cudnn", [], "backends"),
]


@pytest.mark.parametrize("path,names,home", PATHS, ids=[p[0] for p in PATHS])
def test_pytorchs_module_path_imports(path, names, home) -> None:
    mod = importlib.import_module(f"dyngrad.{path}")
    where = importlib.import_module("dyngrad" + ("." + home if home else ""))
    for n in names:
        assert getattr(mod, n) is getattr(where, n, getattr(mod, n)), f"dyngrad.{path}.{n}"


def test_submodules_are_attributes_as_in_pytorch() -> None:
    assert isinstance(dyngrad.nn.Conv2d(1, 1, 1), dyngrad.nn.modules.conv._ConvNd)
    assert isinstance(dyngrad.nn.BatchNorm2d(2), dyngrad.nn.modules.batchnorm._BatchNorm)
    import dyngrad.backends.cudnn as cudnn

    assert cudnn is dyngrad.backends.cudnn and isinstance(cudnn.benchmark, bool)
    assert dyngrad.random.manual_seed is dyngrad.manual_seed


def test_module_utils_helpers_as_pytorch() -> None:
    from collections import OrderedDict

    from dyngrad.nn.modules.transformer import _get_activation_fn
    from dyngrad.nn.modules.utils import (
        _pair,
        _quadruple,
        _single,
        _triple,
        consume_prefix_in_state_dict_if_present,
    )

    assert _pair(3) == (3, 3) and _pair((1, 2)) == (1, 2) and _single(2) == (2,) and _triple(1) == (1, 1, 1)
    assert _quadruple(0) == (0, 0, 0, 0)
    sd = OrderedDict([("module.w", 1), ("b", 2)])
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert list(sd) == ["b", "w"]  # PyTorch 2.13's order
    assert _get_activation_fn("relu") is dyngrad.nn.functional.relu
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        _get_activation_fn("tanh")
