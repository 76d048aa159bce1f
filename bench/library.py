"""The scenario library as a user runs it: in process (one scenario, the whole library,
and what the checks read from the wire cost of that), and under pytest with one worker
and with two (``pytest -n 2``), whose results must be the same."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

from harness.oracle import check_request
from harness.scenario.checks.expectations import check_expectations
from harness.scenario.checks.invariants import check_invariants
from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.scenario.frontends.progress import CtrlC, Progress
from harness.scenario.frontends.run import run_file
from harness.scenario.frontends.workers import run_in_workers
from harness.scenario.run.runner import run_scenario

from .timing import Samples, repeat

ROOT = Path(__file__).resolve().parent.parent
ONE_SCENARIO = ROOT / "scenarios" / "http" / "overloaded_then_success.yaml"
PYTEST_TIMEOUT = 600


def one_scenario(scale: float) -> dict[str, Any]:
    """One scenario run again and again, with and without loading its file."""
    scenario = load_scenario(ONE_SCENARIO)
    outcome = run_scenario(scenario)
    run = repeat(lambda: run_scenario(scenario), times=n_of(20, scale))
    load_and_run = repeat(lambda: run_scenario(load_scenario(ONE_SCENARIO)), times=n_of(20, scale))
    return {
        "file": str(ONE_SCENARIO.relative_to(ROOT)),
        "passed": outcome.passed,
        "requests": len(outcome.requests),
        "run_ms": ms(run),
        "load_and_run_ms": ms(load_and_run),
    }


def library(scale: float) -> dict[str, Any]:
    """Every file under scenarios/, loaded and run in this process, one after another."""
    files = scenario_files([ROOT / "scenarios"])
    outcomes: dict[str, Any] = {}

    def run_all() -> None:
        for path in files:
            try:
                outcomes[str(path.relative_to(ROOT))] = run_scenario(load_scenario(path)).passed
            except ScenarioError:
                outcomes[str(path.relative_to(ROOT))] = "invalid"

    samples = repeat(run_all, times=n_of(3, scale))
    in_workers = _in_workers(files, outcomes, scale)
    slowest = []
    for path in files:  # one more pass, timed per file (no collection before each), to name the slow ones
        cpu, wall = time.process_time(), time.perf_counter()
        _run_file(path)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        slowest.append((round(wall * 1000, 1), round(cpu * 1000, 1), str(path.relative_to(ROOT))))
    slowest.sort(reverse=True)
    return {
        "files": len(files),
        "passed": sum(v is True for v in outcomes.values()),
        "not_passed": sorted(k for k, v in outcomes.items() if v is not True),
        "s": {k: round(v / 1000, 3) for k, v in ms(samples).items()},
        "slowest_ms_wall_cpu": slowest[:5],
        "two_workers": in_workers,
    }


def _in_workers(files: list[Path], outcomes: dict[str, Any], scale: float) -> dict[str, Any]:
    """The library as ``harness run --jobs 2`` runs it: two workers forked from this
    process; the wall time, and whether every file ended as in one process (it must)."""
    found: dict[str, Any] = {}
    progress = Progress(len(files))
    progress.enabled = False

    def run_one(path: Path, ctrl_c: CtrlC) -> dict[str, Any]:
        return run_file(path, None)

    def run_all() -> None:
        records, _ = run_in_workers(files, run_one, progress, 2)
        found.update({str(Path(r["file"]).relative_to(ROOT)): _passed(r["result"]) for r in records})

    samples = repeat(run_all, times=n_of(3, scale))
    return {
        "s": {k: round(v / 1000, 3) for k, v in ms(samples).items()},
        "threads_at_fork": threading.active_count(),
        "identical_results": found == outcomes,
    }


def _passed(result: str) -> bool | str:
    return "invalid" if result == "broken" else result in ("pass", "skip", "n/a")  # as Outcome.passed: n/a has no problem


def wire_checks(scale: float) -> dict[str, Any]:
    """What the checks read from the wire cost: every library file run (CPU, the checks
    included), then its checks timed again alone on the same outcome: the oracle on
    every request body, the invariants, the expectations. ``on_over_off`` is the run
    over the run without them."""
    scenarios = []
    for path in scenario_files([ROOT / "scenarios"]):
        try:
            scenarios.append(load_scenario(path))
        except ScenarioError:
            continue
    runs: list[float] = []
    checks: list[float] = []
    for _ in range(n_of(3, scale)):
        started = time.process_time()
        outcomes = [run_scenario(scenario) for scenario in scenarios]
        runs.append(time.process_time() - started)
        started = time.process_time()
        for outcome in outcomes:
            _check_again(outcome)
        checks.append(time.process_time() - started)
    run, check = min(runs), min(checks)
    return {
        "scenarios": len(scenarios),
        "run_s_cpu": round(run, 3),
        "checks_s_cpu": round(check, 3),
        "on_over_off": round(run / max(run - check, 1e-9), 3),
    }


def _check_again(outcome: Any) -> None:
    for request in outcome.requests:
        if isinstance(request.conversation, dict):
            check_request(request.conversation)
    check_invariants(outcome)
    check_expectations(outcome)


def pytest_scale(files: list[Path] | None = None, *, rounds: int = 3) -> dict[str, Any]:
    """The library as pytest items, with one worker (``-p no:xdist``) and with two
    (``-n 2``), ``rounds`` times each, interleaved (the fastest of each counts: a shared
    machine only ever slows a run down): the wall times, and whether every item ended the
    same. Bytecode is cached in a temporary folder, warmed by a collection first, and the
    items' durations are kept there as a user's own runs keep them (the first one-worker
    run records them; the two workers hand out the slow items first by them); the
    project's folders are not written."""
    targets = [str(p) for p in (files or [ROOT / "scenarios"])]
    walls: dict[str, list[float]] = {"one_worker": [], "two_workers": []}
    results: dict[str, dict[str, str]] = {}
    start_ups: list[float] = []
    item_seconds: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-pytest-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPYCACHEPREFIX": f"{tmp}/pycache"}
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                f"--harness-durations={tmp}/durations.json"]
        subprocess.run([*base, "--collect-only", *targets], cwd=ROOT, env=env, capture_output=True, timeout=PYTEST_TIMEOUT)
        for _ in range(rounds):
            started = time.perf_counter()  # a worker's start-up: pytest, the plugins, the SDK's import, the collection
            subprocess.run([*base, "-p", "no:xdist", "--collect-only", *targets], cwd=ROOT, env=env, capture_output=True,
                           timeout=PYTEST_TIMEOUT)
            start_ups.append(time.perf_counter() - started)
            for name, options in (("one_worker", ["-p", "no:xdist"]), ("two_workers", ["-n", "2"])):
                junit = Path(tmp) / f"{name}.xml"
                started = time.perf_counter()
                done = subprocess.run([*base, *options, f"--junit-xml={junit}", *targets], cwd=ROOT, env=env,
                                      capture_output=True, text=True, timeout=PYTEST_TIMEOUT)
                walls[name].append(time.perf_counter() - started)
                outcomes = _junit_outcomes(junit) if junit.exists() else {"<no report>": done.stdout[-500:]}
                if results.setdefault(name, outcomes) != outcomes:
                    results[name] = {"<rounds differ>": name}
                if name == "one_worker" and junit.exists() and walls[name][-1] == min(walls[name]):
                    item_seconds = [float(case.get("time") or 0) for case in ElementTree.parse(junit).iter("testcase")]
    same = results["one_worker"] == results["two_workers"]
    one, two, start_up = min(walls["one_worker"]), min(walls["two_workers"]), min(start_ups)
    # Two workers each pay the start-up, side by side on two cores, then share the items: the wall cannot be
    # under the start-up plus the larger of the slowest item and half of all items (the controller's own
    # start-up and the scheduling left out, so the real bound is lower still).
    best_two = start_up + max(max(item_seconds, default=0.0), sum(item_seconds) / 2)
    return {
        "items": len(results["one_worker"]),
        "rounds": rounds,
        "one_worker_s": round(one, 2),
        "two_workers_s": round(two, 2),
        "speedup": round(one / two, 3),
        "worker_start_up_s": round(start_up, 2),
        "items_s": round(sum(item_seconds), 2),
        "slowest_item_s": round(max(item_seconds, default=0.0), 2),
        "speedup_bound": round(one / best_two, 3),
        "identical_results": same,
        "differences": [] if same else sorted(set(results["one_worker"].items()) ^ set(results["two_workers"].items()))[:10],
    }


def _junit_outcomes(path: Path) -> dict[str, str]:
    """Each test case of a JUnit file and how it ended: passed, failed, error or skipped."""
    outcomes = {}
    for case in ElementTree.parse(path).iter("testcase"):
        ended = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        outcomes[f"{case.get('classname')}::{case.get('name')}"] = ended
    return outcomes


def _run_file(path: Path) -> None:
    try:
        run_scenario(load_scenario(path))
    except ScenarioError:
        pass


def ms(samples: Samples) -> dict[str, float]:
    """Median and minimum, wall and CPU, in milliseconds."""
    return {
        "wall_median": round(statistics.median(samples.wall) * 1000, 2),
        "wall_min": round(min(samples.wall) * 1000, 2),
        "cpu_median": round(statistics.median(samples.cpu) * 1000, 2),
        "cpu_min": round(min(samples.cpu) * 1000, 2),
    }


def n_of(count: int, scale: float) -> int:
    """``count`` rounds at ``scale``, at least one."""
    return max(1, round(count * scale))
