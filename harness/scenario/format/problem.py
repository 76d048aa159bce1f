"""What fails a run or a file, as a record: what is wrong, which kind of rule it breaks,
and where — from the check that finds it to every report (terminal, timeline, JSON,
HTML, JUnit), so no report reads a line number back out of a sentence.

| kind | who finds it | where it points |
|---|---|---|
| ``FILE_MISTAKE`` | the loader: a key, a value, YAML that does not parse | ``file``, ``line``, ``col`` |
| ``API_RULE`` | the fake API: a request the Messages API would refuse (the oracle's 400, a body that is not JSON) | ``request``, ``turn`` |
| ``EXPECTATION`` | what the file's ``expect`` said did not hold | ``file``, ``line`` of the key, ``turn`` |
| ``INVARIANT`` | what every run must satisfy did not hold (a retry too early, a reply never used …) | ``turn``, ``request`` |
| ``PROPERTY`` | a property test's own check (``run_and_record(checks=…)``) | what the check says |
| ``HARNESS`` | the harness's own trouble: a reply it cannot serve, a bug while answering | ``line`` of the reply, ``request`` |

``str(problem)`` is the sentence people read: a file mistake as compilers print it,
``file:line:col: text``; any other problem's ``text`` is its whole sentence (the check
names the turn and request in it, as people read them).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, replace
from enum import StrEnum


class Kind(StrEnum):
    """Which kind of rule a problem breaks (its value is the JSON reports' ``kind``)."""

    FILE_MISTAKE = "file_mistake"
    API_RULE = "api_rule"
    EXPECTATION = "expectation"
    INVARIANT = "invariant"
    PROPERTY = "property"
    HARNESS = "harness"


@dataclass(frozen=True)
class Problem:
    """One thing that fails a run or a file; ``turn`` and ``request`` count from 1,
    ``line`` and ``col`` are the scenario file's (None: not known)."""

    text: str
    kind: Kind
    _: KW_ONLY
    file: str | None = None
    line: int | None = None
    col: int | None = None
    turn: int | None = None
    request: int | None = None

    @classmethod
    def at(cls, pos: tuple[int, int], text: str) -> Problem:
        """A mistake at ``(line, col)`` of a file (the loader adds which file)."""
        line, col = pos
        return cls(text, Kind.FILE_MISTAKE, line=line, col=col)

    def __str__(self) -> str:
        if self.kind is not Kind.FILE_MISTAKE:
            return self.text
        where = ":".join(str(part) for part in (self.file, self.line, self.col) if part is not None)
        return f"{where}: {self.text}" if where else self.text

    def in_file(self, file: str) -> Problem:
        """The same problem, naming the file it is in."""
        return replace(self, file=file)

    def under(self, label: str) -> Problem:
        """The same problem, its sentence prefixed with ``label:`` (a session, a turn)."""
        return replace(self, text=f"{label}: {self.text}")
