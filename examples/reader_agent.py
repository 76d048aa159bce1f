"""reader_agent: an async agent that answers questions about the files of a folder.

It shares nothing with mini_agent or careful_agent: written from scratch on
``AsyncAnthropic`` and ``messages.stream``, with two tools of its own — ``open_file`` and
``list_folder``, no way to write a file or run a command — and its own policies:

* at most four attempts at one request; it waits what ``retry-after-ms`` or
  ``retry-after`` (seconds or an HTTP date) asks, else 1 s, 2 s, 4 s; ``x-should-retry``
  has the last word; a 4xx that is not 408, 409 or 429 is final;
* a message goes into the history only once its stream is complete (``message_stop``);
  a broken or unfinished stream is thrown away and the request sent again, unchanged;
* every ``tool_use`` gets its ``tool_result``, also when the turn stops early; a tool
  call in an answer that did not stop for it (cut off by ``max_tokens``, a refusal) is
  answered with an error, not run, and the turn ends there.

    agent = make_agent(ctx)                        # ctx: harness.agents.AgentContext
    text = asyncio.run(agent.run_turn("What does notes.txt say?"))

``harness run scenarios/ --agent examples.reader_agent:make_agent`` runs the library
against it; scenarios that need a tool it does not have are reported not applicable.
"""

from __future__ import annotations

import email.utils
from pathlib import Path
from typing import Any, Awaitable, Callable

import anthropic

MODEL = "claude-opus-5-5"
MAX_TOKENS = 4096
MAX_ATTEMPTS = 4
MAX_STEPS = 12
TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
TRANSIENT_TYPES = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})
TOOLS = [
    {
        "name": "open_file",
        "description": "The text of a file in the folder.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "list_folder",
        "description": "The names in a folder (default: the top folder).",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
]


class ReaderAgent:
    """Answers questions about the files under ``folder``; ``run_turn`` never raises."""

    harness_agent_name = "reader_agent"
    harness_policies = {"retries": MAX_ATTEMPTS - 1, "retries_as_the_sdks_do": True, "gives_up_on_final_errors": True,
                        "retry_is_invisible": True,
                        "backoff_cap": 2.0 ** (MAX_ATTEMPTS - 2), "flags_tool_errors": True, "never_raises": True}
    tool_map = {"Read": {"name": "open_file", "input": {"file_path": "path", "offset": None, "limit": None}}}

    def __init__(self, client: anthropic.AsyncAnthropic, folder: Path, sleep: Callable[[float], Awaitable[None]],
                 wall: Callable[[], float]) -> None:
        self.client = client.with_options(max_retries=0)  # the retries are this agent's own
        self.folder = Path(folder).resolve()
        self.sleep = sleep
        self.wall = wall
        self.messages: list[dict[str, Any]] = []

    async def run_turn(self, text: str) -> str:
        """One user line: the model's answer, or why there is none."""
        self.messages.append({"role": "user", "content": text})
        try:
            for _ in range(MAX_STEPS):
                message = await self._ask()
                if isinstance(message, str):
                    return message
                content = [_plain(block) for block in message.content if not _empty(block)]
                if message.stop_reason == "pause_turn":  # sent back as the last message: no trailing whitespace
                    content = _trimmed(content)
                if content:
                    self.messages.append({"role": "assistant", "content": content})
                calls = [block for block in content if block["type"] == "tool_use"]
                if message.stop_reason == "pause_turn":
                    continue
                if message.stop_reason != "tool_use" and calls:  # cut by max_tokens, or a refusal: not to be run
                    self._answer(calls, lambda call: (f"not run: the answer stopped ({message.stop_reason})", True))
                    return f"The answer stopped inside a tool call ({message.stop_reason})."
                if not calls:
                    return "".join(block.get("text", "") for block in content)
                self._answer(calls, self._use)
            return "Too many steps."
        finally:
            self._mend()

    async def _ask(self) -> Any:
        """The complete message for the history as it is, or a sentence saying why not."""
        for attempt in range(MAX_ATTEMPTS):
            try:
                async with self.client.messages.stream(model=MODEL, max_tokens=MAX_TOKENS, tools=TOOLS,
                                                       messages=self.messages) as stream:
                    finished = False
                    async for event in stream:
                        finished = finished or event.type == "message_stop"
                    message = await stream.get_final_message() if finished else None
                if message is not None:
                    return message
                wait = None  # a stream that stopped before message_stop: ask again
            except anthropic.APIStatusError as error:
                if not _transient(error):
                    return f"The request failed ({error.status_code}): not retried."
                wait = self._asked_wait(error.response.headers)
            except Exception:  # noqa: BLE001 -- a lost connection, a broken stream, JSON that does not parse
                wait = None
            if attempt + 1 < MAX_ATTEMPTS:
                await self.sleep(wait if wait is not None else float(2**attempt))
        return f"No answer after {MAX_ATTEMPTS} attempts."

    def _asked_wait(self, headers: Any) -> float | None:
        if (ms := headers.get("retry-after-ms")) is not None:
            try:
                return max(0.0, float(ms) / 1000)
            except ValueError:
                pass
        if (after := headers.get("retry-after")) is not None:
            try:
                return max(0.0, float(after))
            except ValueError:
                when = email.utils.parsedate_to_datetime(after) if email.utils.parsedate_tz(after) else None
                return max(0.0, when.timestamp() - self.wall()) if when else None
        return None

    def _use(self, call: dict[str, Any]) -> tuple[str, bool]:
        arguments = call.get("input")
        path = arguments.get("path", ".") if isinstance(arguments, dict) else None
        if not isinstance(path, str) or (call["name"] == "open_file" and "path" not in arguments):
            return "expected an object with a text `path`", True
        try:
            target = (self.folder / path).resolve()
        except (OSError, ValueError) as error:  # a NUL byte, a loop of links
            return f"{path!r} is not a usable path: {error}", True
        if not target.is_relative_to(self.folder):
            return f"{path} is outside the folder", True
        try:
            if call["name"] == "list_folder":
                return "\n".join(sorted(p.name for p in target.iterdir())), False
            if call["name"] == "open_file":
                return target.read_text(encoding="utf-8", errors="replace"), False
        except OSError as error:
            return f"{path}: {error.strerror or error}", True
        return f"there is no tool called {call['name']}", True

    def _answer(self, calls: list[dict[str, Any]], result: Callable[[dict[str, Any]], tuple[str, bool]]) -> None:
        answers = []
        for call in calls:
            text, failed = result(call)
            answers.append({"type": "tool_result", "tool_use_id": call["id"], "content": text or "(empty)", "is_error": failed})
        self.messages.append({"role": "user", "content": answers})

    def _mend(self) -> None:
        """A tool call left without its result (the turn stopped in between) gets one."""
        last = self.messages[-1] if self.messages else None
        if last and last["role"] == "assistant":
            calls = [b for b in last["content"] if b.get("type") == "tool_use"]
            if calls:
                self._answer(calls, lambda call: ("the turn stopped before this ran", True))


def _transient(error: anthropic.APIStatusError) -> bool:
    verdict = error.response.headers.get("x-should-retry")
    if verdict in ("true", "false"):
        return verdict == "true"
    if error.status_code == 200:  # an `event: error` inside the stream
        body = error.body if isinstance(error.body, dict) else {}
        kind = (body.get("error") or {}).get("type") if isinstance(body.get("error"), dict) else body.get("type")
        return kind in TRANSIENT_TYPES
    return error.status_code in TRANSIENT_STATUSES


def _plain(block: Any) -> dict[str, Any]:
    """A block as the history keeps it: a tool call whose input is not an object (the
    model can send one) goes back with an empty object, which the API accepts."""
    plain = block.model_dump(exclude_none=True, exclude={"parsed_output"}, warnings=False)
    if plain.get("type") == "tool_use" and not isinstance(plain.get("input"), dict):
        plain["input"] = {}
    return plain


def _trimmed(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last text block without trailing whitespace (dropped if nothing is left)."""
    if content and content[-1]["type"] == "text":
        text = content[-1]["text"].rstrip()
        content = content[:-1] + ([{**content[-1], "text": text}] if text else [])
    return content


def _empty(block: Any) -> bool:
    return getattr(block, "type", None) == "text" and not (block.text or "").strip()


def make_agent(ctx: Any) -> ReaderAgent:
    """The agent on the run's clients and clock (see ``harness.agents.AgentContext``)."""
    return ReaderAgent(ctx.async_client, ctx.workspace, ctx.async_sleep, ctx.wall)
