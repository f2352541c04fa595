"""utils.data samplers: Sequential, Random (replacement, num_samples, generator), SubsetRandom,
WeightedRandom, Batch and Distributed (padding, drop_last, set_epoch, rank checks)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.data import (
    BatchSampler,
    DataLoader,
    DistributedSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from dyngrad.utils.data.distributed import torch_randperm


def _g(seed):
    return dyngrad.Generator().manual_seed(seed)


def test_sequential_sampler_reads_the_length_at_each_iteration():
    data = [1, 2, 3]
    s = SequentialSampler(data)
    data.append(4)
    assert list(s) == [0, 1, 2, 3] and len(s) == 4


def test_random_sampler_is_a_seeded_permutation():
    a, b, c = (list(RandomSampler(range(20), generator=_g(s))) for s in (0, 0, 1))
    assert sorted(a) == list(range(20)) and a == b and a != c


def test_random_sampler_without_generator_follows_the_default_seed():
    dyngrad.manual_seed(4)
    a = list(RandomSampler(range(30)))
    dyngrad.manual_seed(4)
    b = list(RandomSampler(range(30)))
    assert a == b and sorted(a) == list(range(30))


def test_random_sampler_without_generator_takes_one_draw_from_the_default_generator():
    dyngrad.manual_seed(9)
    list(RandomSampler(range(1000)))
    after = dyngrad.rand(()).item()
    dyngrad.manual_seed(9)
    dyngrad.default_generator.rng.integers(0, 2**63 - 1)
    assert dyngrad.rand(()).item() == after


def test_random_sampler_num_samples_beyond_the_length_repeats_whole_permutations():
    got = list(RandomSampler(range(5), num_samples=12, generator=_g(0)))
    assert len(got) == 12 and sorted(got[:5]) == sorted(got[5:10]) == list(range(5)) and len(set(got[10:])) == 2


def test_random_sampler_with_replacement_draws_in_range_with_repeats():
    got = list(RandomSampler(range(4), replacement=True, num_samples=70, generator=_g(0)))
    assert len(got) == 70 and set(got) == {0, 1, 2, 3}


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"replacement": 1}, TypeError, "replacement should be a boolean value"),
    ({"num_samples": 0}, ValueError, "num_samples should be a positive integer value"),
    ({"num_samples": 2.0}, ValueError, "num_samples should be a positive integer value"),
])
def test_random_sampler_checks_its_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        RandomSampler(range(3), **kwargs)


def test_subset_random_sampler_permutes_the_given_indices():
    got = list(SubsetRandomSampler([10, 20, 30, 40], generator=_g(0)))
    assert sorted(got) == [10, 20, 30, 40] and len(SubsetRandomSampler([1, 2])) == 2


def test_weighted_sampler_follows_the_weights():
    got = list(WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=_g(0)))
    counts = collections.Counter(got)
    assert counts[0] == 0 and 0.7 < counts[2] / 4000 < 0.8


def test_weighted_sampler_without_replacement_draws_each_index_once():
    got = list(WeightedRandomSampler([1, 2, 3, 4, 5], 5, replacement=False, generator=_g(0)))
    assert sorted(got) == [0, 1, 2, 3, 4]
    with pytest.raises(RuntimeError):
        list(WeightedRandomSampler([1.0, 0.0], 2, replacement=False))


@pytest.mark.parametrize("args, match", [
    (([1.0], 0), "num_samples should be a positive integer value"),
    (([1.0], True), "num_samples should be a positive integer value"),
    (([[1.0]], 1), r"weights should be a 1d sequence but given weights have shape \(1, 1\)"),
])
def test_weighted_sampler_checks_its_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        WeightedRandomSampler(*args)


def test_batch_sampler_groups_any_iterable():
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler(range(7), 3, 0)


def test_a_batch_sampler_drives_the_loader():
    loader = DataLoader(list(range(10)), batch_sampler=[[9, 0], [3, 4, 5]])
    assert [b.tolist() for b in loader] == [[9, 0], [3, 4, 5]] and len(loader) == 2
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(list(range(10)), batch_sampler=[[0]], batch_size=2)


# --------------------------------------------------------------------- DistributedSampler
@pytest.mark.parametrize("n, world, drop_last", [(10, 3, False), (10, 3, True), (2, 4, False), (12, 4, True)])
def test_distributed_ranks_cover_the_dataset_with_pytorchs_padding(n, world, drop_last):
    parts = [list(DistributedSampler(range(n), num_replicas=world, rank=r, shuffle=False, drop_last=drop_last))
             for r in range(world)]
    size = n // world if drop_last else -(-n // world)
    assert all(len(p) == size for p in parts)
    flat = sorted(i for p in parts for i in p)
    if drop_last:
        assert len(set(flat)) == len(flat) == size * world
    else:  # padded with the head of the order, repeated as often as needed
        assert set(flat) == set(range(n)) and len(flat) == size * world
    assert parts[0][:1] == [0] and (world < 2 or parts[1][:1] == [1])


def test_distributed_shuffle_is_shared_by_the_ranks_and_changes_with_the_epoch():
    samplers = [DistributedSampler(range(11), num_replicas=2, rank=r, seed=3) for r in range(2)]
    e0 = [list(s) for s in samplers]
    assert sorted(set(e0[0] + e0[1])) == list(range(11)) and len(e0[0]) == len(e0[1]) == 6 and e0[0] != e0[1]
    for s in samplers:
        s.set_epoch(1)
    e1 = [list(s) for s in samplers]
    assert e1 != e0 and sorted(set(e1[0] + e1[1])) == list(range(11))
    assert list(DistributedSampler(range(11), num_replicas=2, rank=0, seed=3)) == e0[0]


def test_torch_randperm_is_a_permutation_and_depends_on_the_seed():
    a, b = torch_randperm(50, 0), torch_randperm(50, 1)
    assert sorted(a) == sorted(b) == list(range(50)) and a != b and torch_randperm(1, 5) == [0]


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"num_replicas": 2, "rank": 2}, ValueError, r"Invalid rank 2, rank should be in the interval \[0, 1\]"),
    ({"num_replicas": 2, "rank": -1}, ValueError, "Invalid rank -1"),
    ({}, RuntimeError, "pass num_replicas="),
])
def test_distributed_sampler_checks_rank_and_world_size(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        DistributedSampler(range(4), **kwargs)


def test_distributed_sampler_in_a_loader_gives_this_ranks_batches():
    ds = dyngrad.utils.data.TensorDataset(dyngrad.arange(8))
    loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1, 3], [5, 7]]
    assert np.array_equal(np.concatenate([b[0].numpy() for b in loader]), np.array([1, 3, 5, 7]))
