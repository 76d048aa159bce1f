"""What a check found: problems that fail a run, notes that are reported."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.scenario.format.problem import Problem


@dataclass
class Findings:
    """What the checks found: ``problems`` fail the run, ``notes`` are reported."""

    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __iadd__(self, other: Findings) -> Findings:
        self.problems += other.problems
        self.notes += other.notes
        return self
