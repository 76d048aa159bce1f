"""What careful_agent runs with, and how it reports a turn."""

from __future__ import annotations

from dataclasses import dataclass

MODEL = "claude-sonnet-5-5"
OUTPUT_TOKENS = 4096
RETRIES = 6                     # extra attempts of one request (settings: max_retries)
FIRST_WAIT, LONGEST_WAIT = 0.5, 20.0
LONGEST_SERVER_WAIT = 300.0     # a retry-after beyond this ends the turn instead
STEP_LIMIT = 40                 # model calls in one turn
OUTPUT_LIMIT = 20_000           # characters of one tool result
SHELL_TIME, SHELL_TIME_MAX = 60.0, 600.0
RETRYABLE_STREAM_ERRORS = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}

SYSTEM_PROMPT = (
    "You are a careful programming assistant working inside one project folder. Look before you "
    "change anything: read_file shows a file, write_file saves a whole file, shell runs a command. "
    "When a tool reports a problem, correct the call instead of guessing."
)
CANCELLED = "Cancelled: the user pressed Ctrl+C, so this call was stopped or never started."
CUT_SHORT = ("Skipped: you ran out of output tokens in the middle of this call, so its arguments cannot be "
             "trusted. Try again with less per call (a big file can be built over several calls).")

# The harness's standard tools and arguments, and what this agent calls them.
TOOL_MAP = {
    "Read": {"name": "read_file", "input": {"file_path": "path", "offset": "first_line", "limit": "max_lines"}},
    "Write": {"name": "write_file", "input": {"file_path": "path", "content": "text"}},
    "Bash": {"name": "shell", "input": {"command": "cmd", "timeout": "timeout_s"}},
}


@dataclass
class TurnOutcome:
    """How a turn ended: ``done``, ``error``, ``interrupted``, ``refused``, ``max_tokens``,
    ``context_full``, ``step_limit``, ``empty`` or ``crashed``; ``text`` is the model's last answer."""

    ending: str
    text: str = ""
    detail: str = ""          # what went wrong, when something did
    stop_reason: str | None = None   # of the model's last answer
