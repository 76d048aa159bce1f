"""One redactor with a fixed key for the redaction tests."""

from __future__ import annotations

import pytest

from harness.cassette.redaction.redact import Redactor

KEY = b"test-redaction-key"


@pytest.fixture(scope="session")
def redactor() -> Redactor:
    return Redactor(key=KEY)
