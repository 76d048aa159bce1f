"""pytest by recorded durations: pytest-xdist that hands the slow items out first, and
one machine's part of a run (``--harness-shard K/N``).

    recorded   after a run (not by a worker, not by a shard): each item's setup, call and
               teardown seconds, by node id, in the durations file (``durations``:
               ``.harness_cache/durations.json``, or ``--harness-durations FILE``)
    ordered    under ``-n`` (``--dist load``): the items that took at least 1 % of the
               recorded whole go first, longest first, the rest in collection order. The
               controller reads the durations once and hands them to every worker, so all
               collect the same order; it hands items out one at a time
               (``--maxschedchunk 1`` unless given), so no long item waits behind another
               on a busy worker while the other worker runs dry; and each worker starts as
               soon as its own collection is in (``pytest_early_start``), not when the
               slowest worker's is
    sharded    ``--harness-shard K/N``: the items of shard K of N (``shards``: dealt
               longest first, the same on every machine given the same durations); the
               rest are deselected
    without    no durations: xdist's own order and chunks; shards of equal counts
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.scenario.frontends.durations import (
    durations_file,
    longest_first,
    read_durations,
    record_durations,
)
from harness.scenario.frontends.shards import shard_of

WORKER_KEY = "harness_durations"
PLUGIN_NAME = "harness-schedule"


class Schedule:
    """A pytest plugin object: registered by ``harness.pytest_plugin`` for every run."""

    def __init__(self, config: pytest.Config) -> None:
        self.path = durations_file(config.getoption("harness_durations"))
        self.shard: tuple[int, int] | None = config.getoption("harness_shard")
        handed = getattr(config, "workerinput", {}).get(WORKER_KEY)
        self.worker = hasattr(config, "workerinput")
        self.durations: dict[str, float] = json.loads(handed) if handed is not None else read_durations(self.path)
        self.measured: dict[str, float] = {}
        distributing = not self.worker and config.getoption("dist", "no") == "load" and config.getoption("tx", None)
        self.ordered = bool(distributing and self.durations)
        if self.ordered and config.getoption("maxschedchunk", None) is None:
            config.option.maxschedchunk = 1

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """pytest-xdist: ordered runs start each worker on its own collection."""
        if not self.ordered:
            return None
        from harness.scenario.frontends.pytest_early_start import (
            EarlyStartScheduling,  # xdist: only when it runs
        )

        return EarlyStartScheduling(config, log)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """pytest-xdist: every worker orders (and shards) by the controller's durations."""
        node.workerinput[WORKER_KEY] = json.dumps(self.durations)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if self.shard is not None:
            kept = set(shard_of([item.nodeid for item in items], self.durations, self.shard))
            deselected = [item for index, item in enumerate(items) if index not in kept]
            items[:] = [item for index, item in enumerate(items) if index in kept]
            if deselected:
                config.hook.pytest_deselected(items=deselected)
        if self.worker and self.durations:
            items[:] = [items[i] for i in longest_first([item.nodeid for item in items], self.durations)]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.measured[report.nodeid] = self.measured.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.worker and self.shard is None:  # a shard's machines must all read what the last whole run wrote
            record_durations(self.path, self.measured)
