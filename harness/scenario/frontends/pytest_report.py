"""The HTML report under pytest (``--harness-html FILE``): a record per scenario item,
gathered from pytest-xdist workers too, and one page written when the session ends."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from harness.report.html import render_report
from harness.scenario.run.results import scenario_record
from harness.wire.files import write_atomically

WORKER_KEY = "harness_records"


class HtmlReport:
    """A pytest plugin object: registered by ``harness.pytest_plugin`` when asked for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        yield
        if call.when != "call":
            return
        outcome, problems = getattr(item, "outcome", None), getattr(item, "problems", None)
        if outcome is not None:
            self.records.append(scenario_record(item.path, outcome, outcome.problems, call.duration * 1000))
        elif problems is not None:  # a file with mistakes
            self.records.append(scenario_record(item.path, None, problems, call.duration * 1000))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist: a worker finished; take its records."""
        self.records += json.loads(getattr(node, "workeroutput", {}).get(WORKER_KEY, "[]"))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        config = session.config
        if hasattr(config, "workerinput"):  # a pytest-xdist worker: hand the records over
            config.workeroutput[WORKER_KEY] = json.dumps(self.records)  # type: ignore[attr-defined]
            return
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
        records = sorted(self.records, key=lambda r: r["file"])
        write_atomically(self.path, render_report(records, title="pytest: fault scenarios", generated=now, base_dir=self.path.parent))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.write_line(f"harness: HTML report of {len(self.records)} scenario(s) in {self.path}")
