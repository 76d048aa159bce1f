"""The names a user chooses among when recording or replaying, kept apart from vcrpy so
that the command line can offer them without loading it.

Record modes, with pytest-recording's names and meaning:

    none          replay only: a request the cassette lacks fails, a missing cassette fails,
                  nothing goes out (the default in CI, where ``CI`` is set)
    once          record a cassette that does not exist yet; replay one that does (the
                  default elsewhere)
    new_episodes  replay what the cassette has, record what it lacks, add it
    all           record every request, replay none, add them to what the cassette had
    rewrite       record the session from scratch and replace the cassette

Matching: how a request finds its recording, each a list of vcrpy matcher names.
"""

from __future__ import annotations

from harness.cassette.age import in_ci

RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")
VCR_MODE = {"none": "none", "once": "once", "new_episodes": "new_episodes", "all": "all", "rewrite": "all"}
"""The vcrpy record mode each one runs on (``rewrite`` is ``all`` with nothing old kept)."""
MATCHING = {"body": ("method", "harness_path", "harness_body"), "order": ("method", "harness_path")}


def default_record_mode() -> str:
    """``none`` in CI (``CI`` set): a missing cassette fails there instead of going to the
    network; ``once`` elsewhere."""
    return "none" if in_ci() else "once"
