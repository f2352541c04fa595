"""``zeros_like``/``ones_like``/``empty_like``/``full_like``/``rand_like``/``randn_like``/
``randint_like`` honour ``device=`` as the non-like creation functions do: the CPU and meta
are accepted, any other device raises the same RuntimeError as ``zeros(..., device=...)``."""

import pytest

import dyngrad

LIKE = {
    "zeros_like": lambda x, **kw: dyngrad.zeros_like(x, **kw),
    "ones_like": lambda x, **kw: dyngrad.ones_like(x, **kw),
    "empty_like": lambda x, **kw: dyngrad.empty_like(x, **kw),
    "full_like": lambda x, **kw: dyngrad.full_like(x, 2.0, **kw),
    "rand_like": lambda x, **kw: dyngrad.rand_like(x, **kw),
    "randn_like": lambda x, **kw: dyngrad.randn_like(x, **kw),
    "randint_like": lambda x, **kw: dyngrad.randint_like(x, 5, **kw),
}


@pytest.mark.parametrize("name", LIKE)
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "mps", "xpu"])
def test_unavailable_device_raises_as_zeros_does(name, device):
    with pytest.raises(RuntimeError) as want:
        dyngrad.zeros(2, device=device)
    with pytest.raises(RuntimeError) as got:
        LIKE[name](dyngrad.ones(2, 3), device=device)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name", LIKE)
@pytest.mark.parametrize("device", [None, "cpu", "cpu:0", dyngrad.device("cpu")])
def test_cpu_device_is_accepted(name, device):
    out = LIKE[name](dyngrad.ones(2, 3), device=device)
    assert out.shape == (2, 3) and str(out.device) == "cpu"


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_meta_device_still_gives_a_meta_tensor(name):
    assert str(LIKE[name](dyngrad.ones(2, 3), device="meta").device) == "meta"


@pytest.mark.parametrize("fn", [dyngrad.median, dyngrad.nanmedian])
@pytest.mark.parametrize("shape", [(0,), (0, 3)])
def test_median_of_an_empty_float_tensor_is_nan(fn, shape):
    x = dyngrad.ones(*shape, dtype=dyngrad.float64, requires_grad=True)
    y = fn(x)
    assert y.shape == () and y.dtype == dyngrad.float64 and y.item() != y.item()
    y.backward()
    assert x.grad.shape == shape


@pytest.mark.parametrize("fn", [dyngrad.median, dyngrad.nanmedian])
def test_median_empty_dim_cases_unchanged(fn):
    v, i = fn(dyngrad.ones(0, 3), dim=1)
    assert v.shape == (0,) and i.shape == (0,)
    with pytest.raises(IndexError, match="non-zero size"):
        fn(dyngrad.ones(0, 3), dim=0)
    # PyTorch 2.13: its NaN cast to int64 (tests/ops/test_empty_reductions.py)
    assert fn(dyngrad.ones(0, dtype=dyngrad.int64)).item() == -(2**63)


def test_allclose_refuses_what_pytorch_refuses():
    x = dyngrad.ones(2)
    with pytest.raises(RuntimeError, match="^rtol must be greater than or equal to zero, but got -1$"):
        dyngrad.allclose(x, x, rtol=-1)
    with pytest.raises(RuntimeError, match="^atol must be greater than or equal to zero"):
        dyngrad.allclose(x, x, atol=-1e-3)
    with pytest.raises(RuntimeError, match="^Float did not match Double$"):
        dyngrad.allclose(x, dyngrad.ones(2, dtype=dyngrad.float64))
    with pytest.raises(RuntimeError, match="^Float did not match Long$"):
        x.allclose(dyngrad.ones(2, dtype=dyngrad.int64))
    for other in (1.0, [1.0, 1.0]):
        with pytest.raises(TypeError, match=r"^allclose\(\): argument 'other' \(position 2\) must be Tensor"):
            dyngrad.allclose(x, other)
    with pytest.raises(RuntimeError):
        dyngrad.allclose(x, dyngrad.ones(3))
    assert dyngrad.allclose(x, x + 1e-7) and not dyngrad.allclose(x, x + 1e-3)


@pytest.mark.parametrize("call,msg", [
    (lambda: dyngrad.eye(-1), "^n must be greater or equal to 0, got -1$"),
    (lambda: dyngrad.eye(2, -3), "^m must be greater or equal to 0, got -3$"),
    (lambda: dyngrad.ones(2).new_zeros(-1), r"^Trying to create tensor with negative dimension -1: \[-1\]$"),
    (lambda: dyngrad.ones(2).new_ones((2, -3)), "negative dimension -3"),
    (lambda: dyngrad.ones(2).new_empty(-1), "negative dimension -1"),
    (lambda: dyngrad.ones(2).new_full((-1,), 1.0), "negative dimension -1"),
])
def test_negative_sizes_raise_runtime_error(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call()


@pytest.mark.parametrize("call,msg", [
    (lambda: dyngrad.nn.functional.hardshrink(dyngrad.ones(2), "a"),
     r"^hardshrink\(\): argument 'lambd' \(position 2\) must be Number, not str$"),
    (lambda: dyngrad.logit(dyngrad.ones(2), "a"), r"^logit\(\): argument 'eps' \(position 2\) must be float, not str$"),
    (lambda: dyngrad.logit(dyngrad.ones(2), [1]), "must be float, not list"),
])
def test_non_number_parameters_raise_type_error(call, msg):
    with pytest.raises(TypeError, match=msg):
        call()


def test_numbers_still_accepted_by_hardshrink_and_logit():
    assert dyngrad.nn.functional.hardshrink(dyngrad.tensor([1.0, 0.2]), 1).tolist() == [0.0, 0.0]
    assert dyngrad.logit(dyngrad.tensor([0.0]), 0.25).item() == pytest.approx(-1.0986123, rel=1e-6)


def test_polygamma_in_place_error_does_not_name_a_lambda():
    with pytest.raises(RuntimeError) as e:
        dyngrad.ones(2, dtype=dyngrad.int64).polygamma_(1)
    assert str(e.value).startswith("polygamma_: ") and "lambda" not in str(e.value)
