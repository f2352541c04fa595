"""``dyngrad check`` at a kink (ReLU's or abs's x = 0): finite differences straddle it, so the
gradient and double-backward checks cannot pass there whatever backward returns. The report
says so, names the entry and its one-sided slopes, and re-checks with the entry moved off the
kink: a warning when backward is right there, a failure ("fix backward's formula") when not,
instead of telling the user to fix a correct backward."""

from __future__ import annotations

import dyngrad
from dyngrad.autograd.checker import check_function
from dyngrad.cli import main


class KinkReLU(dyngrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x > 0)


class KinkAbs(dyngrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.abs()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.sign()


class WrongReLU(KinkReLU):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * (x > 0)  # twice the slope: wrong everywhere x > 0



def test_relu_at_zero_warns_about_the_kink_instead_of_failing() -> None:
    report = check_function(KinkReLU, dyngrad.tensor([0.0, 1.0, -1.0], dtype=dyngrad.float64, requires_grad=True))
    text = str(report)
    assert report.ok, text
    assert "sit on a kink" in text and "x[0] = 0 (slope 0 from the left, 1 from the right)" in text
    assert "backward is right away from the kink" in text
    assert "fix backward's formula" not in text and "second derivative is wrong" not in text
    assert "does backward return a gradient" not in text


def test_abs_at_zero_double_backward_warns() -> None:
    report = check_function(KinkAbs, dyngrad.tensor([[0.0, 2.0]], dtype=dyngrad.float64, requires_grad=True))
    text = str(report)
    assert report.ok, text
    assert "x[0, 0] = 0 (slope -1 from the left, 1 from the right)" in text
    assert "the second derivative cannot be checked" in text


def test_a_wrong_backward_at_a_kink_still_fails() -> None:
    report = check_function(WrongReLU, dyngrad.tensor([0.0, 1.0], dtype=dyngrad.float64, requires_grad=True))
    text = str(report)
    assert not report.ok
    assert "sit on a kink" in text and "it still fails: fix backward's formula" in text


def test_away_from_kinks_the_report_is_unchanged() -> None:
    report = check_function(KinkReLU, dyngrad.tensor([0.5, 1.0, -1.0], dtype=dyngrad.float64, requires_grad=True))
    assert report.ok and "kink" not in str(report)
    report = check_function(WrongReLU, dyngrad.tensor([0.5, 1.0], dtype=dyngrad.float64, requires_grad=True))
    assert not report.ok and "fix backward's formula" in str(report) and "kink" not in str(report)


def test_the_cli_exit_code_at_a_kink(tmp_path, capsys) -> None:
    f = tmp_path / "fns.py"
    f.write_text(
        "import dyngrad\n"
        "class R(dyngrad.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x.clamp(min=0)\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        (x,) = ctx.saved_tensors\n"
        "        return g * (x > 0)\n"
    )
    assert main(["check", f"{f}:R", "--inputs", "tensor([0.0, 1.0])"]) == 0
    out = capsys.readouterr().out
    assert "sit on a kink" in out and "choose example inputs off it" in out
