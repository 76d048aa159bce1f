"""Building the agent and calling ``run_turn``, whatever kind it is.

A factory takes the run's ``AgentContext``; one written as ``factory(client, clock,
workspace)`` (three positional parameters, the earlier form) is called that way, with
the client's own retries off, as that form always had it.
``run_turn`` may be a plain method, an ``async def``, a generator of events (mini_agent)
or an async generator; what it returns is kept only when it is a stream of events.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from typing import Any, Callable

from harness.agents.context import AgentContext
from harness.agents.loading import AgentSpecError


def build_agent(factory: Callable[..., Any], ctx: AgentContext) -> Any:
    """The agent ``factory`` makes for this run; AgentSpecError if the factory fails
    (its error is the agent's, said as such)."""
    try:
        if _takes_three(factory):  # the earlier form was handed a client with the SDK's retries off
            return factory(ctx.client.with_options(max_retries=0), ctx.clock, ctx.workspace)
        return factory(ctx)
    except Exception as error:  # noqa: BLE001 -- the factory is the user's code
        name = getattr(factory, "__qualname__", repr(factory))
        raise AgentSpecError(
            f"the agent factory {name} failed: {type(error).__name__}: {error} "
            "(a factory takes one AgentContext and returns an object with run_turn(text))"
        ) from error


class TurnDriver:
    """Runs turns of one agent; async agents share one event loop for the whole run."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, agent: Any, text: str) -> Iterator[Any] | None:
        """Call ``run_turn(text)``: the events it streams, or None once it has run."""
        result = agent.run_turn(text)
        if inspect.iscoroutine(result):
            self.loop.run_until_complete(result)
            return None
        if inspect.isasyncgen(result):
            return self._async_events(result)
        if inspect.isgenerator(result) or (isinstance(result, Iterator) and not isinstance(result, (str, bytes))):
            return result
        return None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop

    def close(self) -> None:
        """Close the event loop, if an async agent needed one."""
        if self._loop is not None:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()
            self._loop = None

    def _async_events(self, events: Any) -> Iterator[Any]:
        while True:
            try:
                yield self.loop.run_until_complete(events.__anext__())
            except StopAsyncIteration:
                return


def _takes_three(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 3 and all(p.default is p.empty for p in positional)
