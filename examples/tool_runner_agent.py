"""tool_runner_agent: a coding agent built the way the SDK's docs suggest, on its tool runner.

The tools are plain functions decorated with ``@beta_tool``; the loop (call the model, run
the tools it asks for, send the results, repeat) is ``client.beta.messages.tool_runner``,
streaming. Retries are the SDK's own (the client's ``max_retries``, 2 by default).

This is deliberately the straightforward version a typical user writes, with no extra
error handling: the harness is there to find out where it breaks.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Callable

import anthropic
from anthropic import beta_tool

MODEL = "claude-sonnet-5-5"
SYSTEM = "You help with software projects. Tools: Read, Write, Bash; they act on the project folder."


def make_tools(root: Path) -> list[Any]:
    @beta_tool
    def Read(file_path: str, offset: int = 1, limit: int = 2000) -> str:
        """Return the contents of a text file.

        Args:
            file_path: Where the file is, relative to the project folder.
            offset: The line number to start reading at (1-based).
            limit: How many lines to read.
        """
        lines = (root / file_path).read_text().splitlines()
        return "\n".join(lines[offset - 1 : offset - 1 + limit])

    @beta_tool
    def Write(file_path: str, content: str) -> str:
        """Replace a file's content, or make a new file.

        Args:
            file_path: Where the file is, relative to the project folder.
            content: What the file should contain.
        """
        path = root / file_path
        os.makedirs(path.parent, exist_ok=True)
        path.write_text(content)
        return f"Wrote {len(content)} characters to {file_path}"

    @beta_tool
    def Bash(command: str, timeout: float = 120) -> str:
        """Execute a shell command in the project folder.

        Args:
            command: The command to run.
            timeout: Seconds to wait for it.
        """
        proc = subprocess.run(command, shell=True, cwd=root, capture_output=True, text=True, timeout=timeout)
        return f"{proc.stdout}{proc.stderr}\n(returncode {proc.returncode})"

    return [Read, Write, Bash]


class ToolRunnerAgent:
    harness_policies = ("gives_up_on_final_errors",)  # the SDK retries nothing else that is final

    def __init__(self, client: anthropic.Anthropic, workspace: Path, *, thread: bool | None = None) -> None:
        self.client = client
        self.tools = make_tools(Path(workspace))
        self.messages: list[Any] = []
        self.thread = thread  # None: the SDK's default (a message thread)
        self.echo: Callable[[str], Any] = lambda text: print(text, end="", flush=True)

    def run_turn(self, text: str) -> Any:
        self.messages += [{"role": "user", "content": text}]
        options: dict[str, Any] = {} if self.thread is None else {"thread": self.thread}
        runner = self.client.beta.messages.tool_runner(
            model=MODEL,
            max_tokens=4096,
            system=SYSTEM,
            tools=self.tools,
            messages=self.messages,
            stream=True,
            **options,
        )
        last = None
        for stream in runner:
            for event in stream:
                if event.type == "text":
                    self.echo(event.text)
            last = stream.get_final_message()
            self.messages.append({"role": "assistant", "content": last.content})
            tool_results = runner.generate_tool_call_response()
            if tool_results is not None:
                self.messages.append(tool_results)
        return last


def make_agent(ctx: Any) -> ToolRunnerAgent:
    return ToolRunnerAgent(ctx.client, ctx.workspace)
