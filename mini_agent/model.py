"""Layer 1, one request: stream a reply from the Messages API through the anthropic SDK.

The SDK's own retries are off (``max_retries=0``): the loop retries, visibly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

import anthropic
import httpx2

from .errors import IncompleteStreamError, MalformedStreamError
from .events import TextDelta
from .settings import SWITCH_OFF

FALLBACK_BETA = "server-side-fallback-2026-07-01"


def fallbacks_enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Server-side fallbacks are on unless ``MINI_AGENT_FALLBACKS`` turns them off."""
    return environ.get("MINI_AGENT_FALLBACKS", "1").strip().lower() not in SWITCH_OFF


def sdk_client(**options: Any) -> anthropic.Anthropic:
    """The SDK client mini_agent runs on, from the environment (``ANTHROPIC_API_KEY``,
    ``ANTHROPIC_BASE_URL``) and ``options``: its own retries are off, the loop retries."""
    return anthropic.Anthropic(max_retries=0, **options)


@dataclass(frozen=True)
class Reply:
    """A complete assistant message, as a history entry, with its stop reason and usage."""

    message: dict[str, Any]
    stop_reason: str | None
    usage: dict[str, int]


class AnthropicClient:
    """Streams one reply per call; raises whatever the SDK raises (see ``errors``)."""

    def __init__(
        self,
        client: anthropic.Anthropic | None = None,
        *,
        model: str,
        max_tokens: int,
        system: str | None = None,
        fallbacks: bool | None = None,
        timeout: float | None = None,
    ) -> None:
        self.client = client if client is not None else sdk_client()
        self.model = model
        self.max_tokens = max_tokens
        self.system = system
        self.fallbacks = fallbacks_enabled() if fallbacks is None else fallbacks
        self.timeout = timeout

    def request_options(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The keyword arguments of one ``beta.messages.stream`` call."""
        options: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": list(messages)}
        if tools:
            options["tools"] = list(tools)
        if self.system:
            options["system"] = self.system
        if self.fallbacks:
            options["betas"] = [FALLBACK_BETA]
            options["fallbacks"] = "default"
        if self.timeout is not None:  # a bare float would stretch the SDK's 5 s connect timeout too
            options["timeout"] = httpx2.Timeout(self.timeout, connect=anthropic.DEFAULT_TIMEOUT.connect)
        return options

    def stream(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Iterator[TextDelta | Reply]:
        """Yield text as it arrives, then the finished ``Reply``.

        A stream that closes without ``message_stop`` raises IncompleteStreamError, one
        whose events the SDK cannot put together MalformedStreamError;
        a connection lost or stalled mid-stream raises httpx2's own error, whether or not
        the SDK wraps it; everything else (status errors, bad JSON) comes from the SDK
        unchanged.
        """
        started = stopped = False
        with self.client.beta.messages.stream(**self.request_options(messages, tools)) as stream:
            try:
                for event in stream:
                    started = started or event.type == "message_start"
                    stopped = stopped or event.type == "message_stop"
                    if event.type == "content_block_delta" and event.delta.type == "text_delta":
                        yield TextDelta(event.delta.text)
            except IndexError as exc:  # the SDK looks blocks up by the events' index: out of order
                raise MalformedStreamError(f"stream events out of order: {exc}") from exc
            except anthropic.APIConnectionError as exc:  # anthropic >= 2.17 wraps a failed body read
                if isinstance(exc.__cause__, httpx2.TransportError):
                    raise exc.__cause__ from None
                raise
            if not started:  # the SDK would fail an assert in get_final_message
                raise IncompleteStreamError("the stream ended before message_start")
            final = stream.get_final_message()
        if final.stop_reason is None or not stopped:  # message_delta may have come, message_stop not
            raise IncompleteStreamError("the stream ended before message_stop")
        usage = {k: v for k, v in final.usage.model_dump().items() if isinstance(v, int)}
        blocks = [block_param(b) for b in final.content]
        message = {"role": "assistant", "content": [b for b in blocks if not is_blank_text(b)]}
        yield Reply(message, final.stop_reason, usage)


def block_param(block: Any) -> dict[str, Any]:
    """A response content block as a request content block (no output-only fields)."""
    if block.type == "text":
        param: dict[str, Any] = {"type": "text", "text": block.text}
        if getattr(block, "citations", None):
            param["citations"] = [c.model_dump(mode="json", exclude_none=True) for c in block.citations]
        return param
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if block.type == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if block.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    return block.model_dump(mode="json", exclude_none=True)


def is_blank_text(block: dict[str, Any]) -> bool:
    """A text block the API would reject in a request (empty or whitespace only)."""
    return block["type"] == "text" and not block["text"].strip()
