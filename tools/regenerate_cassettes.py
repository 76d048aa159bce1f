"""Record cassettes/loopback_*.yaml again from the scenarios in cassettes/sources/.

Each source scenario is served by the fault server on 127.0.0.1 (a random port) and
mini_agent talks to it over the socket through vcrpy: what
``harness record --base-url http://127.0.0.1:PORT --cwd WORKSPACE -- LINE…`` does against
``harness serve``, on virtual time so that retry-after costs nothing.

    python tools/regenerate_cassettes.py [NAME…]      (all of them by default)
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.cassette.record import record_over_loopback

HERE = Path(__file__).resolve().parent.parent / "harness" / "library" / "cassettes"


def sources() -> list[Path]:
    """The scenarios cassettes are recorded from; each gives ``cassettes/<its stem>.yaml``."""
    return sorted((HERE / "sources").glob("*.yaml"))


def main(names: list[str]) -> int:
    for source in sources():
        if names and source.stem not in names:
            continue
        result = record_over_loopback(source, HERE / source.name, record_mode="rewrite")
        print(f"cassettes/{result.path.name}: {result.interactions} interaction(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
