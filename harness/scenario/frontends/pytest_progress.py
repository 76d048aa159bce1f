"""Progress of long property tests under pytest (``--harness-progress SECONDS``): every
so many seconds, a line per running hypothesis test with the examples it has run, and
one when it is done, written past pytest's capture (from pytest-xdist workers too)."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Iterator

import pytest

PLUGIN_NAME = "harness-example-progress"


class ExampleProgress:
    """A pytest plugin object counting the examples of each ``@given`` test."""

    def __init__(self, config: pytest.Config, every: float) -> None:
        self.config = config
        self.every = every

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        handle = getattr(getattr(item, "obj", None), "hypothesis", None)
        inner = getattr(handle, "inner_test", None)
        if inner is None:
            yield
            return
        settings = getattr(item.obj, "_hypothesis_internal_use_settings", None)
        planned = getattr(settings, "max_examples", None)
        started = last = time.monotonic()
        count = 0

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal count, last
            count += 1
            now = time.monotonic()
            if now - last >= self.every:
                last = now
                limit = f" (max_examples {planned})" if planned else ""
                self._say(f"{item.nodeid}: {count} examples run{limit}, {now - started:.0f}s")
            return inner(*args, **kwargs)

        handle.inner_test = counted
        try:
            yield
        finally:
            handle.inner_test = inner
            if time.monotonic() - started >= self.every:
                self._say(f"{item.nodeid}: done, {count} examples in {time.monotonic() - started:.0f}s")

    def _say(self, line: str) -> None:
        capture = self.config.pluginmanager.getplugin("capturemanager")
        disabled: Callable[[], Any] = getattr(capture, "global_and_fixture_disabled", None) or _nothing
        with disabled():
            sys.stderr.write(f"[progress] {line}\n")
            sys.stderr.flush()


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
