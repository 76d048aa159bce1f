"""Layer 3, the loop: a turn is a generator of events that never raises.

``run_turn`` → ``_loop`` (model, tools, model …) → ``_call_model`` (layer 1 retries)
and ``tools.execute`` (layer 2). Whatever happens, ``repair_history`` runs last, so
every tool_use in the history has its tool_result and the next request is valid.
"""

from __future__ import annotations

import random
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Generator, Iterator

import anthropic

from .errors import ModelError, to_model_error
from .events import Event, MessageDone, Notice, ToolCall, ToolResult, TurnEnd
from .history import (
    drop_thinking,
    history_message,
    interrupted,
    repair,
    tool_result,
)
from .hooks import run_stop_failure_hook
from .model import AnthropicClient, Reply
from .retry import RetryPolicy
from .settings import Settings
from .tools import Tool, ToolRegistry, default_tools

TRUNCATED_TOOL_RESULT = (
    "The response hit the output token limit while writing this tool call, so it was not run: "
    "its input may be incomplete. Split the work into smaller steps (for example, write a large "
    "file in several parts)."
)
STOP_NOTICES = {
    "refusal": "The model declined to continue this request.",
    "max_tokens": "The reply was cut off at the output token limit.",
    "model_context_window_exceeded": "The conversation no longer fits the model's context window; start a new session or shorten it.",
}
TURN_END_REASONS = {"model_context_window_exceeded": "context_window"}
SHOWN_SETTINGS = ("max_retries", "api_timeout", "max_tool_output", "fallback_model", "fallbacks", "stop_failure_hook")


class Agent:
    """A coding agent over the Messages API. ``run_turn(text)`` yields Events."""

    def __init__(
        self,
        client: anthropic.Anthropic | None = None,
        *,
        settings: Settings = Settings(),
        cwd: Path | str = ".",
        tools: list[Tool] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        rand: Callable[[], float] = random.random,
        session_id: str | None = None,
        settings_sources: dict[str, str] | None = None,
    ) -> None:
        self.settings = settings
        self.cwd = Path(cwd).resolve()
        self.model = AnthropicClient(
            client,
            model=settings.model,
            max_tokens=settings.max_tokens,
            system=settings.system,
            fallbacks=settings.fallbacks,
            timeout=settings.api_timeout,
        )
        self.tools = ToolRegistry(default_tools() if tools is None else tools, cwd=self.cwd, max_output=settings.max_tool_output)
        self.retry = RetryPolicy(max_retries=settings.max_retries, budget=settings.retry_budget, random=rand)
        self.sleep, self.clock, self.wall_clock = sleep, clock, wall_clock
        self.session_id = session_id or uuid.uuid4().hex[:12]
        self.settings_sources = settings_sources or {}
        self.messages: list[dict[str, Any]] = []
        self.usage: dict[str, int] = {}
        self.context_tokens = 0
        self.requests = 0
        self.retries = 0

    # -- a turn ---------------------------------------------------------------

    def run_turn(self, text: str) -> Iterator[Event]:
        """Send one user line and yield everything that happens until the turn ends.
        Never raises: a failure or Ctrl+C ends the turn with a notice and a TurnEnd,
        also when Ctrl+C comes while the turn is already ending."""
        try:
            ending = yield from self._turn(text)
            while ending is not None:
                try:
                    yield from ending
                    ending = None
                except KeyboardInterrupt:
                    ending = interrupted()
        finally:
            self.repair_history()

    def _turn(self, text: str) -> Generator[Event, None, Iterator[Event] | None]:
        """The turn's events; returns the events that end it when it fails."""
        try:
            if not text.strip():
                yield TurnEnd("empty")
                return None
            self.messages.append({"role": "user", "content": text})
            yield from self._loop()
        except ModelError as error:
            return self._failed(error)
        except KeyboardInterrupt:
            return interrupted()
        except Exception as error:  # the safety net: our own bugs end the turn, not the session
            return iter([Notice(f"Internal error: {type(error).__name__}: {error}", "error"), TurnEnd("internal_error")])
        return None

    def _failed(self, error: ModelError) -> Iterator[Event]:
        yield Notice(f"API Error: {error}", "error")
        problem = self._stop_failure_hook(error)
        if problem:
            yield Notice(problem, "warning")
        yield TurnEnd("error")

    def _loop(self) -> Generator[Event, None, None]:
        for _ in range(self.settings.max_steps):
            reply = yield from self._call_model()
            kept = history_message(reply.message)
            if kept["content"]:
                self.messages.append(kept)
            yield MessageDone(reply.message, reply.stop_reason, reply.usage)
            tool_uses = [b for b in reply.message["content"] if b["type"] == "tool_use"]
            if reply.stop_reason == "tool_use" and tool_uses:
                yield from self._run_tools(tool_uses)
                continue
            if reply.stop_reason == "max_tokens" and tool_uses:
                yield Notice("The reply hit the output token limit inside a tool call; the call was not run.", "warning")
                yield from self._answer_with_errors(tool_uses, TRUNCATED_TOOL_RESULT)
                continue
            if reply.stop_reason == "pause_turn":
                continue
            if reply.stop_reason in STOP_NOTICES:
                yield Notice(STOP_NOTICES[reply.stop_reason], "warning")
            yield TurnEnd(TURN_END_REASONS.get(reply.stop_reason or "", reply.stop_reason or "end_turn"))
            return
        yield Notice(f"Stopped after {self.settings.max_steps} model requests in one turn.", "warning")
        yield TurnEnd("max_steps")

    def _run_tools(self, tool_uses: list[dict[str, Any]]) -> Generator[Event, None, None]:
        results: list[dict[str, Any]] = []
        self.messages.append({"role": "user", "content": results})  # filled as tools finish; repaired if interrupted
        for block in tool_uses:
            yield ToolCall(block["id"], block["name"], block["input"])
            outcome = self.tools.execute(block["name"], block["input"])
            results.append(tool_result(block["id"], outcome.content, outcome.is_error))
            yield ToolResult(block["id"], block["name"], outcome.content, outcome.is_error)

    def _answer_with_errors(self, tool_uses: list[dict[str, Any]], text: str) -> Generator[Event, None, None]:
        self.messages.append({"role": "user", "content": [tool_result(b["id"], text, True) for b in tool_uses]})
        for block in tool_uses:
            yield ToolResult(block["id"], block["name"], text, True)

    # -- layer 1: one model request, retried ----------------------------------

    def _call_model(self) -> Generator[Event, None, Reply]:
        started = self.clock()
        attempt = overloaded = 0
        while True:
            self.requests += 1
            shown_text = False
            try:
                for item in self.model.stream(self.messages, self.tools.definitions()):
                    if isinstance(item, Reply):
                        self._count_usage(item.usage)
                        return item
                    shown_text = True
                    yield item
                raise ModelError("incomplete_stream", True, message="no reply was produced")
            except Exception as exc:
                error = to_model_error(exc, now=self.wall_clock)
                if error is None:
                    raise
            attempt += 1
            overloaded = overloaded + 1 if error.kind == "overloaded" else 0
            if overloaded >= self.settings.fallback_after and self._can_fall_back():
                yield Notice(self._fall_back(overloaded), "warning")
                overloaded = 0
            delay = self.retry.delay_for(attempt, error.retry_after)
            why_not = None if error.retryable else "not retryable"
            why_not = why_not or self.retry.gives_up(attempt, self.clock() - started, delay)
            if why_not:
                error.message = f"{error.message} ({why_not})" if error.message else why_not
                raise error
            self.retries += 1
            discarded = " · partial output above discarded" if shown_text else ""
            yield Notice(
                f"API Error: {error} · Retrying in {delay:.1f}s · attempt {attempt}/{self.retry.max_retries}{discarded}",
                "warning",
            )
            self.sleep(delay)

    def _can_fall_back(self) -> bool:
        fallback = self.settings.fallback_model
        return bool(fallback) and fallback != self.model.model

    def _fall_back(self, overloaded: int) -> str:
        """Switch to the fallback model for the rest of the session. Thinking blocks are
        bound to the model that wrote them, so they leave the history."""
        previous, self.model.model = self.model.model, str(self.settings.fallback_model)
        dropped = drop_thinking(self.messages)
        note = f"; {dropped} earlier thinking block(s) dropped" if dropped else ""
        return (
            f"{previous} is overloaded ({overloaded} × 529 in a row): switching to {self.model.model} "
            f"for the rest of the session (prompt cache starts cold{note})"
        )

    def _stop_failure_hook(self, error: ModelError) -> str | None:
        if not self.settings.stop_failure_hook:
            return None
        payload = {
            "hook_event_name": "StopFailure",
            "session_id": self.session_id,
            "kind": error.kind,
            "status": error.status,
            "message": error.message,
        }
        return run_stop_failure_hook(
            self.settings.stop_failure_hook, payload, cwd=self.cwd, timeout=self.settings.hook_timeout
        )

    def _count_usage(self, usage: dict[str, int]) -> None:
        for key, value in usage.items():
            self.usage[key] = self.usage.get(key, 0) + value
        self.context_tokens = sum(
            usage.get(k, 0)
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
        )

    # -- layer 3: the history is always valid ---------------------------------

    def repair_history(self) -> None:
        """Answer every dangling tool_use of the last assistant message with an error result."""
        repair(self.messages)

    def _setting_value(self, name: str) -> object:
        if name == "fallbacks":
            return "on" if self.model.fallbacks else "off"
        value = getattr(self.settings, name)
        return "none" if value is None else value

    def status(self) -> dict[str, Any]:
        """What ``/status`` shows."""
        return {
            "model": self.model.model,
            "cwd": str(self.cwd),
            "session": self.session_id,
            "messages": len(self.messages),
            "context tokens": self.context_tokens,
            "usage": dict(self.usage),
            "requests": self.requests,
            "retries": self.retries,
            "settings": {
                name: f"{self._setting_value(name)} ({self.settings_sources.get(name, 'default')})"
                for name in SHOWN_SETTINGS
            },
        }
