"""What the installed anthropic SDK raises when reading a streamed body fails: up to 2.16
httpx2's own error escapes unwrapped; from 2.17 it is the ``__cause__`` of an
``APIConnectionError`` (``APITimeoutError`` for a timeout)."""

from __future__ import annotations

import re

import anthropic

_MAJOR_MINOR = tuple(int(part) for part in re.findall(r"\d+", anthropic.__version__)[:2])
SDK_WRAPS_STREAM_READS = _MAJOR_MINOR >= (2, 17)
STREAM_CUT_RAISES = "APIConnectionError" if SDK_WRAPS_STREAM_READS else "RemoteProtocolError"
"""The name of what a naive agent lets out of a stream cut with a FIN."""


def read_failure(raised: BaseException) -> BaseException:
    """The httpx2 error behind ``raised``, checking that the SDK wrapped it exactly when
    this SDK version does."""
    if SDK_WRAPS_STREAM_READS:
        assert isinstance(raised, anthropic.APIConnectionError), repr(raised)
        assert raised.__cause__ is not None, repr(raised)
        return raised.__cause__
    assert not isinstance(raised, anthropic.APIError), repr(raised)
    return raised
