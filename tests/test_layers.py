"""The import layers (DESIGN.md section 2, docs/architecture.md): what sits below the
transforms names none of them, the contract keeps one exception, and the pieces that used
to reach up (batched grads, batch_norm's running stats, one_hot, index plans) behave as
before through the generic paths."""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import tomllib

import dyngrad as torch
import dyngrad.nn.functional as F
from dyngrad.autograd import backprop
from dyngrad.autograd.function import TransformUnsupported
from dyngrad.transforms.batching import VmapUnsupported

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "dyngrad"

# What a module below the transforms must not name: a transform's classes or state, or an
# import of the transforms package.
_TRANSFORM_NAMES = re.compile(
    r"\bBatchedTensor\b|\bBatchInterpreter\b|\bDualInterpreter\b|\bVmapUnsupported\b|\bvmap_levels\b"
    r"|\bwrap_batched\b|from \.+transforms|dyngrad\.transforms|import transforms"
)


def _below_transforms() -> list:
    files = sorted((SRC / "ops").glob("*.py")) + sorted((SRC / "nn").glob("*.py"))
    files.append(SRC / "creation.py")
    files += [SRC / "autograd" / f"{m}.py" for m in ("function", "engine", "graph", "backprop")]
    return files


def test_ops_nn_creation_and_the_core_autograd_files_name_no_transform() -> None:
    hits = []
    for path in _below_transforms():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if _TRANSFORM_NAMES.search(line):
                hits.append(f"{path.relative_to(SRC)}:{n}: {line.strip()}")
    assert hits == []


def test_the_layers_contract_keeps_only_the_documented_tensor_to_ops_exception() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = config["contracts"]
    assert contract["type"] == "layers"
    assert contract["ignore_imports"] == ["dyngrad.tensor -> dyngrad.ops"]


def test_vmap_refusal_is_the_generic_transform_refusal() -> None:
    assert VmapUnsupported is TransformUnsupported
    assert issubclass(TransformUnsupported, RuntimeError)


def test_the_core_grad_has_no_batched_argument_and_the_public_grad_adds_it() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    with pytest.raises(TypeError, match="is_grads_batched"):
        backprop.grad(y, x, torch.eye(3), is_grads_batched=True)  # type: ignore[call-arg]
    (g,) = torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)
    np.testing.assert_allclose(g._data, np.diag([2.0, 4.0, 6.0]))


def test_batched_grads_that_cannot_be_batched_still_loop_with_a_warning() -> None:
    class NoRule(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):  # noqa: ANN001, ANN205
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            if float(g.sum()) > 1e9:  # reads a value: cannot run on a batch
                return g
            return g * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = NoRule.apply(x)
    with pytest.warns(UserWarning, match=r"is_grads_batched=True\) fell back to a loop over 2 vectors"):
        (g,) = torch.autograd.grad(y, x, torch.tensor([[1.0, 0.0], [0.0, 3.0]]), is_grads_batched=True)
    np.testing.assert_allclose(g._data, [[2.0, 0.0], [0.0, 6.0]])


def test_batchnorm_training_under_vmap_loops_and_leaves_no_extra_count_or_stat_update() -> None:
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((3, 5, 2)))
    bn, ref = (torch.nn.BatchNorm1d(2).double() for _ in range(2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = torch.func.vmap(bn)(x)
    msgs = [str(w.message) for w in caught]
    assert any("fell back to a loop" in m and "running statistic" in m for m in msgs), msgs
    want = torch.stack([ref(e) for e in x])
    np.testing.assert_allclose(out._data, want._data)
    assert int(bn.num_batches_tracked._data) == int(ref.num_batches_tracked._data) == 3
    np.testing.assert_array_equal(bn.running_mean._data, ref.running_mean._data)
    np.testing.assert_array_equal(bn.running_var._data, ref.running_var._data)


def test_batch_norm_with_running_stats_batched_like_the_input_updates_each_examples_stats() -> None:
    rng = np.random.default_rng(2)
    x = torch.tensor(rng.standard_normal((4, 6, 3)))
    rm = torch.tensor(rng.standard_normal((4, 3)))
    rv = torch.tensor(rng.random((4, 3)) + 0.5)
    rm_ref, rv_ref = rm.clone(), rv.clone()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = torch.func.vmap(lambda a, m, v: F.batch_norm(a, m, v, training=True, momentum=0.3))(x, rm, rv)
    assert not [str(w.message) for w in caught]  # batched: no loop
    want = torch.stack([F.batch_norm(x[b], rm_ref[b], rv_ref[b], training=True, momentum=0.3) for b in range(4)])
    np.testing.assert_allclose(out._data, want._data)
    np.testing.assert_allclose(rm._data, rm_ref._data)
    np.testing.assert_allclose(rv._data, rv_ref._data)


def test_batch_norm_running_stats_are_numpys_update_bit_for_bit_with_or_without_an_interpreter() -> None:
    rng = np.random.default_rng(3)
    x = torch.tensor(rng.standard_normal((4, 3, 5)).astype(np.float32))
    rm, rv = torch.zeros(3), torch.ones(3)
    F.batch_norm(x, rm, rv, training=True, momentum=0.1)
    d = x._data
    want_m = np.zeros(3, np.float32) * 0.9 + 0.1 * d.mean(axis=(0, 2))
    want_v = np.ones(3, np.float32) * 0.9 + 0.1 * d.var(axis=(0, 2), ddof=1)
    np.testing.assert_array_equal(rm._data, want_m)
    np.testing.assert_array_equal(rv._data, want_v)
    assert rm._version == 1 and rv._version == 1
    rm2, rv2 = torch.zeros(3), torch.ones(3)
    with torch.autograd.forward_ad.dual_level():  # an interpreter is active: the ops path
        F.batch_norm(x, rm2, rv2, training=True, momentum=0.1)
    np.testing.assert_array_equal(rm2._data, want_m)
    np.testing.assert_array_equal(rv2._data, want_v)
    assert rm2._version == 1 and rv2._version == 1


def test_one_hot_under_nested_vmap_matches_the_unbatched_result() -> None:
    idx = torch.tensor([[0, 1, 2], [3, 2, 1]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        oh = torch.func.vmap(torch.func.vmap(lambda a: F.one_hot(a, 4)), in_dims=1)(idx)
    assert not [str(w.message) for w in caught]
    np.testing.assert_array_equal(oh._data, F.one_hot(idx.T, 4)._data)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        torch.func.vmap(lambda a: F.one_hot(a, 3))(idx)


def test_indexing_with_a_batched_bool_mask_loops_and_says_why() -> None:
    x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    with pytest.warns(UserWarning, match="batched bool mask"):
        out = torch.func.vmap(lambda a: a[a > 0].sum())(x)
    np.testing.assert_allclose(out._data, [4.0, 5.0])
