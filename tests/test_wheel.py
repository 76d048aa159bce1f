"""The package as a user installs it: a wheel built from the project's files, installed
into a fresh virtual environment outside the repository, runs the scenario library and
the properties against an agent of a shape none of the examples has
(``tests/wheel_agent.py``: sync, never streams, one tool of its own), with no false
alarm; a bug planted in that agent is still caught. The fresh environment takes its
dependencies from this one (a path in a ``.pth`` file), so nothing is downloaded."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AGENT = Path(__file__).with_name("wheel_agent.py")


def run(*argv: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The wheel and the fresh environment's python."""
    here = tmp_path_factory.mktemp("wheel")
    source = here / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("harness", "mini_agent"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "found"))
    found = source / "harness" / "library" / "scenarios" / "found"
    found.mkdir()
    (found / "local-counterexample.yaml").write_text("name: found-here\nturns: []\n")  # a local run's: never shipped
    built = run(sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "-q", "-w", here / "dist",
                cwd=source)
    assert built.returncode == 0, built.stderr
    wheel = next((here / "dist").glob("*.whl"))
    venv = here / "venv"
    made = run(sys.executable, "-m", "venv", venv, cwd=here)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    pip = run(python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel, cwd=here)
    assert pip.returncode == 0, pip.stderr
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=here).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return wheel, python


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's project: their agent, nothing of this repository."""
    shutil.copy(AGENT, tmp_path / "cat_agent.py")
    return tmp_path


def user_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HARNESS_AGENT", "HYPOTHESIS_PROFILE")}
    return env | {"PYTHONPATH": ".", "HYPOTHESIS_PROFILE": "quick"}


def test_the_wheel_ships_the_library_and_the_properties_and_no_local_counterexample(installed: tuple[Path, Path]) -> None:
    names = zipfile.ZipFile(installed[0]).namelist()
    library = ROOT / "harness" / "library" / "scenarios"
    ours = {f"harness/library/scenarios/{p.relative_to(library).as_posix()}" for p in library.rglob("*.yaml")
            if p.relative_to(library).parts[0] != "found"}
    assert ours and ours == {n for n in names if n.startswith("harness/library/scenarios/") and n.endswith(".yaml")}
    assert "harness/library/properties/test_session_machine.py" in names
    assert any(n.startswith("harness/library/cassettes/") and n.endswith(".yaml") for n in names)
    assert not [n for n in names if "/found/" in n or n.startswith(("tests/", "examples/"))]


def test_the_installed_harness_runs_the_library_against_a_new_shape_of_agent(installed, project: Path) -> None:
    python = installed[1]
    where = run(python, "-c", "import harness; print(harness.__file__)", cwd=project, env=user_env())
    assert str(python.parent.parent) in where.stdout, where.stdout + where.stderr
    library = run(python.parent / "harness", "run", "--library", "--agent", "cat_agent:make", cwd=project, env=user_env())
    assert library.returncode == 0, library.stdout[-4000:] + library.stderr
    assert "0 failed" in library.stdout and "not applicable: bad-data: the reply on line 8 is a fault that exists only in a stream" in library.stdout
    assert "the agent has no tool that runs a command" in library.stdout


def test_the_installed_properties_and_pytest_items_raise_no_false_alarm(installed, project: Path) -> None:
    python = installed[1]
    properties = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", "harness.library.properties",
                     "--harness-agent", "cat_agent:make", cwd=project, env=user_env())
    assert properties.returncode == 0, properties.stdout[-4000:] + properties.stderr
    items = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--harness-library", "--harness-agent",
                "cat_agent:make", "-k", "http or stream", cwd=project, env=user_env())
    assert items.returncode == 0 and " passed" in items.stdout, items.stdout[-4000:] + items.stderr


def test_a_bug_planted_in_the_new_agent_is_still_caught(installed, project: Path) -> None:
    agent = project / "cat_agent.py"
    agent.write_text(agent.read_text().replace('("retry-after-ms", 0.001), ("retry-after", 1.0)', "()"))
    found = run(installed[1].parent / "harness", "run", "--library", "--agent", "cat_agent:make", "-k", "retry_after",
                cwd=project, env=user_env())
    assert found.returncode == 1, found.stdout[-4000:] + found.stderr
    assert "which asked for retry-after" in found.stdout
