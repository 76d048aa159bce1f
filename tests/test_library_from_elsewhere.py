"""The library and the properties installed with the harness run as pytest items from any
project's folder (``--harness-library``, ``--harness-properties``), an editable install of
this repository included: its root conftest defines no ``pytest_plugins``, which pytest
refuses in a conftest that is not the session's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(("option", "item"), [("--harness-library", "overloaded_then_success.yaml"),
                                              ("--harness-properties", "test_session_machine.py")])
def test_the_installed_library_is_collected_from_another_project(tmp_path: Path, option: str, item: str) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\nversion = '0'\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", option, "--co", "-q", "-p", "no:cacheprovider", "--harness-agent",
         "examples.careful_agent:make_agent"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert item in run.stdout
