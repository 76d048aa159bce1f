"""Every path a scenario file names, confined.

- ``workspace:`` keys name files inside the run's fresh temporary folder: relative, no
  ``..``, not empty, not a folder, and no file that another key needs as a folder.
- ``cassette:`` and ``expect.transcript`` are relative to the scenario and must stay
  inside its project: the nearest folder above the scenario that holds a project file
  (``pyproject.toml``, ``.git``, ``setup.cfg`` …), else the scenario's own folder.
  ``..`` may climb within it (``../../cassettes/x.yaml``); absolute paths, and symlinks
  that lead out of it, are refused.

``path_problems`` reports breaches as ``Problem`` s at the key's ``line:col`` (lint
shows them); ``confined`` is the same rule at the moment of writing or reading, so a
scenario object built in Python cannot reach outside either.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Mapping

from harness.library import ROOT as LIBRARY_ROOT
from harness.scenario.format.problem import Problem
from harness.wire.errors import HarnessError

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", ".git")
WORKSPACE_RULE = "workspace keys are paths relative to the temporary workspace, without `..`"
PROJECT_RULE = "paths are relative to the scenario and stay inside its project"


class PathEscape(HarnessError, ValueError):
    """A path that would lead outside the folder it must stay in."""


def workspace_key_problem(key: Any) -> str | None:
    """Why ``key`` cannot name a file in the workspace, or None when it can."""
    if not isinstance(key, str) or not key.strip():
        return f"a workspace key must name a file, got {key!r} ({WORKSPACE_RULE})"
    if "\x00" in key:
        return f"the workspace key {key!r} holds a NUL byte"
    path = PurePosixPath(key)
    if path.is_absolute() or key.startswith("~") or (len(key) > 1 and key[1] == ":"):
        return f"the workspace key {key!r} is an absolute path ({WORKSPACE_RULE})"
    if ".." in path.parts or ".." in PurePosixPath(key.replace("\\", "/")).parts:
        return f"the workspace key {key!r} climbs out with `..` ({WORKSPACE_RULE})"
    if key.endswith(("/", "\\")) or path.parts[-1:] in ((), (".",)):
        return f"the workspace key {key!r} names a folder, not a file"
    return None


def workspace_conflicts(keys: Iterable[str]) -> dict[str, str]:
    """Keys whose parent folder another key makes a file: ``{key: the file key}``."""
    files = {PurePosixPath(k).as_posix(): k for k in keys}
    conflicts = {}
    for normal, key in files.items():
        for parent in PurePosixPath(normal).parents:
            if parent.as_posix() in files:
                conflicts[key] = files[parent.as_posix()]
                break
    return conflicts


def confined(root: Path, relative: str, *, base: Path | None = None, rule: str = PROJECT_RULE) -> Path:
    """``(base or root) / relative`` resolved, symlinks followed; PathEscape if it
    leaves ``root``."""
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        raise PathEscape(f"{relative!r} is not a usable path ({rule})")
    if Path(relative).is_absolute() or relative.startswith("~"):
        raise PathEscape(f"{relative!r} is an absolute path ({rule})")
    fence = root.resolve()
    target = ((base or root).resolve() / relative).resolve()
    if target != fence and fence not in target.parents:
        raise PathEscape(f"{relative!r} leads to {target}, outside {fence} ({rule})")
    return target


def in_workspace(workspace: Path, key: str) -> Path:
    """The file ``key`` names in ``workspace``; PathEscape for a key the rules refuse."""
    problem = workspace_key_problem(key)
    if problem:
        raise PathEscape(problem)
    return confined(workspace, key, rule=WORKSPACE_RULE)


def project_root(scenario_path: Path) -> Path:
    """The nearest folder above the scenario holding a project file (or the folder of the
    installed scenario library, ``harness.library``), else its own folder."""
    folder = scenario_path.resolve().parent
    for candidate in (folder, *folder.parents):
        if candidate == LIBRARY_ROOT or any((candidate / marker).exists() for marker in PROJECT_MARKERS):
            return candidate
    return folder


def path_problems(path: Path, document: Mapping[str, Any]) -> list[Problem]:
    """The path rules over a checked scenario document (with positions)."""
    problems = []
    workspace = document.get("workspace") or {}
    key_pos = getattr(workspace, "key_pos", {})
    for key in workspace:
        problem = workspace_key_problem(key)
        if problem:
            problems.append(Problem.at(key_pos.get(key, (1, 1)), f"`workspace`: {problem}"))
    if not problems:
        for key, file_key in workspace_conflicts(workspace).items():
            message = f"`workspace`: {key!r} needs {file_key!r} to be a folder, but it is a file here"
            problems.append(Problem.at(key_pos.get(key, (1, 1)), message))
    expect = document.get("expect") or {}
    files = expect.get("files") or {}
    for key in files:
        problem = workspace_key_problem(key)
        if problem:
            where = getattr(files, "key_pos", {}).get(key, (1, 1))
            problems.append(Problem.at(where, f"`expect.files`: {problem}"))
    root = project_root(path)
    for holder, key in ((document, "cassette"), (expect, "transcript")):
        if key in holder:
            try:
                confined(root, holder[key], base=path.parent)
            except PathEscape as error:
                where = getattr(holder, "value_pos", {}).get(key, (1, 1))
                problems.append(Problem.at(where, f"`{key}`: {error}"))
    return problems


def project_path(scenario_path: Path, relative: str) -> Path:
    """A ``cassette:`` or ``transcript:`` path of the scenario at ``scenario_path``,
    resolved; PathEscape when it leaves the scenario's project."""
    return confined(project_root(scenario_path), relative, base=scenario_path.parent)


def write_workspace(workspace: Path, files: Mapping[str, Any]) -> None:
    """Create the scenario's files in ``workspace``; PathEscape, before anything is
    written, for a key the rules refuse or a file another key needs as a folder."""
    for key in files:
        in_workspace(workspace, key)
    conflicts = workspace_conflicts(files)
    if conflicts:
        key, file_key = next(iter(conflicts.items()))
        raise PathEscape(f"the workspace key {key!r} needs {file_key!r} to be a folder, but it is a file")
    for key, content in files.items():
        target = in_workspace(workspace, key)  # again: a folder made just now may not be a link out
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(str(content), encoding="utf-8")


MAX_SEED_BYTES = 1024 * 1024 * 1024


def copy_into(source: Path, workspace: Path, *, max_bytes: int = MAX_SEED_BYTES) -> list[str]:
    """Copy the regular files and folders under ``source`` into ``workspace`` (a fresh
    folder), so that tools run on the copy and ``source`` is never written. A symlink is
    copied as what it points to when that stays inside ``source``, else left out, as are
    FIFOs, sockets and devices; returns what was left out. PathEscape past ``max_bytes``."""
    source = source.resolve()
    if not source.is_dir():
        raise PathEscape(f"{source}: not a folder to copy the workspace from")
    left_out: list[str] = []
    total = 0
    for folder, subfolders, files in os.walk(source):
        here = Path(folder)
        relative = here.relative_to(source)
        (workspace / relative).mkdir(parents=True, exist_ok=True)
        for name in list(subfolders):
            if (here / name).is_symlink():
                subfolders.remove(name)
                left_out.append((relative / name).as_posix())
        for name in files:
            path = here / name
            real = path.resolve()
            if (path.is_symlink() and source not in real.parents) or not real.is_file():
                left_out.append((relative / name).as_posix())
                continue
            total += real.stat().st_size
            if total > max_bytes:
                raise PathEscape(f"{source} holds more than {max_bytes:,} bytes: too much to copy into a workspace")
            shutil.copyfile(real, workspace / relative / name)
    return left_out
