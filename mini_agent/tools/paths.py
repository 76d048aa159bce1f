"""Resolve a path the model gave against the tools' working directory."""

from __future__ import annotations

from pathlib import Path


def resolve(file_path: str, cwd: Path) -> Path:
    """``file_path`` as an absolute path: ``~`` expanded, relative paths taken from ``cwd``."""
    return (cwd / Path(file_path).expanduser()).absolute()
