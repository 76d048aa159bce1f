"""What the request-wide rules need of each message, noted as the one pass over
``messages`` reads it (``messages.HistoryPass``), so that no rule walks the list again:

    cache_controls   blocks carrying ``cache_control`` (a block's own list ``content`` too),
                     for ``request.cache_control_limit``
    ttls             the path of the first block cached for 1 h, of the first cached for
                     5 min (``ttl`` "5m" or none), and of the first 1 h one after a 5 min
                     one, for ``request.cache_ttls_in_order``
    file_sources     (path, type) of each block whose ``source`` is an uploaded file
                     (tool_result content too), for ``request.file_sources_need_the_files_beta``
    signed           (message, block, signature, thinking) of each thinking block with a
                     string signature, for ``signatures.signed_by_the_requested_model``
                     and ``signatures.thinking_as_handed_out``
    last_assistant   the index of the last assistant message, for the latter
    opener           (message, its first block's type, its tool_use ids) of the first
                     assistant message after the last user message without tool results:
                     where the assistant turn a tool loop belongs to opens, for
                     ``thinking_kept.thinking_opens_the_tool_loop``

A tally of ``messages[:n]`` plus the notes of the messages after it is the tally of the
whole list: a conversation resumed from a tally reads only its new messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_MAPPING = (dict, Mapping)


@dataclass(slots=True)
class CacheTtls:
    """Where the blocks marked with ``cache_control`` ask for 1 h and for 5 min, in the
    order the API processes them (``tools``, ``system``, ``messages``)."""

    first_long: str | None = None
    first_short: str | None = None
    long_after_short: str | None = None

    def note(self, at: str, block: Any) -> None:
        """Note the block at path ``at`` (any JSON: only an object with a ``cache_control`` object counts)."""
        mark = block.get("cache_control") if isinstance(block, _MAPPING) else None
        if not isinstance(mark, _MAPPING):
            return
        if mark.get("ttl", "5m") == "1h":
            self.first_long = self.first_long or at
            if self.first_short is not None:
                self.long_after_short = self.long_after_short or at
        elif mark.get("ttl", "5m") == "5m":
            self.first_short = self.first_short or at

    def copy(self) -> CacheTtls:
        """The same notes, to go on from."""
        return CacheTtls(self.first_long, self.first_short, self.long_after_short)


@dataclass(slots=True)
class Tally:
    """The notes of the messages read so far (see the module's table)."""

    cache_controls: int = 0
    ttls: CacheTtls = field(default_factory=lambda: CacheTtls())
    file_sources: list[tuple[str, str]] = field(default_factory=list)
    signed: list[tuple[int, int, str, Any]] = field(default_factory=list)
    opener: tuple[int, str, tuple[str, ...]] | None = None
    opening: bool = False  # a user message without tool results was read: the next assistant message opens a turn
    last_assistant: int | None = None

    def note(self, index: int, raw: Any) -> None:
        """Note message ``index`` (any JSON: only an object with a list ``content`` has blocks)."""
        content = raw.get("content") if isinstance(raw, _MAPPING) else None
        self._note_turn(index, raw.get("role") if isinstance(raw, _MAPPING) else None, content)
        if not isinstance(content, list):
            return
        for k, block in enumerate(content):
            if not isinstance(block, _MAPPING):
                continue
            kind, inner = block.get("type"), block.get("content")
            self.cache_controls += block.get("cache_control") is not None
            self.ttls.note(f"messages.{index}.content.{k}", block)
            self._note_file_source(f"messages.{index}.content.{k}", block)
            if isinstance(inner, list):
                self.cache_controls += sum(isinstance(b, _MAPPING) and b.get("cache_control") is not None for b in inner)
                for j, b in enumerate(inner):
                    self.ttls.note(f"messages.{index}.content.{k}.content.{j}", b)
                if kind == "tool_result":
                    for j, b in enumerate(inner):
                        if isinstance(b, _MAPPING):
                            self._note_file_source(f"messages.{index}.content.{k}.tool_result.content.{j}", b)
            if kind == "thinking":
                signature = block.get("signature", "")
                if isinstance(signature, str):
                    self.signed.append((index, k, signature, block.get("thinking")))

    def _note_turn(self, index: int, role: Any, content: Any) -> None:
        blocks = content if isinstance(content, list) else []
        if role == "assistant":
            self.last_assistant = index
        if role == "user" and not any(isinstance(b, _MAPPING) and b.get("type") == "tool_result" for b in blocks):
            self.opener, self.opening = None, True
        elif role == "assistant" and self.opening:
            first = blocks[0].get("type") if blocks and isinstance(blocks[0], _MAPPING) else "text"
            calls = tuple(b["id"] for b in blocks if isinstance(b, _MAPPING) and b.get("type") == "tool_use"
                          and isinstance(b.get("id"), str))
            self.opener, self.opening = (index, str(first), calls), False

    def _note_file_source(self, at: str, block: Mapping[str, Any]) -> None:
        kind, source = block.get("type"), block.get("source")
        if isinstance(kind, str) and isinstance(source, _MAPPING) and source.get("type") == "file":
            self.file_sources.append((at, kind))

    def copy(self) -> Tally:
        """A tally to go on from, leaving this one as it is."""
        return Tally(self.cache_controls, self.ttls.copy(), list(self.file_sources), list(self.signed), self.opener, self.opening,
                     self.last_assistant)
