"""The hostile-input corpus: hand-made nasties in ``tests/nasty/`` (alias bombs, deep
nesting, control bytes, unhashable keys, bad regexes, escaping paths, corrupt cassettes,
FIFOs and folders where files belong, setsid daemons, recorded commands …) run through
``harness`` lint, run, replay, scan, check-history, record and schema, each in a child
process with a timeout (``tests/nasty_driver.py``). Nothing may end in a traceback or
hang, write outside the places named, leave a process running, or run a recorded
command outside a temporary workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_nasty_corpus_ends_in_clear_messages_and_leaves_nothing_behind(tmp_path: Path) -> None:
    report = tmp_path / "nasty.json"
    done = subprocess.run(
        [sys.executable, "-m", "tests.nasty_driver", "--json", str(report)],
        cwd=ROOT, capture_output=True, text=True, timeout=1500,
    )
    result = json.loads(report.read_text())
    counts = {k: result[k] for k in ("tracebacks", "hangs", "writes_outside", "orphans", "recorded_commands_outside")}
    print(f"{result['cases']} cases: {counts}, slowest {result['slowest']} s")
    assert result["cases"] >= 200
    assert counts == dict.fromkeys(counts, 0), json.dumps(result["problems"], indent=2)[:6000]
    assert done.returncode == 0, done.stderr[-2000:]


def test_every_hand_made_nasty_is_in_the_corpus(tmp_path: Path) -> None:
    from tests.nasty_driver import NASTY, cases

    named = {Path(arg).name for argv in cases(tmp_path) for arg in argv}
    committed = {p.name for folder in ("scenario_files", "cassettes", "histories") for p in (NASTY / folder).iterdir()}
    assert committed <= named and len(committed) >= 60

