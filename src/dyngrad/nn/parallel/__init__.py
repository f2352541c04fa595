"""dyngrad.nn.parallel: PyTorch's ``torch.nn.parallel`` names: ``DataParallel`` (one process,
the whole batch: there are no devices to scatter to) and ``DistributedDataParallel`` (one
process per rank on dyngrad.distributed; docs/distributed.md)."""

from ..container import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
