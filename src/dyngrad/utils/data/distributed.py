"""DistributedSampler (PyTorch's ``torch.utils.data.distributed``): each of ``num_replicas``
processes reads its own share of the dataset.

With ``shuffle=True`` the order is PyTorch's own: a Generator seeded ``seed + epoch`` drawing
``torch.randperm``, which is a Fisher-Yates shuffle over MT19937 (``z = mt() % (n - i)``,
swap ``i`` and ``i + z``). NumPy's legacy MT19937 seeded with the same 32-bit value gives
the same stream, so the index sets equal PyTorch's bit for bit (tests/oracle) and a job may
mix dyngrad and PyTorch ranks. This sampler owns its generator; a dyngrad Generator (PCG64)
is not involved.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def torch_randperm(n: int, seed: int) -> list[int]:
    """``torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()``,
    computed without PyTorch (valid for ``n < 2**32 / 20``, PyTorch's small-n branch).

    PyTorch seeds MT19937 with the low 32 bits of ``seed`` (``init_genrand``), as NumPy's
    ``RandomState(seed)`` does, then swaps ``p[i]`` with ``p[i + mt() % (n - i)]``.
    """
    if n >= 0xFFFFFFFF // 20:
        raise NotImplementedError("torch_randperm: n >= 2**32 / 20 takes PyTorch's other branch")
    perm = list(range(n))
    if n < 2:
        return perm
    raw = np.random.RandomState(seed & 0xFFFFFFFF)._bit_generator.random_raw(n - 1)  # type: ignore[attr-defined]
    z = (raw % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    for i in range(n - 1):
        j = i + z[i]
        perm[i], perm[j] = perm[j], perm[i]
    return perm


class DistributedSampler(Sampler):
    """The indices for rank ``rank`` of ``num_replicas``: every ``num_replicas``-th index of
    the (shuffled) order, starting at ``rank``, as PyTorch.

    Without ``drop_last`` the order is padded by repeating its head so every rank gets
    ``ceil(N / num_replicas)`` indices; with it, the tail is dropped so every rank gets
    ``floor(N / num_replicas)``.

    Args:
        dataset: the dataset (its length is read).
        num_replicas: the world size. Default: ``None`` (``dyngrad.distributed.get_world_size()``).
        rank: this process's rank in ``[0, num_replicas)``. Default: ``None``
            (``dyngrad.distributed.get_rank()``).
        shuffle: shuffle (PyTorch's permutation for ``seed + epoch``) or keep the order.
        seed: the shuffle seed; the same on every rank.
        drop_last: drop the tail instead of padding.
    Raises:
        RuntimeError: ``num_replicas`` or ``rank`` left None while
            ``dyngrad.distributed`` is not initialised.
        ValueError: ``rank`` outside ``[0, num_replicas)``.
    Example:
        >>> import dyngrad
        >>> from dyngrad.utils.data import DataLoader, TensorDataset
        >>> ds = TensorDataset(dyngrad.randn(10, 2), dyngrad.arange(10))
        >>> sampler = DistributedSampler(ds, num_replicas=4, rank=1)
        >>> loader = DataLoader(ds, batch_size=32, sampler=sampler)
        >>> for epoch in range(3):
        ...     sampler.set_epoch(epoch)   # a new order per epoch, the same on every rank
        ...     for xb, yb in loader:
        ...         pass
        >>> len(sampler)                   # ceil(10 / 4) indices for each rank
        3
    """

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            if not dist.is_initialized():
                raise RuntimeError(
                    "DistributedSampler: num_replicas and rank are read from the default process group, "
                    "which is not initialized: call dyngrad.distributed.init_process_group() first or pass "
                    "num_replicas= (the world size) and rank= explicitly"
                )
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        indices = torch_randperm(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch: with ``shuffle=True`` the next iteration uses order ``seed + epoch``
        (call it at the start of every epoch, on every rank, or each epoch repeats the order).

        Args:
            epoch: the epoch number.
        """
        self.epoch = epoch
