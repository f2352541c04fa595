"""utils.data: TensorDataset, DataLoader batching/shuffling/collation and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.data import DataLoader, Dataset, TensorDataset, default_collate, random_split


def _ds(n=10):
    return TensorDataset(dyngrad.arange(n * 2, dtype=dyngrad.float32).reshape(n, 2), dyngrad.arange(n))


def test_tensor_dataset_indexes_all_tensors():
    ds = _ds()
    x, y = ds[3]
    assert len(ds) == 10 and x.tolist() == [6.0, 7.0] and int(y) == 3


def test_tensor_dataset_size_mismatch_names_sizes():
    with pytest.raises(ValueError, match=r"\[3, 4\]"):
        TensorDataset(dyngrad.zeros(3), dyngrad.zeros(4))


def test_sequential_batches_cover_everything_in_order():
    batches = list(DataLoader(_ds(), batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2) and len(DataLoader(_ds(), batch_size=4)) == 3


def test_drop_last_drops_the_incomplete_batch():
    loader = DataLoader(_ds(), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [len(b[1]) for b in loader] == [4, 4]


def test_shuffle_is_a_permutation_reproducible_with_a_generator():
    def order(seed):
        g = dyngrad.Generator().manual_seed(seed)
        return [i for _, y in DataLoader(_ds(), batch_size=3, shuffle=True, generator=g) for i in y.tolist()]

    a, b, c = order(1), order(1), order(2)
    assert sorted(a) == list(range(10)) and a == b and a != c


def test_each_epoch_draws_a_new_order():
    loader = DataLoader(_ds(50), batch_size=50, shuffle=True, generator=dyngrad.Generator().manual_seed(0))
    e1, e2 = (next(iter(loader))[1].tolist() for _ in range(2))
    assert e1 != e2


@pytest.mark.parametrize("bs", [0, -1, 2.5, True])
def test_non_positive_batch_size_is_refused(bs):
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(_ds(), batch_size=bs)


def test_shuffle_with_sampler_is_refused():
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(_ds(), sampler=[0, 1], shuffle=True)


class Dicts(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": np.full(3, i, dtype=np.float32), "label": i, "w": 0.5 * i, "name": f"s{i}",
                "pair": (dyngrad.tensor([i, i]), True)}


def test_default_collate_handles_dicts_numbers_strings_and_tuples():
    b = next(iter(DataLoader(Dicts(), batch_size=3)))
    assert b["x"].shape == (3, 3) and b["x"].dtype == dyngrad.float32
    assert b["label"].dtype == dyngrad.int64 and b["label"].tolist() == [0, 1, 2]
    assert b["w"].dtype == dyngrad.float64 and b["name"] == ["s0", "s1", "s2"]
    assert b["pair"][0].shape == (3, 2) and b["pair"][1].tolist() == [True, True, True]


def test_custom_collate_and_batch_size_none():
    loader = DataLoader(Dicts(), batch_size=2, collate_fn=lambda s: len(s))
    assert list(loader) == [2, 2, 1]
    assert next(iter(DataLoader(Dicts(), batch_size=None)))["label"] == 0


def test_default_collate_refuses_unknown_types():
    with pytest.raises(TypeError, match="object"):
        default_collate([object(), object()])


def test_loader_over_generic_dataset_matches_tensor_fast_path():
    ds = _ds()

    class Plain(Dataset):
        def __len__(self):
            return len(ds)

        def __getitem__(self, i):
            return ds[i]

    for (a, b), (c, d) in zip(DataLoader(ds, batch_size=4), DataLoader(Plain(), batch_size=4)):
        assert np.array_equal(a._data, c._data) and np.array_equal(b._data, d._data)


def test_random_split_partitions_the_dataset():
    parts = random_split(_ds(), [7, 3], generator=dyngrad.Generator().manual_seed(0))
    idx = sorted(int(p[i][1]) for p in parts for i in range(len(p)))
    assert idx == list(range(10))
    with pytest.raises(ValueError):
        random_split(_ds(), [5, 6])
