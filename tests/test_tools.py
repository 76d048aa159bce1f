"""Layer 2: every tool failure reaches the model as an error result, never as a crash."""

from __future__ import annotations

import _thread
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mini_agent.tools import Bash, ToolOutcome, ToolRegistry, default_tools
from mini_agent.tools.truncate import truncate_middle

ANY_OBJECT: dict[str, Any] = {"type": "object"}


class FnTool:
    """A test-only tool that calls ``fn(args)``."""

    def __init__(self, name: str, fn: Callable[[dict[str, Any]], Any], schema: dict[str, Any] = ANY_OBJECT):
        self.name = name
        self.description = f"test tool {name}"
        self.input_schema = schema
        self._fn = fn

    def run(self, args: dict[str, Any], cwd: Path) -> Any:
        return self._fn(args)


def raise_(exc: BaseException) -> Callable[[dict[str, Any]], Any]:
    def fn(args: dict[str, Any]) -> Any:
        raise exc

    return fn


@pytest.fixture
def tools(tmp_path: Path) -> ToolRegistry:
    return ToolRegistry(default_tools(), cwd=tmp_path)


def run_alone(tool: FnTool, args: Any = None, **kwargs: Any) -> ToolOutcome:
    return ToolRegistry([tool], cwd=Path.cwd(), **kwargs).execute(tool.name, {} if args is None else args)


def error_text(outcome: ToolOutcome) -> str:
    assert outcome.is_error, outcome.content
    assert outcome.content.startswith("<tool_use_error>")
    assert outcome.content.endswith("</tool_use_error>")
    return outcome.content.removeprefix("<tool_use_error>").removesuffix("</tool_use_error>")


# --- the registry ---------------------------------------------------------------


def test_tool_that_divides_by_zero_gives_an_error_result_naming_the_exception() -> None:
    outcome = run_alone(FnTool("Divide", lambda args: 1 / 0))
    assert error_text(outcome) == "Error: ZeroDivisionError: division by zero"
    assert "Traceback" not in outcome.content


def test_exception_without_a_message_is_named_alone() -> None:
    assert error_text(run_alone(FnTool("Fail", raise_(RuntimeError())))) == "Error: RuntimeError"


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(1), GeneratorExit()])
def test_ctrl_c_and_exit_raised_inside_a_tool_propagate_out_of_execute(exc: BaseException) -> None:
    with pytest.raises(type(exc)):
        run_alone(FnTool("Stop", raise_(exc)))


def test_a_tool_returning_something_other_than_text_is_an_error() -> None:
    assert error_text(run_alone(FnTool("Bad", lambda args: 42))) == "Error: TypeError: Bad returned int, not str"


def test_unknown_tool_is_an_error_listing_the_available_tools(tools: ToolRegistry) -> None:
    outcome = tools.execute("Grep", {"pattern": "x"})
    assert error_text(outcome) == "No such tool available: Grep. Available tools: Read, Write, Bash"


def test_wrong_argument_type_is_an_input_validation_error(tools: ToolRegistry) -> None:
    outcome = tools.execute("Read", {"file_path": "a.txt", "limit": "10"})
    assert error_text(outcome) == (
        "InputValidationError: Read failed due to the following issue:\n"
        "The parameter `limit` type is expected as `integer` but provided as `string`"
    )


def test_missing_required_argument_is_named(tools: ToolRegistry) -> None:
    outcome = tools.execute("Write", {"file_path": "a.txt"})
    assert "The required parameter `content` is missing" in error_text(outcome)


def test_path_given_for_file_path_is_reported_as_unexpected_and_missing(tools: ToolRegistry) -> None:
    outcome = tools.execute("Read", {"path": "a.txt"})
    assert error_text(outcome) == (
        "InputValidationError: Read failed due to the following issues:\n"
        "The required parameter `file_path` is missing\n"
        "An unexpected parameter `path` was provided"
    )


def test_enum_miss_lists_the_allowed_values() -> None:
    schema = {"type": "object", "properties": {"mode": {"enum": ["fast", "slow"]}}}
    outcome = run_alone(FnTool("Go", lambda args: "ran", schema), {"mode": "medium"})
    assert error_text(outcome).endswith("The parameter `mode` must be one of: `fast`, `slow`")


def test_wrong_item_type_in_an_array_names_its_dotted_path() -> None:
    schema = {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {"type": "object", "properties": {"text": {"type": "string"}}},
            }
        },
    }
    outcome = run_alone(FnTool("Edit", lambda args: "ran", schema), {"edits": [{"text": "ok"}, {"text": 7}]})
    assert error_text(outcome).endswith(
        "The parameter `edits.1.text` type is expected as `string` but provided as `integer`"
    )


@pytest.mark.parametrize(("value", "kind"), [(["a.txt"], "array"), ("a.txt", "string"), (None, "null")])
def test_input_that_is_not_an_object_gives_one_clear_line(tools: ToolRegistry, value: Any, kind: str) -> None:
    outcome = tools.execute("Read", value)
    assert error_text(outcome) == (
        "InputValidationError: Read failed due to the following issue:\n"
        f"The input type is expected as `object` but provided as `{kind}`"
    )


def test_invalid_input_never_reaches_the_tool() -> None:
    calls: list[dict[str, Any]] = []
    schema = {"type": "object", "required": ["x"]}
    run_alone(FnTool("Track", calls.append, schema), {})
    assert calls == []


def test_oversized_output_keeps_head_and_tail_with_a_marker_counting_the_cut() -> None:
    text = "HEAD" + "x" * 10_000 + "TAIL"
    outcome = run_alone(FnTool("Big", lambda args: text), max_output=300)
    assert not outcome.is_error
    assert outcome.content.startswith("HEAD")
    assert outcome.content.endswith("TAIL")
    assert f"... [{len(text) - 300:,} characters truncated] ..." in outcome.content
    assert len(outcome.content) < 400


def test_oversized_error_output_is_truncated_inside_the_error_tags() -> None:
    outcome = run_alone(FnTool("Loud", raise_(ValueError("A" + "e" * 5000 + "Z"))), max_output=200)
    text = error_text(outcome)
    assert text.startswith("Error: ValueError: Ae")
    assert text.endswith("eZ")
    assert "characters truncated" in text


def test_default_output_limit_is_30000_characters() -> None:
    outcome = run_alone(FnTool("Big", lambda args: "y" * 40_000))
    assert "[10,000 characters truncated]" in outcome.content


def test_definitions_are_what_the_api_request_needs(tools: ToolRegistry) -> None:
    definitions = tools.definitions()
    assert [d["name"] for d in definitions] == tools.names() == ["Read", "Write", "Bash"]
    for definition in definitions:
        assert set(definition) == {"name", "description", "input_schema"}
        assert definition["input_schema"]["type"] == "object"
        assert definition["description"]


def test_two_tools_with_one_name_are_refused() -> None:
    with pytest.raises(ValueError, match="two tools are named 'Read'"):
        ToolRegistry([FnTool("Read", str), FnTool("Read", str)], cwd=Path.cwd())


# --- truncate_middle ------------------------------------------------------------


def test_text_within_the_limit_is_untouched() -> None:
    assert truncate_middle("abcdef", 6) == "abcdef"


def test_truncated_text_is_two_thirds_head_one_third_tail() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(1000))
    cut = truncate_middle(text, 90)
    head, marker, tail = cut.partition("\n\n... [910 characters truncated] ...\n\n")
    assert (head, tail) == (text[:60], text[-30:])
    assert len(cut) == 90 + len(marker)


# --- Read and Write -------------------------------------------------------------


def test_read_of_a_missing_file_is_an_error_saying_so(tools: ToolRegistry, tmp_path: Path) -> None:
    outcome = tools.execute("Read", {"file_path": "missing.txt"})
    assert error_text(outcome) == f"Error: FileNotFoundError: File does not exist: {tmp_path / 'missing.txt'}"


def test_read_of_a_directory_is_an_error(tools: ToolRegistry, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert "is a directory" in error_text(tools.execute("Read", {"file_path": "src"}))


def test_read_numbers_lines_like_cat_n(tools: ToolRegistry, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha\nbeta\n")
    assert tools.execute("Read", {"file_path": "f.txt"}) == ToolOutcome("     1\talpha\n     2\tbeta", False)


def test_read_offset_and_limit_select_lines_keeping_their_numbers(tools: ToolRegistry, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    outcome = tools.execute("Read", {"file_path": "f.txt", "offset": 4, "limit": 3})
    assert outcome.content == (
        "     4\tline 4\n     5\tline 5\n     6\tline 6\n(more lines follow; continue with offset=7)"
    )
    last = tools.execute("Read", {"file_path": "f.txt", "offset": 9, "limit": 5})
    assert last.content == "     9\tline 9\n    10\tline 10"


def test_read_past_the_end_or_of_an_empty_file_says_so(tools: ToolRegistry, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "short.txt").write_text("one\n")
    assert tools.execute("Read", {"file_path": "empty.txt"}).content == "(the file is empty)"
    assert tools.execute("Read", {"file_path": "short.txt", "offset": 5}).content == (
        "(the file has fewer than 5 lines)"
    )


def test_read_offset_zero_is_an_error(tools: ToolRegistry, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\n")
    assert "must be at least 1" in error_text(tools.execute("Read", {"file_path": "f.txt", "offset": 0}))


def test_read_of_binary_content_replaces_undecodable_bytes(tools: ToolRegistry, tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"ok\xff\xfe\n")
    assert tools.execute("Read", {"file_path": "blob.bin"}) == ToolOutcome("     1\tok\ufffd\ufffd", False)


def test_write_then_read_roundtrips_and_creates_parent_directories(tools: ToolRegistry, tmp_path: Path) -> None:
    written = tools.execute("Write", {"file_path": "deep/er/notes.md", "content": "héllo\nworld\n"})
    assert written == ToolOutcome(f"Wrote 13 bytes to {tmp_path / 'deep/er/notes.md'}", False)
    absolute = str(tmp_path / "deep/er/notes.md")
    assert tools.execute("Read", {"file_path": absolute}).content == "     1\théllo\n     2\tworld"


# --- Bash -----------------------------------------------------------------------


def live_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are not zombies (read from /proc)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue  # exited while we looked
        state, _ppid, group = stat.rpartition(")")[2].split()[:3]
        if int(group) == pgid and state != "Z":
            members.append(int(entry.name))
    return members


def assert_group_dies(pgid: int) -> None:
    deadline = time.monotonic() + 5
    while live_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.02)  # real-time: polling real processes until they exit
    assert live_members(pgid) == []


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def test_bash_returns_labelled_stdout_stderr_and_exit_code(tools: ToolRegistry) -> None:
    outcome = tools.execute("Bash", {"command": "echo out; echo err >&2; exit 3"})
    assert outcome == ToolOutcome("[stdout]\nout\n[stderr]\nerr\nexit code: 3", False)


def test_bash_failing_ls_is_output_with_a_nonzero_exit_code_not_an_error(tools: ToolRegistry) -> None:
    outcome = tools.execute("Bash", {"command": "ls no-such-dir"})
    assert not outcome.is_error
    assert outcome.content.startswith("[stderr]\nls: cannot access")
    assert "no-such-dir" in outcome.content
    assert outcome.content.endswith("exit code: 2")


def test_bash_runs_in_the_working_directory_with_empty_stdin(tools: ToolRegistry, tmp_path: Path) -> None:
    outcome = tools.execute("Bash", {"command": "pwd; cat"})
    assert outcome.content == f"[stdout]\n{tmp_path}\nexit code: 0"


def test_bash_timeout_returns_partial_output_and_the_marker(tools: ToolRegistry) -> None:
    started = time.monotonic()
    outcome = tools.execute("Bash", {"command": "echo started; sleep 30", "timeout": 0.3})
    assert time.monotonic() - started < 5
    assert outcome == ToolOutcome("[stdout]\nstarted\n[timed out after 0.3s]", False)


@needs_proc
def test_bash_timeout_kills_background_grandchildren_holding_the_pipe(tools: ToolRegistry) -> None:
    started = time.monotonic()
    outcome = tools.execute("Bash", {"command": "echo $$; sleep 30 & sleep 30", "timeout": 0.3})
    assert time.monotonic() - started < 5
    assert outcome.content.endswith("[timed out after 0.3s]")
    assert_group_dies(int(outcome.content.splitlines()[1]))


@needs_proc
def test_bash_background_child_neither_outlives_nor_delays_the_command(tools: ToolRegistry) -> None:
    started = time.monotonic()
    outcome = tools.execute("Bash", {"command": "echo $$; sleep 30 & echo done"})
    assert time.monotonic() - started < 5
    assert outcome.content.endswith("done\nexit code: 0")
    assert_group_dies(int(outcome.content.splitlines()[1]))


@needs_proc
def test_ctrl_c_during_bash_kills_the_command_and_reaches_the_caller(tools: ToolRegistry, tmp_path: Path) -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    started = time.monotonic()
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            tools.execute("Bash", {"command": "echo $$ > pgid; sleep 30 & sleep 30"})
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 5
    assert_group_dies(int((tmp_path / "pgid").read_text()))


def test_bash_default_timeout_comes_from_the_constructor(tmp_path: Path) -> None:
    outcome = ToolRegistry([Bash(default_timeout=0.2)], cwd=tmp_path).execute("Bash", {"command": "sleep 30"})
    assert outcome.content == "[timed out after 0.2s]"


def test_bash_non_positive_timeout_is_an_error(tools: ToolRegistry) -> None:
    outcome = tools.execute("Bash", {"command": "true", "timeout": 0})
    assert error_text(outcome) == "Error: ValueError: timeout must be positive, got 0"


def test_bash_flood_keeps_only_head_and_tail_of_each_stream(tmp_path: Path) -> None:
    registry = ToolRegistry([Bash(max_capture=1000)], cwd=tmp_path)
    command = "printf start; head -c 100000 /dev/zero | tr '\\0' x; printf end"
    outcome = registry.execute("Bash", {"command": command})
    assert outcome.content.startswith("[stdout]\nstartxxx")
    assert "\n... [99,008 bytes dropped] ...\n" in outcome.content
    assert outcome.content.endswith("xxxend\nexit code: 0")
