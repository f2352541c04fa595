"""check_function and ``dyngrad check``: the seed examples pass every check; each broken
variant fails the right check with an actionable message; bad command lines exit 2."""

import os

import pytest

import dyngrad as torch
from dyngrad.autograd.checker import CHECKS, check_function, main, parse_inputs
from tests.autograd import fn_examples as E

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fn_examples.py")


def _inputs(*shapes, extra=()):
    torch.manual_seed(0)
    return tuple(torch.randn(*s) for s in shapes) + tuple(extra)


SEEDS = {
    "MyReLU": (E.MyReLU, _inputs((3, 4))),
    "SwishFunction": (E.SwishFunction, _inputs((5,), extra=(2.0,))),
    "CustomGradientFunc": (E.CustomGradientFunc, _inputs((4,))),
    "CustomBackward": (E.CustomBackward, _inputs((2, 3))),
    "ScalarOp": (E.ScalarOp, _inputs((2, 3), extra=(1.5,))),
    "MyDropout": (E.MyDropout, _inputs((8,))),
    "LeakyReLUFn": (E.LeakyReLUFn, _inputs((6,))),
    "MulAdd (broadcast)": (E.MulAdd, _inputs((3, 4), (4,))),
    "ExpInplace (mark_dirty)": (E.ExpInplace, _inputs((3,))),
    "NumpyBackward (once_differentiable)": (E.NumpyBackward, _inputs((3,))),
}


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_examples_pass_every_check(name):
    cls, ins = SEEDS[name]
    report = check_function(cls, *ins)
    assert report.ok, str(report)
    assert [r.name for r in report.results][: len(CHECKS)] == list(CHECKS)


def test_custom_activation_leaky_backward_fails_only_the_gradient_check_and_can_skip_it():
    ins = _inputs((6,))
    report = check_function(E.CustomActivation, *ins)
    assert [r.name for r in report.failed] == ["gradient"]
    assert "fix backward's formula" in report["gradient"].message
    assert check_function(E.CustomActivation, *ins, skip=("gradient",)).ok


BROKEN = {
    # class, inputs, failing check, words the message must contain
    "missing gradient": (E.MissingGradient, _inputs((3,), (3,)), "grad shapes/dtypes", ["'x'", "missing gradient"]),
    "too few gradients": (E.TooFewGradients, _inputs((3,), (3,)), "backward arity", ["forward takes 2", "(x, w)", "for w"]),
    "wrong shape": (E.WrongShape, _inputs((2, 3)), "grad shapes/dtypes", ["[3, 2]", "[2, 3]", "input's shape"]),
    "tensor on ctx": (E.TensorOnCtx, _inputs((3,)), "ctx tensors", ["ctx.x", "save_for_backward"]),
    "in-place without mark_dirty": (E.InplaceNoMarkDirty, _inputs((3,)), "in-place", ["'x'", "mark_dirty(x)"]),
    "wrong second derivative": (E.WrongSecondDerivative, _inputs((3,)), "double backward", ["once_differentiable", "Jacobian mismatch"]),
    "wrong gradient": (E.WrongGradient, _inputs((3,)), "gradient", ["finite differences", "numerical"]),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_variant_fails_the_right_check_with_an_actionable_message(name):
    cls, ins, check, words = BROKEN[name]
    report = check_function(cls, *ins)
    assert not report.ok
    row = report[check]
    assert row.status == "FAIL", str(report)
    for w in words:
        assert w in row.message, (w, row.message)


def test_tensor_on_ctx_also_fails_memory_released():
    report = check_function(E.TensorOnCtx, *_inputs((3,)))
    assert report["memory released"].status == "FAIL"
    assert "ctx.x" in report["memory released"].message


def test_wrong_second_derivative_passes_every_first_order_check():
    report = check_function(E.WrongSecondDerivative, *_inputs((3,)))
    assert [r.name for r in report.failed] == ["double backward"]


def test_a_backward_the_engine_rejects_skips_the_checks_it_blocks():
    report = check_function(E.WrongShape, *_inputs((2, 3)))
    assert report["gradient"].status == "skip"
    assert "not run: backward fails" in report["gradient"].message


def test_report_prints_a_table_and_a_verdict():
    text = str(check_function(E.MyReLU, *_inputs((3,))))
    assert text.splitlines()[0] == "dyngrad check MyReLU"
    assert "gradient" in text and "pass" in text and text.splitlines()[-1].startswith("OK")


def test_summary_counts_passed_failed_and_skipped_checks_apart():
    report = check_function(E.CustomActivation, *_inputs((6,)), skip=("gradient",))
    counts = {s: sum(r.status == s for r in report.results) for s in ("pass", "warn", "FAIL", "skip")}
    assert counts["skip"] >= 1  # the skipped gradient check is not counted as passed
    last = str(report).splitlines()[-1]
    assert last == (
        f"OK: {counts['pass']} passed, {counts['warn']} warned, {counts['FAIL']} failed, "
        f"{counts['skip']} skipped ({len(report.results)} checks)"
    )
    failing = str(check_function(E.WrongGradient, *_inputs((3,)))).splitlines()[-1]
    assert failing.startswith("FAILED: ") and " 0 failed" not in failing


def test_check_function_rejects_non_function_classes_and_unknown_skips():
    with pytest.raises(TypeError, match="not a subclass of dyngrad.autograd.Function"):
        check_function(E.NotAFunction, torch.randn(2))
    with pytest.raises(ValueError, match="unknown check"):
        check_function(E.MyReLU, torch.randn(2), skip=("nope",))


# ---------------------------------------------------------------------- parse_inputs


def test_parse_inputs_builds_tensors_and_plain_numbers():
    a, b, c, d = parse_inputs("randn(3,4), zeros(4), 2.5, tensor([[1, -2], [3, 4.5]])")
    assert a.shape == (3, 4) and b.shape == (4,) and c == 2.5
    assert d.dtype == torch.float64 and d.tolist() == [[1, -2], [3, 4.5]]
    (e,) = parse_inputs("rand(2, dtype=float64)")
    assert e.dtype == torch.float64


@pytest.mark.parametrize(
    "text",
    ["randn(3,", "__import__('os').system('true')", "os.system('x')", "randn(n)", "eval('1')",
     "randn(3, requires_grad=True)", "randn(-1)", "lambda: 0"],
)
def test_parse_inputs_rejects_anything_but_literal_calls(text):
    with pytest.raises(ValueError):
        parse_inputs(text)


# ---------------------------------------------------------------------- command line


def test_cli_exits_0_when_all_checks_pass(capsys):
    assert main([f"{EXAMPLES}:SwishFunction", "--inputs", "randn(5), 2.0"]) == 0
    assert "OK:" in capsys.readouterr().out


def test_cli_accepts_a_module_path_and_a_leading_check_word(capsys):
    assert main(["check", "tests.autograd.fn_examples:MyReLU", "--inputs", "randn(3,4)"]) == 0


def test_cli_exits_1_when_a_check_fails(capsys):
    assert main([f"{EXAMPLES}:WrongGradient", "--inputs", "randn(3)"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_cli_skip_option(capsys):
    assert main([f"{EXAMPLES}:CustomActivation", "--inputs", "randn(6)", "--skip", "gradient"]) == 0


@pytest.mark.parametrize(
    "argv, words",
    [
        (["no_such_module_xyz:Fn", "--inputs", "randn(3)"], "cannot import module 'no_such_module_xyz'"),
        ([f"{EXAMPLES}:NoSuchClass", "--inputs", "randn(3)"], "has no attribute 'NoSuchClass'"),
        ([f"{EXAMPLES}:NotAFunction", "--inputs", "randn(3)"], "is not a dyngrad.autograd.Function subclass"),
        ([f"{EXAMPLES}:MyReLU", "--inputs", "randn(3,"], "cannot parse --inputs"),
        ([f"{EXAMPLES}:MyReLU", "--inputs", "open('x')"], "unsupported call 'open'"),
        ([f"{EXAMPLES}:MyReLU", "--inputs", "randn(3)", "--skip", "nope"], "unknown --skip"),
        (["MyReLU", "--inputs", "randn(3)"], "expected module:FnClass"),
    ],
)
def test_cli_bad_input_gives_one_line_error_and_exit_2(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("dyngrad check: error:")


def test_top_level_cli_dispatches_check(capsys):
    from dyngrad.cli import main as cli_main

    assert cli_main(["check", f"{EXAMPLES}:CustomBackward", "--inputs", "randn(3)"]) == 0


def test_large_inputs_use_fast_mode_and_still_catch_a_wrong_gradient():
    torch.manual_seed(0)
    big = torch.randn(40, 30)
    ok = check_function(E.SwishFunction, big, 2.0)
    assert ok.ok and "fast mode" in ok["gradient"].message
    bad = check_function(E.WrongGradient, big)
    assert bad["gradient"].status == "FAIL" and "v^T J u" in bad["gradient"].message


def test_random_forward_is_checked_with_the_generator_replayed():
    report = check_function(E.MyDropout, *_inputs((8,)))
    assert report.ok and report["randomness"].status == "pass"
    with pytest.raises(KeyError):
        check_function(E.MyReLU, *_inputs((3,)))["randomness"]


# ---------------------------------------------------------------------- zero-size and dtypes


class TwoIn(torch.autograd.Function):
    """``x @ w``: a weight cannot be emptied along its first dim independently of x."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g @ w.t(), x.t() @ g


class RefusesEmpty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        if x.shape[0] == 0:
            raise ValueError("RefusesEmpty needs a non-empty batch")
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class BackwardBreaksOnEmpty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if x.shape[0] == 0:
            raise RuntimeError("backward cannot handle an empty batch")
        return 2 * x * g


class Float64Gradient(torch.autograd.Function):
    """Right values, but backward always returns float64 (visible only when checked in float32)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return (g * 3).double()


def test_matmul_with_a_weight_passes_zero_size_by_emptying_only_the_batch_input():
    report = check_function(TwoIn, *_inputs((3, 4), (4, 2)))
    assert report.ok, str(report)
    row = report["zero-size"]
    assert row.status == "pass"
    assert "'x' [0, 4]" in row.message and "does not accept 'w' [0, 2]" in row.message


def test_forward_refusing_every_zero_size_variant_makes_the_check_not_applicable():
    report = check_function(RefusesEmpty, *_inputs((3, 2)))
    row = report["zero-size"]
    assert row.status == "skip" and report.ok, str(report)
    assert "does not accept zero-size versions of these inputs" in row.message
    assert "needs a non-empty batch" in row.message


def test_backward_failing_on_an_accepted_zero_size_input_still_fails():
    report = check_function(BackwardBreaksOnEmpty, *_inputs((3, 2)))
    assert [r.name for r in report.failed] == ["zero-size"]
    assert "backward cannot handle an empty batch" in report["zero-size"].message


def test_float32_inputs_run_the_shape_and_dtype_checks_in_float32_and_say_so():
    report = check_function(TwoIn, *_inputs((3, 4), (4, 2)))
    assert report.dtype == "float32"
    assert report["grad shapes/dtypes"].dtype == "float32"
    assert "float32" in report["grad shapes/dtypes"].message
    for name in ("gradient", "double backward"):
        assert report[name].dtype == "float64"
    for name in ("non-contiguous", "zero-size", "memory released"):
        assert report[name].dtype == "float32"
    assert report["broadcasting"].dtype == "-"  # skipped
    text = str(report)
    assert "inputs in float32" in text and "dtype" in text.splitlines()[2]


def test_a_gradient_of_the_wrong_dtype_shows_up_when_checked_in_float32():
    x32 = _inputs((4,))[0]
    row = check_function(Float64Gradient, x32)["grad shapes/dtypes"]
    assert "cast to dyngrad.float32" in row.message, row.message
    row64 = check_function(Float64Gradient, x32.double())["grad shapes/dtypes"]
    assert row64.dtype == "float64" and "cast" not in row64.message


def test_cli_matmul_with_a_weight_exits_0_and_reports_the_dtype(capsys):
    target = "tests.autograd.test_checker:TwoIn"
    assert main([target, "--inputs", "randn(3,4, dtype=float32), randn(4,2, dtype=float32)"]) == 0
    out = capsys.readouterr().out
    assert "inputs in float32" in out and "zero-size           pass    float32" in out
    assert main([target, "--inputs", "randn(3,4, dtype=float64), randn(4,2, dtype=float64)"]) == 0
    assert "inputs in float64" in capsys.readouterr().out
