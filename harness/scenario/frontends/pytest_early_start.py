"""pytest-xdist's ``--dist load``, with each worker starting on the items as soon as its
own collection is in, instead of every worker waiting for the slowest one's.

Workers start side by side and each imports and collects for seconds; on a shared machine
one often finishes a second after the other. xdist's load scheduling hands out nothing
until the last collection arrives; this one takes the first collection as the run's and
checks each later one against it when it arrives: a worker whose collection differs gets
no item and its difference is reported as a collection error, as xdist reports it; the
run ends only when every collection is in and checked. Used only where the harness
orders the items (``harness.scenario.frontends.pytest_schedule``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from xdist.report import report_collection_diff
from xdist.scheduler import LoadScheduling
from xdist.workermanage import WorkerController


class EarlyStartScheduling(LoadScheduling):
    """Load scheduling whose run starts with the first collection that arrives."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.differing: set[WorkerController] = set()

    @property
    def collection_is_completed(self) -> bool:
        """True once any worker's collection is in: from then on items are handed out."""
        return bool(self.node2collection)

    @property
    def tests_finished(self) -> bool:
        """As xdist's, and not before every worker's collection is in and checked."""
        return len(self.node2collection) + len(self.differing) >= self.numnodes and super().tests_finished

    def add_node_collection(self, node: WorkerController, collection: Sequence[str]) -> None:
        """Keep the first collection as the run's; a later one must be the same."""
        if self.collection is not None and list(collection) != self.collection:
            first = next(iter(self.node2collection))
            difference = report_collection_diff(self.collection, collection, first.gateway.id, node.gateway.id)
            self.log(difference)
            report = pytest.CollectReport(nodeid=node.gateway.id, outcome="failed", longrepr=difference, result=[])
            self.config.hook.pytest_collectreport(report=report)
            self.differing.add(node)
            node.shutdown()
            return
        self.node2collection[node] = list(collection)

    def schedule(self) -> None:
        """Hand items to every worker whose collection is in (called as each arrives)."""
        if self.collection is None:
            self.collection = next(iter(self.node2collection.values()))
            self.pending[:] = range(len(self.collection))
            if self.maxschedchunk is None:
                self.maxschedchunk = len(self.collection)
        for node in self.node2collection:
            self.check_schedule(node)

    def check_schedule(self, node: WorkerController, duration: float = 0) -> None:
        """As xdist's, for a worker whose collection is in; one still collecting waits."""
        if node in self.node2collection:
            super().check_schedule(node, duration=duration)
