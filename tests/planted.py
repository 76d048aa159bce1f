"""Planting a bug in a copy of an agent (mini_agent, or the agents in ``examples/``): the
copy goes first on ``PYTHONPATH`` of a child process, so the harness (unchanged) meets a
broken agent. Nothing of the project is patched in this process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def planted_copy(folder: Path, module: str, old: str, new: str, package: str = "mini_agent") -> Path:
    """A copy of ``package`` (a folder at the repository's root) in ``folder`` with ``old``
    replaced by ``new`` in ``module`` (a path inside it); the folder to put first on PYTHONPATH."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / package, folder / package, ignore=shutil.ignore_patterns("__pycache__"))
    target = folder / package / module
    text = target.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{module}: the text to replace must occur once: {old!r}"
    target.write_text(text.replace(old, new), encoding="utf-8")
    return folder


def harness_with(path_first: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -P -m harness ARGS`` from the repository root (``-P``: the root itself is
    not on the path), ``path_first`` leading PYTHONPATH."""
    env = dict(os.environ)
    if path_first is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path_first), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run(
        [sys.executable, "-P", "-m", "harness", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
