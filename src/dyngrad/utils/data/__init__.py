"""Datasets, samplers and the DataLoader (PyTorch's ``torch.utils.data``), with worker
processes for ``num_workers > 0``. See docs/data.md.

Layout: ``dataset`` (datasets and their wrappers), ``sampler`` (index orders),
``distributed`` (DistributedSampler), ``collate`` (default_collate/default_convert),
``dataloader`` (DataLoader: arguments and rules), ``_iterators`` (its in-process and
multi-process iterators), ``_worker`` (the worker process: seeding, fetching, the pickling
of batches, errors).
"""

from ._worker import WorkerInfo, get_worker_info
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
    "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
    "WeightedRandomSampler", "BatchSampler", "DistributedSampler", "default_collate", "default_convert",
    "DataLoader", "get_worker_info", "WorkerInfo",
]
