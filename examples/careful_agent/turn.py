"""The turn, written once, as a generator that asks for what it needs: a model request,
a pause, a tool run. The sync and async agents carry those asks out."""


import copy
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generator

from .failures import Failure, diagnose
from .settings import (
    CANCELLED,
    CUT_SHORT,
    FIRST_WAIT,
    LONGEST_SERVER_WAIT,
    LONGEST_WAIT,
    MODEL,
    OUTPUT_TOKENS,
    RETRIES,
    STEP_LIMIT,
    SYSTEM_PROMPT,
    TurnOutcome,
)
from .tools import Workbench, json_kind

# -- the turn, written once ----------------------------------------------------------

@dataclass
class _Ask:
    request: dict[str, Any]


@dataclass
class _Pause:
    seconds: float


@dataclass
class _UseTool:
    name: str
    args: Any


class _GiveUp(Exception):
    def __init__(self, failure: Failure, why: str) -> None:
        super().__init__(f"{failure.what}: {why}")
        self.failure = failure


WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
"""The API's own web search, run on its side: a long search may pause the turn (``pause_turn``)."""
SENT_BACK = {"text": ("text",), "thinking": ("thinking", "signature"), "redacted_thinking": ("data",)}


def as_param(block: Any) -> dict[str, Any]:
    """A block of a reply as the next request must send it back."""
    if block.type == "tool_use":  # a non-object input is told to the model, never sent back
        arguments = block.input if json_kind(block.input) == "object" else {}
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": arguments}
    fields = SENT_BACK.get(block.type)
    if fields is None:  # a block type this agent does not know: the SDK's own request form
        return block.to_dict(mode="json", exclude_none=True)
    return {"type": block.type, **{name: getattr(block, name) for name in fields}}


class Conversation:
    """History, settings and the turn logic; does no I/O of its own."""

    def __init__(self, workspace: Path, settings: dict[str, Any] | None,
                 wall: Callable[[], float], on_event: Callable[[str, Any], None] | None) -> None:
        settings = settings or {}
        self.model = str(settings.get("model") or MODEL)
        self.max_tokens = int(settings.get("max_tokens") or OUTPUT_TOKENS)
        retries = settings.get("max_retries")
        self.retries = max(0, int(retries)) if retries is not None else RETRIES
        self.workbench = Workbench(workspace)
        self.history: list[dict[str, Any]] = []
        self.wall, self.on_event, self._rng = wall, on_event, random.Random()

    def emit(self, kind: str, data: Any) -> None:
        if self.on_event is not None:
            try:
                self.on_event(kind, data)
            except Exception:  # a broken display must not break the turn (Ctrl+C still goes through)
                pass

    def turn(self, text: str) -> Generator[Any, Any, TurnOutcome]:
        try:
            try:
                if not text.strip():
                    return TurnOutcome("empty")
                self.mend()
                self._add_user_text(text)
                return (yield from self._work())
            except _GiveUp as stop:
                self.emit("notice", f"Giving up on this turn: {stop}.")
                return TurnOutcome("error", detail=str(stop))
        except KeyboardInterrupt:
            self.mend()
            self.emit("notice", "Stopped at your request (Ctrl+C).")
            return TurnOutcome("interrupted")

    def mend(self) -> None:
        """Answer the tool calls of a last assistant message that has no results yet."""
        last = self.history[-1] if self.history else None
        if last and last["role"] == "assistant":
            calls = [b for b in last["content"] if b.get("type") == "tool_use"]
            if calls:
                self.history.append({"role": "user", "content": [_result(b["id"], CANCELLED, True) for b in calls]})

    def _work(self) -> Generator[Any, Any, TurnOutcome]:
        for _ in range(STEP_LIMIT):
            reply = yield from self._ask()
            blocks = [as_param(b) for b in reply.content]
            calls = [b for b in reply.content if b.type == "tool_use"]
            if reply.stop_reason == "tool_use" and calls:
                self._keep(blocks)
                yield from self._use_tools(calls)
            elif reply.stop_reason == "max_tokens" and calls:
                self._keep(blocks)
                self._answer(calls, CUT_SHORT)
                self.emit("notice", "The model ran out of output tokens while writing a tool call; that call was skipped.")
            elif reply.stop_reason == "pause_turn":
                self._keep(blocks)
            else:
                self._keep([b for b in blocks if b["type"] != "tool_use"])  # nothing would answer them
                return self._finish(reply)
        self.emit("notice", f"Stopped: {STEP_LIMIT} model calls in one turn is this agent's limit.")
        return TurnOutcome("step_limit")

    def _finish(self, reply: Any) -> TurnOutcome:
        text = "".join(b.text for b in reply.content if b.type == "text")
        ending = {"end_turn": "done", "stop_sequence": "done", "refusal": "refused",
                  "max_tokens": "max_tokens", "model_context_window_exceeded": "context_full"}
        notes = {"refusal": "The model refused to answer this one.",
                 "max_tokens": "The model stopped mid-answer: it used up its output tokens.",
                 "model_context_window_exceeded": "This conversation has outgrown the model's context; begin a fresh session."}
        if reply.stop_reason in notes:
            self.emit("notice", notes[reply.stop_reason])
        return TurnOutcome(ending.get(reply.stop_reason, str(reply.stop_reason)), text, stop_reason=reply.stop_reason)

    def _ask(self) -> Generator[Any, Any, Any]:
        """One complete reply, retried as this agent's policy says; raises _GiveUp."""
        attempt = 0
        while True:
            got = yield _Ask({"model": self.model, "max_tokens": self.max_tokens, "system": SYSTEM_PROMPT,
                              "tools": [*self.workbench.catalogue(), WEB_SEARCH], "messages": copy.deepcopy(self.history)})
            if not isinstance(got, BaseException):
                return got
            failure = diagnose(got, self.wall)
            attempt += 1
            if not failure.retry:
                raise _GiveUp(failure, "sending it again would not help")
            if attempt > self.retries:
                raise _GiveUp(failure, f"still failing after {self.retries} retries")
            wait = failure.wait
            if wait is None:
                wait = min(LONGEST_WAIT, FIRST_WAIT * 2 ** (attempt - 1)) * self._rng.uniform(0.8, 1.0)
            if wait > LONGEST_SERVER_WAIT:
                raise _GiveUp(failure, f"the server asks to wait {wait:.0f}s")
            self.emit("notice", f"Request failed, {failure.what}; retry {attempt} of {self.retries} in {wait:.2f}s.")
            yield _Pause(wait)

    def _use_tools(self, calls: list[Any]) -> Generator[Any, Any, None]:
        answers: list[dict[str, Any]] = []
        try:
            for call in calls:
                self.emit("tool", {"name": call.name, "input": call.input})
                text, failed = yield _UseTool(call.name, call.input)
                answers.append(_result(call.id, text, failed))
                self.emit("tool_result", {"name": call.name, "content": text, "is_error": failed})
        finally:  # Ctrl+C or a closed turn: the calls not done are still answered, in one message
            answers += [_result(c.id, CANCELLED, True) for c in calls[len(answers):]]
            self.history.append({"role": "user", "content": answers})

    def _answer(self, calls: list[Any], text: str) -> None:
        self.history.append({"role": "user", "content": [_result(c.id, text, True) for c in calls]})
        for call in calls:
            self.emit("tool_result", {"name": call.name, "content": text, "is_error": True})

    def _keep(self, blocks: list[dict[str, Any]]) -> None:
        """Add a reply to the history in a form the API takes back (merged into a paused one)."""
        blocks = [b for b in blocks if not (b["type"] == "text" and not b["text"].strip())]
        while blocks and blocks[-1]["type"] in ("thinking", "redacted_thinking"):
            blocks.pop()
        if blocks and blocks[-1]["type"] == "text":
            blocks[-1] = {**blocks[-1], "text": blocks[-1]["text"].rstrip()}
        if not blocks:
            return
        if self.history and self.history[-1]["role"] == "assistant":
            self.history[-1]["content"].extend(blocks)
        else:
            self.history.append({"role": "assistant", "content": blocks})

    def _add_user_text(self, text: str) -> None:
        last = self.history[-1] if self.history else None
        if last is None or last["role"] != "user":
            self.history.append({"role": "user", "content": text})
            return
        earlier = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
        last["content"] = [*earlier, {"type": "text", "text": text}]


def _result(tool_use_id: str, text: str, failed: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
    return {**block, "is_error": True} if failed else block
