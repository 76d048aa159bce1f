"""The scenario library, the cassettes it builds on and the agent-neutral properties,
installed with the harness, so a project tests its own agent with no clone of this one:

    harness run --library --agent my_pkg.agent:make          the scenario library
    pytest --harness-library --harness-agent my_pkg.agent:make        the same, as pytest items
    pytest --harness-properties --harness-agent my_pkg.agent:make     the properties

``SCENARIOS``, ``CASSETTES`` and ``PROPERTIES`` are where they are installed (in this
repository, ``scenarios/`` and ``cassettes/`` at its top are links to them). The folder
of this package is a scenario project of its own: the paths its scenarios name stay
inside it (``harness.scenario.format.sandbox``).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent
SCENARIOS = ROOT / "scenarios"
CASSETTES = ROOT / "cassettes"
PROPERTIES = ROOT / "properties"
