"""The ``dyngrad`` command line: dispatch, help, unknown commands, ``python -m dyngrad``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dyngrad.cli import main


def test_no_command_prints_usage_and_returns_2(capsys):
    assert main([]) == 2
    assert "usage: dyngrad" in capsys.readouterr().err


def test_help_lists_the_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "demo" in out and "check" in out


def test_unknown_command_returns_2(capsys):
    assert main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_demo_help_exits_0(capsys):
    assert main(["demo", "--help"]) == 0
    out = capsys.readouterr().out
    for opt in ("--epochs", "--seed", "--out", "--quick"):
        assert opt in out


def test_demo_bad_option_returns_2(capsys):
    assert main(["demo", "--epochs", "many"]) == 2


def test_check_is_dispatched_to_the_checker(monkeypatch):
    import dyngrad.autograd.checker as checker

    seen = []
    monkeypatch.setattr(checker, "main", lambda argv: seen.append(argv) or 0, raising=False)
    assert main(["check", "file.py", "--x"]) == 0
    assert seen == [["file.py", "--x"]]


@pytest.mark.slow  # over 2 s (a fresh interpreter imports dyngrad): runs in .ci/run's slow step
def test_python_dash_m_dyngrad_runs_the_cli():
    r = subprocess.run([sys.executable, "-m", "dyngrad", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("dyngrad ")
