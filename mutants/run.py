"""``python -m mutants [--only ID …] [--jobs N] [--library-only]``: plant each mutant of
``set.yaml`` in a copy of mini_agent and run, against it, the scenario library
(``harness run scenarios/``) and the CI property profile (``pytest harness/library/properties tests/properties``),
each in a child process with the copy first on ``PYTHONPATH``. A mutant is killed by a
suite that fails. Prints a table and the kill rate of each suite, separately and
together, and writes ``mutants/results.json``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .plant import Mutant, load_mutants, plant

LIBRARY = [sys.executable, "-P", "-m", "harness", "run", "scenarios/"]
PROPERTIES = [sys.executable, "-P", "-m", "pytest", "harness/library/properties", "tests/properties", "-q", "-x", "-p", "no:cacheprovider"]
TIMEOUT = 900


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", metavar="ID", help="these mutants only")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run side by side (default: 2)")
    parser.add_argument("--library-only", action="store_true", help="skip the properties")
    args = parser.parse_args(argv)
    mutants = [m for m in load_mutants() if not args.only or m.id in args.only]
    unknown = set(args.only or ()) - {m.id for m in mutants}
    if unknown:
        print(f"no such mutant: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(lambda m: _try(m, properties=not args.library_only), mutants))
    _report(rows, time.monotonic() - started)
    (Path(__file__).parent / "results.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


def _try(mutant: Mutant, *, properties: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.id}-") as tmp:
        folder = plant(mutant, Path(tmp) / "project")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")])),
               "HYPOTHESIS_PROFILE": "ci", "HARNESS_FOUND_DIR": str(Path(tmp) / "found")}
        library = _killed(LIBRARY, env, folder)
        props = _killed(PROPERTIES + ["--harness-found-dir", str(Path(tmp) / "found")], env, folder) if properties else None
    row = {"id": mutant.id, "why": mutant.why, "library": library, "properties": props, "equivalent": mutant.equivalent}
    print(f"{mutant.id}: library {_word(library)}, properties {_word(props)}", flush=True)
    return row


def _killed(command: list[str], env: dict[str, str], folder: Path) -> bool:
    try:
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return True  # a hang is caught too: CI would not finish
    return done.returncode != 0


def _word(killed: bool | None) -> str:
    return "—" if killed is None else "killed" if killed else "SURVIVED"


def _report(rows: list[dict[str, object]], seconds: float) -> None:
    counted = [r for r in rows if not r["equivalent"]]
    width = max((len(str(r["id"])) for r in rows), default=10)
    print(f"\n{'mutant'.ljust(width)}  library   properties  either")
    for r in rows:
        either = bool(r["library"]) or bool(r["properties"])
        mark = "  (equivalent)" if r["equivalent"] else ""
        print(f"{str(r['id']).ljust(width)}  {_word(r['library']):8}  {_word(r['properties']):10}  {_word(either)}{mark}")
    for name in ("library", "properties"):
        ran = [r for r in counted if r[name] is not None]
        if ran:
            killed = sum(bool(r[name]) for r in ran)
            print(f"{name}: {killed}/{len(ran)} killed ({100 * killed / len(ran):.0f}%)")
    both = sum(bool(r["library"]) or bool(r["properties"]) for r in counted)
    print(f"library + properties: {both}/{len(counted)} killed ({100 * both / max(1, len(counted)):.0f}%), {seconds:.0f}s")
