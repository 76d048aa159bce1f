"""The recording paths of the socket side keep no planted secret either: ``harness proxy``
(a client's session recorded through a loopback proxy) and ``harness serve --log`` (the
server's JSON lines with headers and bodies). The same fakes as tests/test_record_leaks.py,
in the user's text, a tool result, the key header and an answer whose text and thinking
each split a secret across two deltas; a credential-named environment variable's value,
which no rule knows, too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
from test_proxy import start_proxy, stop
from test_record_leaks import (
    BINARY_DUMP,
    DOTENV,
    ENV_VALUE,
    KEY,
    PLANTED,
    SPLIT_IN_TEXT,
    SPLIT_IN_THINKING,
    USER_LINE,
    leaked,
    leaks,
    split_answer,
)
from test_record_leaks import environment as environment  # the fixture

from harness.cassette.log_scrub import scrub_for_log
from harness.cassette.scan import scan_paths
from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

MODEL = "claude-sonnet-4-5"


def planted_session(client: anthropic.Anthropic) -> None:
    """A streamed turn holding every fake, then a follow-up that sends the .env back as a
    tool-result-like user text."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": USER_LINE}]
    with client.messages.stream(model=MODEL, max_tokens=64, messages=messages) as stream:
        answer = stream.get_final_message()
    messages += [
        {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in answer.content]},
        {"role": "user", "content": f"Here is the .env:\n{DOTENV}"},
    ]
    client.messages.create(model=MODEL, max_tokens=64, messages=messages)


def replies() -> list[Reply]:
    return [Reply(**split_answer(SPLIT_IN_TEXT, SPLIT_IN_THINKING)), Reply(message={"text": "Noted."})]


def test_the_proxy_records_none_of_the_planted_secrets(tmp_path: Path, environment: None) -> None:  # noqa: F811
    cassette = tmp_path / "proxied.yaml"
    responder = Responder(replies(), clock=VirtualClock())
    with FaultServer(responder, time_scale=0) as upstream:
        process, url = start_proxy("--upstream", upstream.url, "--record", str(cassette))
        try:
            planted_session(anthropic.Anthropic(api_key=KEY, base_url=url, max_retries=0))
        finally:
            output = stop(process)
    assert process.returncode == 0, output
    wire = json.dumps([r.body for r in responder.requests], ensure_ascii=False)
    assert [f.family for f in PLANTED if f.value != ENV_VALUE and not leaked(wire, f)] == []  # they went over the wire
    assert leaks(cassette) == [] and scan_paths([cassette]) == []
    assert "<redacted:env-MY_SERVICE_TOKEN:" in cassette.read_text() or ENV_VALUE not in wire
    assert not any(leaked(output, fake) for fake in PLANTED)  # nor in what the proxy printed


def test_the_serve_log_keeps_none_of_the_planted_secrets(tmp_path: Path, environment: None) -> None:  # noqa: F811
    log = tmp_path / "log.jsonl"
    responder = Responder([*replies(), Reply(error=500, body=BINARY_DUMP)], clock=VirtualClock())
    with FaultServer(responder, time_scale=0, log_path=str(log), scrub=scrub_for_log) as server:
        client = anthropic.Anthropic(api_key=KEY, base_url=server.url, max_retries=0)
        planted_session(client)
        try:
            client.messages.create(model=MODEL, max_tokens=8, messages=[{"role": "user", "content": "again"}])
        except anthropic.InternalServerError:
            pass
    text = log.read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines()]
    assert len(entries) == 3 and all(e["request"] and e["request"]["body"] for e in entries)
    views = [text] + [e[side]["body"] or "" for e in entries for side in ("request", "response")]
    assert sorted({fake.family for fake in PLANTED for view in views if leaked(view, fake)}) == []
    assert entries[2]["response"]["body"].startswith("(not logged: ")  # the binary body: not redactable, not kept
