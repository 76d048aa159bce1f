"""The names a user chooses among when recording or replaying, kept apart from vcrpy so
that the command line can offer them without loading it: the record modes, and the
ways a request is matched with its recording (each a list of vcrpy matcher names)."""

from __future__ import annotations

RECORD_MODES = ("none", "once", "new_episodes", "all")
MATCHING = {"body": ("method", "path", "harness_body"), "order": ("method", "path")}
