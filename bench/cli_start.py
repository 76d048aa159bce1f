"""How fast the commands that need no SDK start: each run as a user runs it, in a fresh
process on one small input, against ``python -c "import anthropic"`` measured in the same
rounds (interleaved, the median of each).

The target for each: 0.3 s of wall time, or a fifth of importing the SDK (a slow day moves
both). Importing ``anthropic`` is the floor every other command pays once.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SCENARIO = "scenarios/http/overloaded_then_success.yaml"
CASSETTE = "cassettes/loopback_read_readme.yaml"
COMMANDS = {
    "--help": ["--help"],
    "lint": ["lint", SCENARIO],
    "show": ["lint", "--show-commands", SCENARIO],
    "events": ["events", SCENARIO],
    "scan": ["scan", CASSETTE],
    "check-history": ["check-history", "{history}"],
}
TARGET_S = 0.3
TARGET_SHARE_OF_IMPORT = 0.2


def measure(tmp: Path, rounds: int) -> dict[str, Any]:
    """Wall seconds (median of ``rounds``) of each command and of importing the SDK, and
    the slowest command over its allowance (the larger of the two targets: 1.0 meets both)."""
    history = tmp / "history.json"
    history.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    runs = {name: [sys.executable, "-m", "harness", *(a.format(history=history) for a in argv)] for name, argv in COMMANDS.items()}
    runs["import anthropic"] = [sys.executable, "-c", "import anthropic"]
    samples: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for r in range(rounds + 1):  # the first round warms the file system cache, and is not counted
        for name in names[r % len(names):] + names[: r % len(names)]:
            started = time.perf_counter()
            done = subprocess.run(runs[name], capture_output=True, check=False)
            if done.returncode not in (0, 1):
                raise RuntimeError(f"{name}: exit {done.returncode}: {done.stderr.decode()[-500:]}")
            if r:
                samples[name].append(time.perf_counter() - started)
    sdk = statistics.median(samples.pop("import anthropic"))
    seconds = {name: round(statistics.median(s), 3) for name, s in samples.items()}
    allowance = max(TARGET_S, TARGET_SHARE_OF_IMPORT * sdk)
    return {
        "import_anthropic_s": round(sdk, 3),
        "s": seconds,
        "over_import": {name: round(s / sdk, 3) for name, s in seconds.items()},
        "allowance_s": round(allowance, 3),
        "slowest_over_allowance": round(max(seconds.values()) / allowance, 3),
    }
