"""utils.data: default_collate / default_convert on nested structures, the dataset wrappers
(Concat, Chain, Stack, Subset, random_split with fractions), IterableDataset in one process,
and the DataLoader's argument rules."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.data import (
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)

Point = collections.namedtuple("Point", ["x", "y"])


# --------------------------------------------------------------------- default_collate
def test_tuples_collate_to_lists_as_in_pytorch():
    out = default_collate([(1, 2.0), (3, 4.0)])
    assert isinstance(out, list) and out[0].tolist() == [1, 3] and out[1].dtype == dyngrad.float64


def test_namedtuples_keep_their_type():
    out = default_collate([Point(1, np.zeros(2)), Point(2, np.ones(2))])
    assert isinstance(out, Point) and out.x.tolist() == [1, 2] and out.y.shape == (2, 2)


def test_nested_dicts_and_lists_collate_recursively():
    batch = [{"a": {"b": [np.float32(i), i]}, "s": f"t{i}"} for i in range(3)]
    out = default_collate(batch)
    assert out["s"] == ["t0", "t1", "t2"] and isinstance(out["a"]["b"], list)
    assert out["a"]["b"][0].dtype == dyngrad.float32 and out["a"]["b"][1].dtype == dyngrad.int64


def test_numpy_scalars_keep_their_dtype_and_python_numbers_get_pytorchs():
    assert default_collate([np.float32(1), np.float32(2)]).dtype == dyngrad.float32
    assert default_collate([np.int16(1), np.int16(2)]).dtype == dyngrad.int16
    assert default_collate([True, False]).dtype == dyngrad.bool
    assert default_collate([1.5, 2.5]).dtype == dyngrad.float64 and default_collate([1, 2]).dtype == dyngrad.int64


def test_tensors_stack_and_keep_their_graph():
    w = dyngrad.ones(2, requires_grad=True)
    out = default_collate([w * 1, w * 2])
    out.sum().backward()
    assert out.shape == (2, 2) and w.grad.tolist() == [3.0, 3.0]


def test_string_arrays_and_objects_are_refused():
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(TypeError, match="object"):
        default_collate([object(), object()])


def test_sequences_of_different_lengths_are_refused():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_tensors_of_different_shapes_are_refused():
    with pytest.raises(RuntimeError):
        default_collate([dyngrad.zeros(2), dyngrad.zeros(3)])


def test_default_convert_turns_arrays_into_tensors_and_leaves_the_rest():
    out = default_convert({"x": np.arange(3), "p": Point(np.zeros(1), "s"), "t": (np.ones(2), 3), "n": 1.0})
    assert isinstance(out["x"], dyngrad.Tensor) and out["x"].tolist() == [0, 1, 2]
    assert isinstance(out["p"], Point) and isinstance(out["p"].x, dyngrad.Tensor) and out["p"].y == "s"
    assert isinstance(out["t"], list) and isinstance(out["t"][0], dyngrad.Tensor) and out["t"][1] == 3
    assert out["n"] == 1.0 and default_convert(np.array(["a"])).tolist() == ["a"]


def test_batch_size_none_converts_each_sample():
    out = list(DataLoader([np.arange(2), np.arange(2) + 5], batch_size=None))
    assert all(isinstance(o, dyngrad.Tensor) for o in out) and out[1].tolist() == [5, 6]


# --------------------------------------------------------------------- datasets
def _range_ds(n, start=0):
    return TensorDataset(dyngrad.arange(start, start + n))


def test_concat_dataset_indexes_across_members_and_from_the_end():
    ds = ConcatDataset([_range_ds(3), _range_ds(2, 10)])
    assert len(ds) == 5 and [int(ds[i][0]) for i in range(5)] == [0, 1, 2, 10, 11]
    assert int(ds[-1][0]) == 11 and ds.cumulative_sizes == [3, 5]
    assert int((_range_ds(1) + _range_ds(1, 7))[1][0]) == 7
    with pytest.raises(ValueError, match="absolute value of index"):
        ds[-6]
    with pytest.raises(IndexError):
        ds[5]


def test_concat_dataset_refuses_empty_and_iterable_members():
    with pytest.raises(AssertionError, match="empty"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Counting(2)])


class Counting(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_chain_dataset_and_iterable_sum_chain_the_members():
    assert list(ChainDataset([Counting(2), Counting(3)])) == [0, 1, 0, 1, 2]
    assert list(Counting(1) + Counting(2)) == [0, 0, 1] and len(ChainDataset([Counting(2), Counting(3)])) == 5


def test_stack_dataset_zips_tuples_or_dicts():
    a, b = _range_ds(3), [10, 11, 12]
    assert StackDataset(a, b)[1][1] == 11 and set(StackDataset(x=a, y=b)[2]) == {"x", "y"}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a, [1])
    with pytest.raises(ValueError, match="both types are given"):
        StackDataset(a, y=b)


def test_subset_reads_the_chosen_indices_and_batches_through_getitems():
    sub = Subset(list(range(100, 110)), [9, 0, 4])
    assert len(sub) == 3 and sub[0] == 109 and sub.__getitems__([1, 2]) == [100, 104]
    assert [b.tolist() for b in DataLoader(sub, batch_size=2)] == [[109, 100], [104]]


def test_random_split_accepts_fractions_and_deals_the_remainder_from_the_front():
    parts = random_split(_range_ds(10), [0.34, 0.33, 0.33], generator=dyngrad.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [4, 3, 3]
    assert sorted(int(p[i][0]) for p in parts for i in range(len(p))) == list(range(10))
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        parts = random_split(_range_ds(2), [0.9, 0.1])  # floors [1, 0], the remainder to the first
    assert [len(p) for p in parts] == [2, 0]


def test_random_split_is_reproducible_with_a_generator_and_checks_the_sum():
    def idx(seed):
        return [p.indices for p in random_split(_range_ds(9), [5, 4], generator=dyngrad.Generator().manual_seed(seed))]

    assert idx(1) == idx(1) and idx(1) != idx(2)
    with pytest.raises(ValueError, match="does not equal the length of the input dataset"):
        random_split(_range_ds(9), [5, 5])


# --------------------------------------------------------------------- loader rules
def test_iterable_dataset_loads_in_one_process_with_batches_and_len():
    loader = DataLoader(Counting(7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    assert len(DataLoader(Counting(7), batch_size=3, drop_last=True)) == 2


def test_iterable_dataset_refuses_shuffle_and_samplers():
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Counting(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(Counting(3), sampler=[0])


def test_drop_last_without_batch_size_is_refused():
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        DataLoader([1, 2], batch_size=None, drop_last=True)


def test_batching_attributes_cannot_change_after_construction():
    loader = DataLoader([1, 2, 3], batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3
    loader.num_workers = 0  # not one of the frozen ones


def test_pin_memory_is_accepted_and_changes_nothing():
    a = [b.tolist() for b in DataLoader(list(range(5)), batch_size=2, pin_memory=True)]
    assert a == [[0, 1], [2, 3], [4]]


def test_a_dataset_with_getitems_loads_a_batch_at_once():
    class Batched(Dataset):
        calls = 0

        def __len__(self):
            return 6

        def __getitem__(self, i):
            raise AssertionError("__getitems__ should be used")

        def __getitems__(self, idx):
            Batched.calls += 1
            return [i * 10 for i in idx]

    assert [b.tolist() for b in DataLoader(Batched(), batch_size=4)] == [[0, 10, 20, 30], [40, 50]]
    assert Batched.calls == 2
