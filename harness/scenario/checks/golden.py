"""Golden transcripts: the REPL output of a scenario, kept in a file beside it.

``HARNESS_UPDATE_GOLDEN=1`` (or ``harness run --update-golden``) writes them anew.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from harness.wire.files import write_atomically

UPDATE_VARIABLE = "HARNESS_UPDATE_GOLDEN"


def compare_transcript(path: Path, actual: str) -> list[str]:
    """Problems when ``actual`` differs from the golden file (which is written when updating)."""
    try:
        if os.environ.get(UPDATE_VARIABLE) == "1":
            write_atomically(path, actual)
            return []
        if not path.exists():
            return [f"expect.transcript: {path} does not exist (`harness run --update-golden` or `pytest --update-golden` "
                    f"writes it; {UPDATE_VARIABLE}=1 too)"]
        expected = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [f"expect.transcript: {path}: cannot use it: {error}"]
    if expected == actual:
        return []
    diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), str(path), "this run", lineterm="")
    return [f"expect.transcript: the transcript differs from {path}:\n" + "\n".join("    " + l for l in diff)]
