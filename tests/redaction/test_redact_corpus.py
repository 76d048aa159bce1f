"""Every fake, planted in every place a session puts it, written every way a JSON
encoder writes it, and split at every position across two SSE deltas: nothing of it
survives redaction, the body still parses, and the stream reassembles to the redacted
text."""

from __future__ import annotations

import json

import pytest

from harness.cassette.redaction import decode, maintained
from harness.cassette.redaction.find import RuleSet, find_secrets
from harness.cassette.redaction.redact import Redactor
from harness.cassette.scan import PUBLIC_PREFIX
from redaction.fakes import FAKES, ONE_PER_FAMILY, UNKNOWN, fake_id
from redaction.leaks import leaked
from redaction.places import (
    ENCODINGS,
    PLACES,
    error_body,
    split_points,
    stream,
    stream_content,
)


@pytest.mark.parametrize("fake", FAKES, ids=fake_id)
@pytest.mark.parametrize("place", PLACES)
def test_a_planted_secret_leaves_no_trace_in_a_request_body(redactor, fake, place):
    for encoding, dumps in ENCODINGS.items():
        body = dumps(PLACES[place](fake)).encode()
        assert leaked(body, fake), "the fake must be visible before redaction"
        redacted = redactor.redact_body(body)
        assert leaked(redacted, fake) == [], encoding
        assert json.loads(redacted)["model"] == "claude-sonnet-4-5"
        assert "<redacted:" in redacted.decode(), encoding


@pytest.mark.parametrize("fake", FAKES, ids=fake_id)
def test_a_planted_secret_leaves_no_trace_in_an_error_body(redactor, fake):
    for encoding, dumps in ENCODINGS.items():
        body = dumps(error_body(fake)).encode()
        assert leaked(body, fake), "the fake must be visible before redaction"
        redacted = redactor.redact_body(body)
        assert leaked(redacted, fake) == [], encoding
        assert json.loads(redacted)["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("fake", ONE_PER_FAMILY, ids=fake_id)
@pytest.mark.parametrize("kind", ["text", "thinking", "tool_use"])
def test_a_secret_split_at_every_position_across_two_deltas_is_redacted_in_both(redactor, fake, kind):
    content = stream_content(kind, fake)
    expected = redactor.redact_text(content)
    assert leaked(expected, fake) == [] and expected != content
    for split in split_points(content, fake.secrets[0]):
        redacted = redactor.redact_body(stream(kind, content, split))
        events = [json.loads(m.group(1)) for m in decode.SSE_DATA.finditer(redacted.decode())]
        deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
        field = {"text": "text", "thinking": "thinking", "tool_use": "partial_json"}[kind]
        assert "".join(d.get(field, "") for d in deltas) == expected, split  # so nothing of the fake is left


def test_redaction_is_deterministic_across_redactors_with_the_same_key(redactor):
    body = json.dumps(PLACES["read"](FAKES[0])).encode()
    first, second = Redactor(key=redactor.key).redact_body(body), Redactor(key=redactor.key).redact_body(body)
    assert first == second
    assert Redactor(key=b"another key").redact_body(body) != first


def test_redacting_twice_changes_nothing_more(redactor):
    for fake in FAKES:
        once = redactor.redact_body(json.dumps(PLACES["bash-env"](fake)).encode())
        assert redactor.redact_body(once) == once, fake.family


MAINTAINED = RuleSet(maintained.rules())
CUT_FAMILIES = [f for f in ONE_PER_FAMILY if not PUBLIC_PREFIX.match(f.secrets[0])
                and not find_secrets(f.value, MAINTAINED) and f.family not in UNKNOWN]


@pytest.mark.parametrize("fake", CUT_FAMILIES, ids=fake_id)
def test_a_stream_cut_inside_the_second_half_of_a_secret_leaves_no_usable_part(redactor, fake):
    """Where all of the value is secret (no public prefix such as ``sk-ant-api03-``, whose
    first 12 characters are no use) and the project's own rules (which take lengths as
    "at least") find it: a cut stream keeps none of its 12-character pieces. The
    maintained set's rules want the whole token, and a stream that breaks is not recorded."""
    content = stream_content("text", fake)
    at = content.index(fake.secrets[0])
    full = stream("text", content, at + 12).decode()
    second = full.index(json.dumps(content[at + 12 :])[1:16])
    for cut in range(second, second + len(fake.secrets[0]) - 12):
        redacted = redactor.redact_body(full[:cut].encode()).decode()
        assert leaked(redacted, fake) == [], cut
