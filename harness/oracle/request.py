"""The rules on a whole request body, one small function each, run in the order the API
reports them in: the fields' types and ranges first (``fields``: the API validates those
first), then ``REQUEST_RULES``: the messages (``messages``), whether thinking may close
the conversation, the tool definitions, and request-wide limits. A rule is
``rule(body, history)``: ``history`` is the one pass over ``messages`` (None when they are
not a list), read to the end; what a rule needs of every message the pass noted
(``tallies``), so no rule walks the list again.

``BETA_RULES`` hold where no beta of the request lifts them (the table in ``betas`` says
which beta lifts which rule): they run after the fields, and only when the caller knows
the request's betas (``check_request(body, betas=[…])``; ``[]`` for none). A body whose
headers were not kept is not judged by them: a false alarm is worse than a miss. The
rules that need what the API answered before run last, each only when the caller gives
what the server remembers: thinking signed by another model (``signatures``), thinking
dropped from the turn a tool loop belongs to (``thought_calls``), and thinking edited
before it came back (``thoughts``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from harness.oracle import wording
from harness.oracle.betas import lifted_rules
from harness.oracle.fields import UNSET, field_violations, integer_problem
from harness.oracle.messages import HistoryPass, content_blocks
from harness.oracle.signatures import (
    signed_by_the_requested_model,
    thinking_as_handed_out,
)
from harness.oracle.tallies import CacheTtls
from harness.oracle.thinking_kept import thinking_opens_the_tool_loop
from harness.oracle.wording import Violation

MAX_CACHE_CONTROL_BLOCKS = 4
MAX_TOOL_NAME = 128
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
_THINKING = ("thinking", "redacted_thinking")
_MAPPING = (dict, Mapping)
SERVER_TOOL_TYPES = ("web_search_", "web_fetch_", "code_execution_", "advisor_", "tool_search_tool_")
"""The tool ``type``s the API runs itself, by prefix (the tool reference's "Execution:
Server" rows); ``bash_``, ``text_editor_``, ``computer_`` and ``memory_`` tools are the
client's."""
FILE_SOURCE_TAGS = {"document": "'base64', 'content', 'text', 'url'", "image": "'base64', 'url'"}
RequestRule = Callable[[Mapping[str, Any], HistoryPass | None], list[Violation]]


def check_request(
    body: Mapping[str, Any], *, signatures: Mapping[str, str] | None = None, betas: Sequence[str] | None = None,
    thought_calls: Collection[str] | None = None, thoughts: Mapping[str, str] | None = None,
) -> list[Violation]:
    """Check a whole request body. ``signatures``: the thinking signatures the API handed
    out, each with the model that wrote it (what a fake API remembers of its answers);
    without them, signatures are not checked. ``betas``: the request's ``anthropic-beta``
    values (``[]``: none); without them, the rules a beta lifts are not checked.
    ``thought_calls``: the tool_use ids the API handed out in answers that opened with
    thinking; without them, thinking dropped inside a tool loop is not checked."""
    messages = body.get("messages")
    history = None
    if isinstance(messages, list):
        history = HistoryPass(server_tool_names(body))
        history.read(messages, len(messages))
    return judge(body, history, signatures=signatures, betas=betas, thought_calls=thought_calls, thoughts=thoughts)


def judge(
    body: Mapping[str, Any], history: HistoryPass | None, *,
    signatures: Mapping[str, str] | None = None, betas: Sequence[str] | None = None,
    outside: dict[Any, list[Violation]] | None = None, thought_calls: Collection[str] | None = None,
    thoughts: Mapping[str, str] | None = None,
) -> list[Violation]:
    """``check_request`` once its ``messages`` (a list) are read by ``history`` to the end
    (None when they are not a list): every rule, in the order the API reports them. The
    rules take the body and the pass, whose notes (``tallies``) spare them reading the
    messages again. ``outside``: the verdicts of the rules that read nothing of the
    messages (``OUTSIDE_MESSAGES``, and the fields), kept from an earlier request whose
    body was this one's outside its messages, byte for byte; filled here where empty."""
    known: dict[Any, list[Violation]] = {} if outside is None else outside
    if field_violations not in known:
        known[field_violations] = field_violations(body)
    found = list(known[field_violations])
    if betas is not None:
        lifted = lifted_rules(betas)
        found += [v for rule in BETA_RULES if rule.__name__ not in lifted for v in _judged(rule, body, history, known)]
    for rule in REQUEST_RULES:
        found += _judged(rule, body, history, known)
    if signatures and history is not None:
        found += signed_by_the_requested_model(body, history.tally, signatures)
    if thought_calls and history is not None:
        found += thinking_opens_the_tool_loop(body, history.tally, thought_calls)
    if thoughts and history is not None:
        found += thinking_as_handed_out(history.tally, thoughts)
    return found


def _judged(rule: RequestRule, body: Mapping[str, Any], history: HistoryPass | None, known: dict[Any, list[Violation]]) -> list[Violation]:
    if rule not in OUTSIDE_MESSAGES:
        return rule(body, history)
    if rule not in known:
        known[rule] = rule(body, history)
    return known[rule]


def error_body(violations: Sequence[Violation], *, request_id: str | None = None) -> dict:
    """The 400 body the live API returns; like the API it reports one violation, the first."""
    if not violations:
        raise ValueError("error_body needs at least one violation")
    body: dict[str, Any] = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": violations[0].api_text},
    }
    if request_id is not None:
        body["request_id"] = request_id
    return body


def messages_rules(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``messages: Field required`` / ``messages: Input should be a valid list``; then
    every rule on the list (``messages.check_history``: what ``history`` found)."""
    if history is not None:
        return history.violations()
    messages = body.get("messages")
    return [Violation("messages", wording.FIELD_REQUIRED if messages is None else wording.NOT_A_LIST)]


def thinking_enabled_for_final_thinking(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``messages.N.content.K: When thinking is disabled, an `assistant` message in the
    final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in
    your request.``"""
    messages, thinking = body.get("messages"), body.get("thinking")
    if not isinstance(messages, list) or not messages:
        return []
    if isinstance(thinking, _MAPPING) and thinking.get("type", "disabled") != "disabled":
        return []
    last = messages[-1]
    if not isinstance(last, _MAPPING) or last.get("role") != "assistant":
        return []
    for k, block in enumerate(content_blocks(last.get("content")) or []):
        if isinstance(block, _MAPPING) and block.get("type") in _THINKING:
            return [Violation(f"messages.{len(messages) - 1}.content.{k}", wording.THINKING_DISABLED)]
    return []


def tool_names_match_pattern(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`` /
    ``String should have at most 128 characters`` -- custom tools (``type`` absent or
    ``custom``); ``tools.N: Input should be a valid dictionary`` for a tool that is none."""
    found: list[Violation] = []
    for i, tool in enumerate(_tools(body)):
        if not isinstance(tool, _MAPPING):
            found.append(Violation(f"tools.{i}", wording.NOT_AN_OBJECT))
        elif tool.get("type") in (None, "custom"):
            name = tool.get("name")
            if isinstance(name, str) and len(name) > MAX_TOOL_NAME:
                found.append(Violation(f"tools.{i}.custom.name", wording.NAME_TOO_LONG.format(limit=MAX_TOOL_NAME)))
            elif not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
                found.append(Violation(f"tools.{i}.custom.name", wording.TOOL_NAME_PATTERN))
    return found


def tool_names_unique(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``tools: Tool names must be unique.`` -- over all tools, custom or not."""
    names = [t.get("name") for t in _tools(body) if isinstance(t, _MAPPING) and isinstance(t.get("name"), str)]
    return [Violation("tools", wording.TOOL_NAMES_UNIQUE)] if len(set(names)) < len(names) else []


def cache_control_limit(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``A maximum of 4 blocks with cache_control may be provided. Found N.`` (no path) --
    blocks carrying ``cache_control`` in ``system``, ``tools`` and ``messages``
    (tool_result content too)."""
    cached = _cache_control_count(body) + (history.tally.cache_controls if history is not None else 0)
    if cached > MAX_CACHE_CONTROL_BLOCKS:
        return [Violation("", wording.CACHE_CONTROL_LIMIT.format(limit=MAX_CACHE_CONTROL_BLOCKS, found=cached))]
    return []


def thinking_budget_below_max_tokens(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """```max_tokens` must be greater than `thinking.budget_tokens`. Please consult our
    documentation at …`` (no path) -- with ``thinking: {type: enabled}``. Lifted by
    ``interleaved-thinking-2025-05-14``: "With interleaved thinking, the `budget_tokens`
    can exceed the `max_tokens` parameter" (extended thinking docs)."""
    thinking = body.get("thinking")
    if not isinstance(thinking, _MAPPING) or thinking.get("type") != "enabled":
        return []
    (budget_problem, budget), (max_problem, max_tokens) = (integer_problem(thinking.get("budget_tokens")),
                                                           integer_problem(body.get("max_tokens")))
    if budget_problem or max_problem or max_tokens > budget:
        return []
    return [Violation("", wording.BUDGET_NOT_BELOW_MAX_TOKENS)]


def thinking_without_a_forced_tool(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``Thinking may not be enabled when tool_choice forces tool use.`` (no path) -- with
    ``thinking: {type: enabled}`` and a ``tool_choice`` of ``any`` or ``tool`` ("tool_choice
    options that force tool use return an error with manual extended thinking", the thinking
    docs; ``adaptive`` thinking takes a forced tool on some models: not judged)."""
    thinking, choice = body.get("thinking"), body.get("tool_choice")
    if not isinstance(thinking, _MAPPING) or thinking.get("type") != "enabled" or not isinstance(choice, _MAPPING):
        return []
    return [Violation("", wording.THINKING_WITH_A_FORCED_TOOL)] if choice.get("type") in ("any", "tool") else []


def temperature_one_with_thinking(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """```temperature` may only be set to 1 when thinking is enabled. Please consult our
    documentation at …`` (no path) -- ``thinking: {type: enabled}`` beside a ``temperature``
    other than 1 ("thinking isn't compatible with temperature or top_k modifications", the
    thinking docs; the live API's text, 2025 and 2026). ``adaptive`` thinking and the legacy
    -1 are not judged; a temperature that is no number is the field rule's."""
    thinking, temperature = body.get("thinking"), body.get("temperature")
    if not isinstance(thinking, _MAPPING) or thinking.get("type") != "enabled" or temperature is None:
        return []
    try:
        value = float(temperature)
    except (TypeError, ValueError, OverflowError):
        return []
    return [Violation("", wording.TEMPERATURE_WITH_THINKING)] if value not in (1.0, float(UNSET)) else []


def file_sources_need_the_files_beta(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``messages.N.content.K.document.source: Input tag 'file' found using 'type' does not
    match any of the expected tags: 'base64', 'content', 'text', 'url'`` (``image``: 'base64',
    'url') -- a ``file`` source (an uploaded file's id), also inside a ``tool_result``.
    Lifted by ``files-api-2025-04-14``."""
    sources = history.tally.file_sources if history is not None else ()
    return [
        Violation(f"{at}.{kind}.source", wording.FILE_SOURCE_TAG.format(tags=FILE_SOURCE_TAGS[kind]))
        for at, kind in sources if kind in FILE_SOURCE_TAGS
    ]


def cache_ttls_in_order(body: Mapping[str, Any], history: HistoryPass | None) -> list[Violation]:
    """``messages.0.content.4.cache_control.ttl: a ttl='1h' cache_control block must not
    come after a ttl='5m' cache_control block. Note that blocks are processed in the
    following order: `tools`, `system`, `messages`.`` (the live API, 2026; the prompt
    caching docs: "cache entries with longer TTL must appear before shorter TTLs"; no
    ``ttl`` is 5 min). The path of a 1 h block in ``tools`` or ``system`` is written as
    the one of a message's block."""
    outside = CacheTtls()
    for key in ("tools", "system"):
        for n, block in enumerate(body[key] if isinstance(body.get(key), list) else []):
            outside.note(f"{key}.{n}", block)
    inside = history.tally.ttls if history is not None else CacheTtls()
    late = outside.long_after_short or (inside.first_long if outside.first_short else None) or inside.long_after_short
    return [Violation(f"{late}.cache_control.ttl", wording.TTL_ORDER)] if late else []


REQUEST_RULES: tuple[RequestRule, ...] = (
    thinking_without_a_forced_tool, temperature_one_with_thinking, messages_rules, thinking_enabled_for_final_thinking,
    tool_names_match_pattern, tool_names_unique, cache_control_limit, cache_ttls_in_order,
)
BETA_RULES: tuple[RequestRule, ...] = (file_sources_need_the_files_beta, thinking_budget_below_max_tokens)
"""The rules a beta lifts (``betas.BETAS``, each beta's ``lifts``), run after the fields."""
OUTSIDE_MESSAGES: frozenset[RequestRule] = frozenset({
    tool_names_match_pattern, tool_names_unique, thinking_budget_below_max_tokens, thinking_without_a_forced_tool,
    temperature_one_with_thinking,
})
"""The rules that read nothing of ``messages``: their verdict holds while the rest of the body does."""


def server_tool_names(body: Mapping[str, Any]) -> frozenset[str]:
    """The names of the server tools the request declares (``SERVER_TOOL_TYPES``)."""
    return frozenset(
        tool["name"] for tool in _tools(body)
        if isinstance(tool, _MAPPING) and isinstance(tool.get("type"), str) and isinstance(tool.get("name"), str)
        and tool["type"].startswith(SERVER_TOOL_TYPES)
    )


def _tools(body: Mapping[str, Any]) -> list[Any]:
    tools = body.get("tools")
    return tools if isinstance(tools, list) else []


def _cache_control_count(body: Mapping[str, Any]) -> int:
    """Blocks with ``cache_control`` in ``system`` and ``tools`` (``messages``: the pass's tally)."""
    blocks: list[Any] = []
    for key in ("system", "tools"):
        if isinstance(body.get(key), list):
            blocks += body[key]
    return sum(isinstance(b, _MAPPING) and b.get("cache_control") is not None for b in blocks)
