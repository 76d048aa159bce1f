"""careful_agent: a small coding agent written straight on the anthropic SDK.

    agent = make_agent(ctx)            # or make_async_agent(ctx) for asyncio
    outcome = agent.run_turn("What does this project do?")
    print(outcome.ending, outcome.text)

The model gets three tools: ``read_file``, ``write_file`` and ``shell``. A turn streams
the model's answer, runs the tools it asks for and goes on until the model is done.
``run_turn`` never raises; it returns a ``TurnOutcome`` saying how the turn ended.

How it stays careful:

* Requests go out with the SDK's own retries switched off; this module decides what is
  worth another attempt (overloaded, rate limits, 5xx, broken or unfinished streams) and
  how long to wait (the server's ``retry-after-ms`` / ``retry-after`` first, otherwise
  0.5 s doubling up to 20 s).
* The history only ever receives whole messages: a half-streamed answer is thrown
  away and the same request is sent again.
* Every ``tool_use`` gets exactly one ``tool_result``, also after Ctrl+C.
* Tool arguments are checked before a tool runs; anything wrong is told to the model.

The turn logic is written once, as a generator that *asks* for I/O (``_Ask``, ``_Pause``,
``_UseTool``); ``CarefulAgent`` and ``AsyncCarefulAgent`` only carry those requests out.
"""


from __future__ import annotations

import asyncio
import time
from typing import Any

from .agents import AsyncCarefulAgent, CarefulAgent
from .settings import TOOL_MAP, TurnOutcome

__all__ = ["TOOL_MAP", "AsyncCarefulAgent", "CarefulAgent", "TurnOutcome", "make_agent", "make_async_agent"]


def _from_ctx(ctx: Any, client: Any, sleep: Any) -> dict[str, Any]:
    return {"client": client, "workspace": ctx.workspace, "sleep": sleep,
            "wall": getattr(ctx, "wall", time.time), "settings": getattr(ctx, "settings", None) or {},
            "on_event": getattr(ctx, "on_event", None)}


def make_agent(ctx: Any) -> CarefulAgent:
    return CarefulAgent(**_from_ctx(ctx, ctx.client, getattr(ctx, "sleep", time.sleep)))


def make_async_agent(ctx: Any) -> AsyncCarefulAgent:
    return AsyncCarefulAgent(**_from_ctx(ctx, ctx.async_client, getattr(ctx, "async_sleep", asyncio.sleep)))
