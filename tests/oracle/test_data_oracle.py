"""Live comparison of utils.data with PyTorch 2.13's torch.utils.data: worker seeds as PyTorch
derives them (checked inside real PyTorch workers), DistributedSampler index sets (shuffle on
and off, PyTorch's randperm reproduced), batch order with workers, collation structure,
random_split lengths, the worker-error message. RandomSampler / SubsetRandomSampler /
WeightedRandomSampler orders are not compared: they draw from dyngrad's Generator (PCG64),
not PyTorch's MT19937. Skipped when torch is not installed."""

from __future__ import annotations

import collections
import random

import numpy as np
import pytest

import dyngrad
from dyngrad.utils import data as D
from dyngrad.utils.data._worker import _generate_state
from dyngrad.utils.data.distributed import torch_randperm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle
TD = torch.utils.data


@pytest.mark.parametrize("base_seed", [0, 1, 2**32 - 1, 2**32, 123456789012345, 2**63 - 1])
def test_numpy_seed_words_equal_pytorchs_generate_state(base_seed):
    from torch.utils.data._utils.worker import _generate_state as torch_state

    for wid in range(4):
        assert _generate_state(base_seed, wid) == torch_state(base_seed, wid)


class _TorchWho(TD.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = TD.get_worker_info()
        return info.id, info.seed, random.random(), float(np.random.random())


def test_pytorch_workers_are_seeded_as_dyngrad_seeds_its_own():
    g = torch.Generator().manual_seed(11)
    rows = list(TD.DataLoader(_TorchWho(), batch_size=None, num_workers=2, generator=g))
    firsts = {}
    for wid, seed, py, npv in rows:
        firsts.setdefault(int(wid), (int(seed), py, npv))
    base = firsts[0][0]
    for wid, (seed, py, npv) in firsts.items():
        assert seed == base + wid  # worker seed = base_seed + worker_id
        assert py == random.Random(seed).random()
        assert npv == np.random.RandomState(_generate_state(base, wid)).random_sample()


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1001])
@pytest.mark.parametrize("seed", [0, 5, 2**40 + 3])
def test_torch_randperm_equals_pytorchs(n, seed):
    assert torch_randperm(n, seed) == torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()


@pytest.mark.parametrize("n, world", [(10, 3), (2, 4), (12, 4), (17, 5)])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_gives_pytorchs_indices(n, world, shuffle, drop_last):
    for rank in range(world):
        ours = D.DistributedSampler(range(n), num_replicas=world, rank=rank, shuffle=shuffle, seed=7, drop_last=drop_last)
        theirs = TD.DistributedSampler(range(n), num_replicas=world, rank=rank, shuffle=shuffle, seed=7,
                                       drop_last=drop_last)
        for epoch in (0, 3):
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_sequential_and_batch_samplers_equal_pytorchs():
    for drop_last in (False, True):
        ours = D.BatchSampler(D.SequentialSampler(range(11)), 4, drop_last)
        theirs = TD.BatchSampler(TD.SequentialSampler(range(11)), 4, drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_random_sampler_lengths_and_blocks_equal_pytorchs():
    for kw in ({}, {"num_samples": 13}, {"replacement": True, "num_samples": 70}):
        ours, theirs = list(D.RandomSampler(range(5), **kw)), list(TD.RandomSampler(range(5), **kw))
        assert len(ours) == len(theirs)
        if not kw.get("replacement"):
            assert sorted(ours[:5]) == sorted(theirs[:5]) == list(range(5))


def _structure(x):
    if isinstance(x, (dyngrad.Tensor, torch.Tensor)):
        return ("tensor", tuple(x.shape), str(x.dtype).split(".")[-1])
    if isinstance(x, dict):
        return {k: _structure(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, *(_structure(v) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_structure(v) for v in x])
    return x


P = collections.namedtuple("P", ["a", "b"])


def _samples(lib):
    return [{"t": lib.tensor([i, i + 1.0]), "n": np.full((2, 2), i, np.float32), "i": i, "f": i / 2, "b": i > 0,
             "s": f"x{i}", "nt": P(i, np.int16(i)), "tup": (i, [i, i]), "np32": np.float32(i)} for i in range(3)]


def test_default_collate_structure_equals_pytorchs():
    assert _structure(D.default_collate(_samples(dyngrad))) == _structure(TD.default_collate(_samples(torch)))


def test_default_convert_structure_equals_pytorchs():
    sample = {"n": np.arange(3), "t": (np.zeros(2), 1), "s": "x", "nt": P(np.ones(1), 2)}
    assert _structure(D.default_convert(sample)) == _structure(TD.default_convert(sample))


class _Shard(TD.IterableDataset):
    def __init__(self, n, info):
        self.n, self.info = n, info

    def __iter__(self):
        i = self.info()
        return iter(range(self.n) if i is None else range(i.id, self.n, i.num_workers))


class _OurShard(D.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        i = D.get_worker_info()
        return iter(range(self.n) if i is None else range(i.id, self.n, i.num_workers))


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
@pytest.mark.parametrize("drop_last", [False, True])
def test_iterable_dataset_batch_order_with_workers_equals_pytorchs(drop_last):
    ours = [b.tolist() for b in D.DataLoader(_OurShard(23), batch_size=3, num_workers=3, drop_last=drop_last)]
    theirs = [b.tolist() for b in TD.DataLoader(_Shard(23, TD.get_worker_info), batch_size=3, num_workers=3,
                                                   drop_last=drop_last)]
    assert ours == theirs


def test_random_split_fraction_lengths_equal_pytorchs():
    for n, fr in [(10, [0.34, 0.33, 0.33]), (2, [0.9, 0.1]), (7, [0.5, 0.5]), (101, [0.1] * 10)]:
        with pytest.warns() if n == 2 else _nullcontext():
            ours = [len(s) for s in D.random_split(list(range(n)), fr)]
            theirs = [len(s) for s in TD.random_split(list(range(n)), fr)]
        assert ours == theirs


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class _TorchBad(TD.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        raise ValueError("bad")


class _OurBad(D.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        raise ValueError("bad")


def test_worker_error_message_starts_as_pytorchs():
    with pytest.raises(ValueError) as ours:
        list(D.DataLoader(_OurBad(), num_workers=1))
    with pytest.raises(ValueError) as theirs:
        list(TD.DataLoader(_TorchBad(), num_workers=1))
    head = "Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):"
    assert str(ours.value).startswith(head) and str(theirs.value).startswith(head)
    assert str(ours.value).rstrip().endswith("ValueError: bad") and str(theirs.value).rstrip().endswith("ValueError: bad")
