"""A bare REPL on the real API: ``ANTHROPIC_API_KEY=... python -m examples.careful_agent``."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anthropic

from . import make_agent


def show(kind: str, data: Any) -> None:
    if kind == "text":
        print(data, end="", flush=True)
    elif kind == "tool":
        print(f"\n-> {data['name']} {json.dumps(data['input'])[:200]}")
    elif kind != "tool_result":
        print(f"\n! {data}")


def main() -> None:
    agent = make_agent(SimpleNamespace(client=anthropic.Anthropic(), workspace=Path.cwd(), on_event=show))
    while True:
        try:
            line = input("\n> ")
        except (EOFError, KeyboardInterrupt):
            break
        print(f"\n({agent.run_turn(line).ending})")


if __name__ == "__main__":
    main()
