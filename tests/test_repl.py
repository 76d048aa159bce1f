"""The REPL renders everything, answers /status and survives every error and Ctrl+C."""

from __future__ import annotations

from harness.wire.replies import Reply
from mini_agent.cli import run_repl

DONE = Reply(message={"text": "Done."})


def repl_output(run, lines, write=None) -> str:
    out: list[str] = []
    run_repl(run.agent, lines, write or out.append)
    return "".join(out)


def test_an_unauthorized_line_is_reported_and_the_next_line_runs(agent_with):
    run = agent_with([Reply(error="authentication"), DONE])
    text = repl_output(run, ["hello", "hello again", "/status"])
    assert "✗ API Error: 401 authentication: invalid x-api-key" in text
    assert "⏺ Done." in text
    assert "requests" in text and "retries" in text and "session" in text


def test_retries_are_shown_as_they_happen(agent_with):
    run = agent_with([Reply(error="overloaded"), DONE])
    text = repl_output(run, ["hi"])
    assert "⚠ API Error: 529 overloaded: Overloaded · Retrying in" in text
    assert text.index("Retrying") < text.index("Done.")


def test_ctrl_c_while_rendering_returns_to_the_prompt(agent_with):
    reply = Reply(message={"text": "Looking", "tool_use": {"name": "Bash", "input": {"command": "echo hi"}}})
    run = agent_with([reply, DONE])
    out: list[str] = []
    pressed = []

    def write(text: str) -> None:
        if "Bash(" in text and not pressed:
            pressed.append(True)
            raise KeyboardInterrupt
        out.append(text)

    run_repl(run.agent, ["run it", "again"], write)
    text = "".join(out)
    assert "Interrupted" in text
    assert "⏺ Done." in text
    assert run.transport.requests[-1].violations == []


def test_the_session_ends_only_at_quit_or_end_of_input(agent_with):
    run = agent_with([DONE, DONE])
    text = repl_output(run, ["one", "/quit", "two"])
    assert "> one" in text and "> two" not in text
    assert len(run.transport.requests) == 1
