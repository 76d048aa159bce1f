"""Finding scenario files: paths may name files or folders (searched for ``*.yaml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

SCENARIO_SUFFIXES = (".yaml", ".yml")


def scenario_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every scenario file under ``paths``, sorted; FileNotFoundError for a missing path."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file())
        elif path.is_file():
            found.append(path)
        elif path.exists():
            raise FileNotFoundError(f"{path}: not a regular file (a FIFO, a socket or a device); a scenario is a YAML file")
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
    return found
