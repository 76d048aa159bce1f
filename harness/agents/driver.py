"""Building the agent and calling ``run_turn``, whatever kind it is.

A factory takes the run's ``AgentContext`` and returns the agent; it may be an ``async
def``, awaited on the driver's event loop, the one every async turn of the run shares.
``run_turn`` may be a plain method, an ``async def``, a generator of events (mini_agent)
or an async generator; what it returns is kept only when it is a stream of events. An
``async def`` turn runs as ``asyncio.run`` runs a program: Ctrl+C cancels its task, which
may tidy up and return; one that lets the cancellation through ends in KeyboardInterrupt,
as ``asyncio.run`` ends, and ``cancelled`` says so.

Errors: AgentSpecError (``loading``) for a factory that cannot take the context (such as
one of the form ``factory(client, clock, workspace)``, which is gone) or that fails.
"""

from __future__ import annotations

import asyncio
import inspect
import signal
import threading
from collections.abc import Iterator
from typing import Any, Callable

from harness.agents.context import AgentContext
from harness.agents.loading import AgentSpecError

CLOSING_ROUNDS = 3

NEW_FORM = (
    "a factory takes one AgentContext and returns an object with run_turn(text), e.g. "
    "def make_agent(ctx): return MyAgent(ctx.client, ctx.clock, ctx.workspace)"
)


class TurnDriver:
    """Builds one agent and runs its turns; async agents share one event loop for the
    whole run. Close it (or use it as a context manager) when the run is over."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self.cancelled = False  # Ctrl+C cancelled the last async turn, which let the cancellation through

    def __enter__(self) -> TurnDriver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def build(self, factory: Callable[[AgentContext], Any], ctx: AgentContext) -> Any:
        """The agent ``factory`` makes for this run; AgentSpecError if the factory cannot
        take the context or fails (its error is the agent's, said as such)."""
        name = getattr(factory, "__qualname__", repr(factory))
        _check_form(factory, name)
        try:
            made = factory(ctx)
            return self.loop.run_until_complete(made) if inspect.isawaitable(made) else made
        except Exception as error:  # noqa: BLE001 -- the factory is the user's code
            raise AgentSpecError(
                f"the agent factory {name} failed: {type(error).__name__}: {error} "
                "(a factory takes one AgentContext and returns an object with run_turn(text))"
            ) from error

    def start(self, agent: Any, text: str) -> Iterator[Any] | None:
        """Call ``run_turn(text)``: the events it streams, or None once it has run."""
        self.cancelled = False
        result = agent.run_turn(text)
        if inspect.iscoroutine(result):
            self._complete(result)
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
        """Close the event loop, if an async agent needed one, as ``asyncio.run`` ends a
        program: the async generators closed, and so the clean-up of one dropped between
        turns (an SDK stream cut by Ctrl+C: the loop schedules its ``aclose()`` when it is
        collected); every other task still pending cancelled and awaited."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
            for _ in range(CLOSING_ROUNDS):  # a task cancelled may drop a generator in turn
                if not _end_tasks(loop):
                    break
        finally:
            loop.close()

    def _complete(self, coroutine: Any) -> None:
        """Run one async turn to its end; the first Ctrl+C meanwhile cancels it (the handler
        that was there still hears it, its KeyboardInterrupt held back), a second one goes
        to that handler alone."""
        task = self.loop.create_task(coroutine)
        presses = 0
        previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
        hearing = callable(previous)  # not ignored, not the C default

        def cancel(signum: int, frame: Any) -> None:
            nonlocal presses
            presses += 1
            if presses > 1 or task.done():
                previous(signum, frame)
                return
            try:
                previous(signum, frame)  # a counter of presses counts this one too
            except KeyboardInterrupt:
                pass
            task.cancel()
            self.loop.call_soon_threadsafe(lambda: None)  # wake the loop to deliver it

        if hearing:
            signal.signal(signal.SIGINT, cancel)
        try:
            self.loop.run_until_complete(task)
        except asyncio.CancelledError:
            if not presses:
                raise
            self.cancelled = True
            raise KeyboardInterrupt("Ctrl+C cancelled the turn, which let the cancellation through (asyncio's rule)") from None
        finally:
            if hearing:
                signal.signal(signal.SIGINT, previous)

    def _async_events(self, events: Any) -> Iterator[Any]:
        while True:
            try:
                yield self.loop.run_until_complete(events.__anext__())
            except StopAsyncIteration:
                return


def _end_tasks(loop: asyncio.AbstractEventLoop) -> bool:
    """Await the generators' ``aclose()`` tasks to their end, as ``shutdown_asyncgens``
    awaits those of the generators still alive; cancel and await every other task still
    pending. False when none was."""
    pending = asyncio.all_tasks(loop)
    closing = {task for task in pending if type(task.get_coro()).__name__ == "async_generator_athrow"}
    others = pending - closing
    for task in others:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*closing, *others, return_exceptions=True))
    return bool(pending)


def _check_form(factory: Callable[..., Any], name: str) -> None:
    """AgentSpecError unless ``factory`` can be called with one argument, the context."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a callable without a signature to read: the call will tell
        return
    try:
        signature.bind(None)
    except TypeError:
        raise AgentSpecError(
            f"the agent factory {name}{signature} cannot be called with the run's AgentContext alone: {NEW_FORM} "
            "(the form factory(client, clock, workspace) is gone)"
        ) from None
