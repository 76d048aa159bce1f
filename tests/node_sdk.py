"""The official TypeScript SDK (``@anthropic-ai/sdk``) for tests that drive the fault
server from Node: installed with npm from the registry into a temporary folder, then kept
in ``.cache/node-sdk/<version>`` (which ignores itself in git) for later runs; a test
skips, saying why, when node or npm is missing or the install fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

NODE_SDK_VERSION = "1.16.0"  # `npm view @anthropic-ai/sdk version`
CACHE = Path(__file__).resolve().parents[1] / ".cache" / "node-sdk"


def node_sdk_home() -> Path:
    """A folder whose ``node_modules`` holds @anthropic-ai/sdk (pytest.skip when it cannot be had)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node and npm must be on PATH to test against the TypeScript SDK")
    home = CACHE / NODE_SDK_VERSION
    if not (home / "node_modules" / "@anthropic-ai" / "sdk" / "package.json").exists():
        _install(npm, home)
    return home


def put_script(home: Path, name: str, text: str) -> Path:
    """``text`` as ``home/name``, written atomically (pytest-xdist workers may race here)."""
    script = home / f"{name}.{os.getpid()}.tmp"
    script.write_text(text)
    os.replace(script, home / name)
    return home / name


def _install(npm: str, home: Path) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / ".gitignore").write_text("*\n")
    staging = Path(tempfile.mkdtemp(prefix="install-", dir=CACHE))
    package = f"@anthropic-ai/sdk@{NODE_SDK_VERSION}"
    try:
        result = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(staging), package],
            capture_output=True, text=True, timeout=300,
        )
    except subprocess.TimeoutExpired:
        shutil.rmtree(staging, ignore_errors=True)
        pytest.skip(f"npm install {package} took over 300 s")
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        lines = [line for line in result.stderr.splitlines() if line.strip() and "complete log" not in line]
        why = next((line for line in lines if "error code" not in line), "no output")
        pytest.skip(f"npm install {package} failed: {why}")
    staging.chmod(0o755)
    try:
        staging.rename(home)
    except OSError:  # another worker installed it first
        shutil.rmtree(staging, ignore_errors=True)


