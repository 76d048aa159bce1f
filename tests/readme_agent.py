"""``MyAgent``, the agent the README's examples name: a small SDK agent written for them
(no code of the harness or of mini_agent), so that the examples run as written. It asks
without streaming, retries what the API says may be retried (honouring ``retry-after``,
on the clock it is given), and runs one tool, Read."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import anthropic

MODEL = "claude-opus-5-5"
TOOLS = [{
    "name": "Read",
    "description": "Read a text file.",
    "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]},
}]
RETRYABLE = {408, 409, 429}


class MyAgent:
    def __init__(self, client: anthropic.Anthropic, cwd: str | Path = ".", sleep: Callable[[float], Any] = time.sleep) -> None:
        self.client = client.with_options(max_retries=0)
        self.cwd = Path(cwd)
        self.sleep = sleep
        self.messages: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})
        for _ in range(8):
            message = self._create()
            if message is None:  # a final error, or retries spent: the turn ends
                return
            content = [block.model_dump(exclude_none=True) for block in message.content]
            self.messages.append({"role": "assistant", "content": content})
            calls = [block for block in message.content if block.type == "tool_use"]
            if not calls:
                return
            self.messages.append({"role": "user", "content": [self._run(call) for call in calls]})

    ask = run_turn

    def _create(self) -> Any:
        for _ in range(6):
            try:
                return self.client.messages.create(model=MODEL, max_tokens=1024, messages=self.messages, tools=TOOLS)
            except anthropic.APIStatusError as error:
                status = error.response.status_code
                if status not in RETRYABLE and status < 500:
                    return None
                self.sleep(float(error.response.headers.get("retry-after") or 1.0))
            except anthropic.APIConnectionError:
                self.sleep(1.0)
        return None

    def _run(self, call: Any) -> dict[str, Any]:
        try:
            text = (self.cwd / call.input["file_path"]).read_text(encoding="utf-8")
            return {"type": "tool_result", "tool_use_id": call.id, "content": text}
        except (KeyError, OSError) as error:
            return {"type": "tool_result", "tool_use_id": call.id, "content": f"cannot read it: {error}", "is_error": True}


def make_agent(ctx: Any) -> MyAgent:
    return MyAgent(ctx.client, cwd=ctx.workspace, sleep=ctx.sleep)
