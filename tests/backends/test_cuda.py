"""CuPy tensors on GPUs (``device="cuda"``, ``.cuda()``, ``.cpu()``, ``.to()``, ``Module.to``,
``dyngrad.cuda``). Three layers:

* without CuPy or a GPU (every CI machine): the device calls fail as PyTorch's do on a
  machine without CUDA, with a message naming CuPy;
* with a fake CuPy (a NumPy-backed stand-in installed by monkeypatching
  ``_backend._cupy``): the device bookkeeping, moves and gradients across devices;
* marked ``gpu``: the same on a real GPU with real CuPy, skipped cleanly without one.
"""

from __future__ import annotations

import contextlib
import types

import numpy as np
import pytest

import dyngrad
from dyngrad import _backend as B


# ------------------------------------------------------------------ without CuPy / a GPU
@pytest.fixture
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "_cupy", lambda: None)


def test_without_a_gpu_cuda_is_unavailable_and_device_calls_say_why(no_gpu: None) -> None:
    assert dyngrad.cuda.is_available() is False and dyngrad.cuda.device_count() == 0
    x = dyngrad.ones(2)
    for call in (x.cuda, lambda: x.to("cuda"), lambda: x.to("cuda:1"), lambda: dyngrad.zeros(2, device="cuda"),
                 lambda: dyngrad.tensor([1.0], device="cuda:0"), lambda: dyngrad.nn.Linear(2, 2).to("cuda")):
        with pytest.raises(RuntimeError, match="CuPy"):
            call()
    assert not x.is_cuda and str(x.device) == "cpu" and x.cpu() is x
    dyngrad.cuda.synchronize()
    dyngrad.cuda.manual_seed(0)
    assert dyngrad.cuda.memory_allocated() == 0


# ------------------------------------------------------------------ a fake CuPy
class _FakeDeviceArray(np.ndarray):
    """A NumPy array that says it is CuPy's (its type's module is ``cupy``) and on which GPU."""

    _dev = 0

    def __array_finalize__(self, obj: object) -> None:
        self._dev = getattr(obj, "_dev", _FAKE_STATE["current"])

    @property
    def device(self) -> types.SimpleNamespace:
        return types.SimpleNamespace(id=self._dev)

    def get(self) -> np.ndarray:
        return np.array(self.view(np.ndarray), copy=True)


_FakeDeviceArray.__module__ = "cupy._core.core"
_FAKE_STATE = {"current": 0}


def _fake_cupy(n_gpus: int = 2) -> types.SimpleNamespace:
    @contextlib.contextmanager
    def device(i: int | None = None):  # noqa: ANN202
        old = _FAKE_STATE["current"]
        _FAKE_STATE["current"] = old if i is None else i
        try:
            yield types.SimpleNamespace(synchronize=lambda: None)
        finally:
            _FAKE_STATE["current"] = old

    class _Dev:
        def __init__(self, i: int | None = None) -> None:
            self.i = i

        def __enter__(self) -> None:
            self._cm = device(self.i)
            self._cm.__enter__()

        def __exit__(self, *a: object) -> None:
            self._cm.__exit__(*a)

        def synchronize(self) -> None:
            pass

    def asarray(a: object) -> _FakeDeviceArray:
        out = np.array(a, copy=True).view(_FakeDeviceArray)
        out._dev = _FAKE_STATE["current"]
        return out

    runtime = types.SimpleNamespace(getDeviceCount=lambda: n_gpus, getDevice=lambda: _FAKE_STATE["current"])
    pool = types.SimpleNamespace(used_bytes=lambda: 0, free_all_blocks=lambda: None)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime, Device=_Dev), asarray=asarray,
                                 random=types.SimpleNamespace(seed=lambda s: None),
                                 get_default_memory_pool=lambda: pool,
                                 may_share_memory=np.may_share_memory)


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    fake = _fake_cupy()
    monkeypatch.setattr(B, "_cupy", lambda: fake)
    return fake


def test_a_fake_cupy_makes_cuda_available(fake_gpu: types.SimpleNamespace) -> None:
    assert dyngrad.cuda.is_available() and dyngrad.cuda.device_count() == 2


def test_creation_on_the_device_and_its_description(fake_gpu: types.SimpleNamespace) -> None:
    x = dyngrad.ones(3, device="cuda", requires_grad=True)
    assert B.is_cupy(x._data) and x.is_cuda and x.requires_grad and x.is_leaf
    assert str(x.device) == "cuda:0" and x.device.type == "cuda" and x.device.index == 0
    assert "device='cuda:0'" in repr(x)
    y = dyngrad.zeros(2, device="cuda:1")
    assert y.device.index == 1 and dyngrad.zeros_like(y).device.index == 1
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        dyngrad.zeros(2, device="cuda:2")


def test_numpy_of_a_gpu_tensor_is_a_type_error_as_in_pytorch(fake_gpu: types.SimpleNamespace) -> None:
    x = dyngrad.tensor([1.0, 2.0]).cuda()
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy.*Tensor.cpu\(\)"):
        x.numpy()
    h = x.cpu()
    assert type(h._data) is np.ndarray and h.numpy().tolist() == [1.0, 2.0]


def test_moves_are_differentiable_and_the_gradient_comes_home(fake_gpu: types.SimpleNamespace) -> None:
    a = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.cuda(1)
    assert b.device.index == 1 and b.grad_fn.name() == "ToCopyBackward0"
    c = b.to("cuda:0")
    assert c.device.index == 0
    (c * c).sum().backward()
    assert type(a.grad._data) is np.ndarray
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0, 6.0])
    assert b.to("cuda:1") is b and a.cpu() is a


def test_a_cupy_array_stays_on_its_device(fake_gpu: types.SimpleNamespace) -> None:
    arr = fake_gpu.asarray(np.arange(3.0))
    t = dyngrad.tensor(arr)
    assert B.is_cupy(t._data) and t.is_cuda
    assert t._data is not arr  # tensor() copies, as for NumPy


def test_module_to_moves_parameters_and_back(fake_gpu: types.SimpleNamespace) -> None:
    m = dyngrad.nn.Linear(3, 2)
    w = m.weight.detach().numpy().copy()
    assert m.to("cuda") is m and m.weight.is_cuda and m.bias.is_cuda
    out = m(dyngrad.ones(4, 3, device="cuda"))
    assert out.is_cuda
    out.sum().backward()
    assert m.weight.grad.is_cuda
    opt = dyngrad.optim.SGD(m.parameters(), lr=0.0)
    opt.step()  # an optimizer step on GPU parameters
    assert m.weight.is_cuda
    state = m.state_dict()
    import io

    buf = io.BytesIO()
    dyngrad.save(state, buf)  # saved from the host
    buf.seek(0)
    loaded = dyngrad.load(buf)
    assert type(loaded["weight"]._data) is np.ndarray
    np.testing.assert_array_equal(loaded["weight"].numpy(), w)
    m.cpu()
    assert not m.weight.is_cuda and type(m.weight._data) is np.ndarray
    np.testing.assert_array_equal(m.weight.detach().numpy(), w)


# ------------------------------------------------------------------ a real GPU (marked gpu)
def _real_gpu() -> bool:
    return B.cuda_device_count() > 0




@pytest.mark.gpu
@pytest.mark.skipif(not _real_gpu(), reason="needs CuPy and a GPU (the cuda extra)")
def test_gpu_mlp_step_equals_the_cpu_step() -> None:
    import cupy

    rng = np.random.default_rng(0)
    x0, y0 = rng.standard_normal((64, 32)), rng.standard_normal((64, 4))

    def step(device: str) -> list[np.ndarray]:
        dyngrad.manual_seed(0)
        m = dyngrad.nn.Sequential(dyngrad.nn.Linear(32, 64), dyngrad.nn.ReLU(), dyngrad.nn.Linear(64, 4)).double()
        m.to(device)
        opt = dyngrad.optim.SGD(m.parameters(), lr=0.1)
        loss = dyngrad.nn.functional.mse_loss(m(dyngrad.tensor(x0, device=device)), dyngrad.tensor(y0, device=device))
        loss.backward()
        opt.step()
        return [p.detach().cpu().numpy() for p in m.parameters()]

    for a, b in zip(step("cpu"), step("cuda")):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert isinstance(dyngrad.ones(2, device="cuda")._data, cupy.ndarray)


@pytest.mark.gpu
@pytest.mark.skipif(not _real_gpu(), reason="needs CuPy and a GPU (the cuda extra)")
def test_gpu_numpy_raises_and_cpu_copies() -> None:
    x = dyngrad.randn(3).cuda()
    assert x.is_cuda and str(x.device) == "cuda:0"
    with pytest.raises(TypeError, match="cpu"):
        x.numpy()
    assert type(x.cpu()._data) is np.ndarray


@pytest.mark.gpu
@pytest.mark.skipif(not _real_gpu(), reason="needs CuPy and a GPU (the cuda extra)")
def test_gpu_op_database_arithmetic_family() -> None:
    import cupy

    from tests.backends.opdb_backend import check_entry, entry_id
    from tests.op_db import FAMILIES

    failed = []
    for info in FAMILIES["arithmetic"]:
        try:
            check_entry(info, cupy.asarray, B.is_cupy)
        except Exception as e:  # noqa: BLE001
            failed.append(f"{entry_id(info)}: {type(e).__name__}: {e}"[:200])
    assert not failed, "\n".join(failed)


def test_the_device_function_names_gpus_only_when_there_are_some(fake_gpu: types.SimpleNamespace,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    d = dyngrad.device("cuda:1")
    assert d.type == "cuda" and d.index == 1 and repr(d) == "device(type='cuda', index=1)"
    assert dyngrad.ones(2, device=d).device == d
    monkeypatch.setattr(B, "_cupy", lambda: None)
    with pytest.raises(RuntimeError, match="CuPy"):
        dyngrad.device("cuda")
