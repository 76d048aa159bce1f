"""The harness's exceptions share one root, ``HarnessError``: a caller (the CLI, a user's
script, a test) catches everything the harness says about its input in one ``except``.
Where a built-in meaning matters to callers, a class keeps that base too (a bad file is
still a ``ValueError``, a failed replay still an ``AssertionError`` to pytest).

    HarnessError
    ├── bad input: what the harness was given
    │   ├── ScenarioError        a scenario file with mistakes (``file:line:col`` each)
    │   │   └── YamlError        its YAML does not parse
    │   ├── LimitsError          a ``--limits`` file with mistakes
    │   ├── PathEscape           a path that leaves its folder
    │   ├── ListingError         ``harness events`` asked for a turn or reply the file lacks
    │   ├── CassetteError        a cassette that cannot be read
    │   ├── HistoryFileError     a saved conversation that cannot be read
    │   ├── RulesFileError       a redaction rules file with mistakes
    │   ├── AgentSpecError       an agent name that leads to no factory, or a factory that fails
    │   ├── ToolMapError         an agent's ``tool_map`` that does not fit the standard tools
    │   ├── ToolMapFileError     a ``--tool-map`` file with mistakes
    │   ├── AgeError             a maximum age or a recording date that is not one
    │   ├── CassetteMissing      replaying a cassette that is not there
    │   ├── NotReadable          a file that is not a regular, readable file
    │   ├── TooDeep              a JSON body nested past the limit
│   └── AliasBomb            YAML whose aliases would blow up when written out
    ├── a fault that cannot be served
    │   ├── PositionError        a fault aimed beyond its reply's events or bytes
    │   └── NoJsonForm           a stream fault asked of a request without ``stream``
    ├── recording and replay
    │   ├── RecordingFailed      nothing written (``NothingRecorded``: no answered request)
    │   ├── SecretsFound         the scanner found secrets in what was to be written
    │   ├── RedactionError       a body that cannot be redacted (fail closed)
    │   ├── NetworkBlocked       a connection tried during a replay
    │   └── ReplayMismatch       a request that differs from its recording
    ├── ServerError              the fault server cannot start (port taken …)
    ├── BadRequest               a request the fault server cannot read (answered 4xx)
    ├── WorkerError              a ``--jobs`` worker died
    └── failures of a run under test
        ├── ScenarioFailed       a scenario item whose checks did not hold
        └── Counterexample       a property's counterexample, saved as a scenario
"""

from __future__ import annotations


class HarnessError(Exception):
    """The root of every exception the harness raises on purpose."""
