"""Which session a request belongs to: each session gets its own Responder (its own
queue of replies, its own threads) and its own part of the report.

A client names its session in one of two ways:

- the URL: ``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT/s/NAME`` makes every request go
  to ``/s/NAME/v1/messages`` — works for any client that takes a base URL;
- a header: ``x-harness-session: NAME`` (the SDKs' ``default_headers``, Claude Code's
  ``ANTHROPIC_CUSTOM_HEADERS``).

The URL wins when both are given. A request that names no session belongs to the
default session (``""``). Within one session, the replies are served in the order the
requests arrive, whichever conversation sends them; the report then tells the
conversations apart by their content (``harness.scenario.checks.wire_view.conversations``).
So sub-agents or parallel conversations of one client that need replies of their own
must each be given a session name.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from harness.wire.http11 import Request

SESSION_HEADER = "x-harness-session"
DEFAULT_SESSION = ""
MAX_NAME = 100
_PREFIX = re.compile(r"^/s/([^/]+)(/.*)?$")


def session_of(request: Request) -> tuple[str, str]:
    """``(session name, path without the session prefix)``."""
    path = request.path
    match = _PREFIX.match(path)
    if match:
        return _clean(unquote(match.group(1))), match.group(2) or "/"
    return _clean(request.headers.get(SESSION_HEADER, DEFAULT_SESSION)), path


def _clean(name: str) -> str:
    """A session name fit for a report: printable, at most ``MAX_NAME`` characters."""
    return "".join(c for c in name if c.isprintable())[:MAX_NAME].strip()
