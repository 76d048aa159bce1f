"""Reading the mutant set and planting one mutant in a copy of mini_agent."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SET = Path(__file__).resolve().parent / "set.yaml"


@dataclass(frozen=True)
class Edit:
    file: str  # under mini_agent/
    find: str
    replace: str


@dataclass(frozen=True)
class Mutant:
    id: str
    why: str
    edits: tuple[Edit, ...]
    equivalent: str | None = None


class MutantError(ValueError):
    """A mutant whose text to replace is not in the source exactly once."""


def load_mutants(path: Path = SET) -> list[Mutant]:
    """The mutants of the set, in order."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Mutant(m["id"], m["why"], tuple(Edit(**e) for e in m["edits"]), m.get("equivalent"))
        for m in data["mutants"]
    ]


def check_applies(mutant: Mutant, source: Path = ROOT / "mini_agent") -> None:
    """MutantError unless every edit's text occurs exactly once in its file."""
    for edit in mutant.edits:
        count = (source / edit.file).read_text(encoding="utf-8").count(edit.find)
        if count != 1:
            raise MutantError(f"{mutant.id}: {edit.file} holds {count} copies of {edit.find!r}, not one")


COPIED = ("harness", "mini_agent", "examples", "scenarios", "cassettes", "tests", "conftest.py", "pyproject.toml")


def plant(mutant: Mutant, folder: Path) -> Path:
    """A copy of the project with ``mutant`` in its mini_agent, under ``folder``: the
    folder to run the suites in, first on PYTHONPATH (pytest puts a rootdir with a
    conftest.py first on the path too, so the copy is a whole one)."""
    check_applies(mutant)
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__", "found"))
        elif source.exists():
            shutil.copy2(source, folder / name)
    target = folder / "mini_agent"
    for edit in mutant.edits:
        path = target / edit.file
        path.write_text(path.read_text(encoding="utf-8").replace(edit.find, edit.replace), encoding="utf-8")
    return folder
