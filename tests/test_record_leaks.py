"""No planted secret reaches a cassette, whichever way it is recorded: ``harness record``,
``harness record --agent``, ``record_over_loopback`` and the ``cassette`` fixture in record
mode. Each session plants every fake of tests/redaction/fakes.py where real sessions put
secrets — a file the agent Reads, a ``.env`` printed by Bash, a tool input the model
writes, URLs and header lines in the user's text, model text and thinking split inside a
secret across two deltas — and a credential-named environment variable's value, which no
rule knows. The secrets did go over the wire; the cassette holds none of them (in any
decoded view), the scanner passes it, and a replay still matches."""

from __future__ import annotations

import base64
import contextlib
import json
from pathlib import Path
from typing import Any, Iterator

import anthropic
import pytest
import yaml
from redaction.fakes import FAKES, Fake
from redaction.leaks import leaked
from redaction.places import PLACES, file_text

from harness.cassette.record import record_over_loopback
from harness.cassette.replay import replay_session
from harness.cassette.scan import scan_paths
from harness.cli import main
from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.cassette_file import load_cassette, response_body_bytes
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

pytest_plugins = ["pytester"]

KEY = "sk-ant-api03-" + "Lk4" * 30
ENV_NAME, ENV_VALUE = "MY_SERVICE_TOKEN", "s3rvice-" + "Passphrase-42"  # no rule knows its shape
ENV_FAKE = Fake("env", ENV_VALUE, f"SERVICE={ENV_VALUE}", (ENV_VALUE,))
PLANTED = [*FAKES, ENV_FAKE]
ONE_LINE = [fake for fake in FAKES if "\n" not in fake.value]
USER_LINE = "Deploy with these: " + " ; ".join(fake.value for fake in ONE_LINE)
SPLIT_IN_TEXT, SPLIT_IN_THINKING = FAKES[0], next(f for f in FAKES if f.family == "github-token")
CONFIG = "".join(file_text(fake) for fake in FAKES) + f"{ENV_VALUE}\n"
DOTENV = "".join(f"{fake.line}\n" for fake in FAKES)
TOOLS = {  # what each agent calls its Read, Bash and Write tools, and their arguments
    "mini_agent": (("Read", "file_path"), ("Bash", "command"), ("Write", "file_path", "content")),
    "careful": (("read_file", "path"), ("shell", "cmd"), ("write_file", "path", "text")),
}


def split_answer(text_fake: Fake, thinking_fake: Fake) -> dict[str, Any]:
    """A message whose thinking and text each hold a secret cut in two by the delta boundary."""
    thinking, text = f"The key is {thinking_fake.value} here.", f"Found it:\n{text_fake.value}\nKeep it private."
    cut_thinking, cut_text = thinking.index(thinking_fake.value) + 9, text.index(text_fake.value) + 20

    def delta(index: int, kind: str, field: str, piece: str) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: piece}}

    return {"events": [
        {"type": "message_start", "message": {"id": "msg_split", "type": "message", "role": "assistant", "content": [],
                                              "model": "claude-sonnet-4-5", "stop_reason": None,
                                              "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        delta(0, "thinking_delta", "thinking", thinking[:cut_thinking]),
        delta(0, "thinking_delta", "thinking", thinking[cut_thinking:]),
        delta(0, "signature_delta", "signature", base64.b64encode(b"EquallyFakeSignature").decode()),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        delta(1, "text_delta", "text", text[:cut_text]),
        delta(1, "text_delta", "text", text[cut_text:]),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 40}},
        {"type": "message_stop"},
    ]}


def session(agent: str, *, write: bool = True) -> list[dict[str, Any]]:
    """The replies of the planted session, as scenario replies: Read the config, print the
    .env with Bash, write a .env back (the secrets in the tool input, streamed in pieces),
    answer with split secrets, then say goodbye."""
    (read, read_path), (bash, command), (write_tool, write_path, content) = TOOLS[agent]
    replies: list[dict[str, Any]] = [
        {"text": "Reading the config.", "tool_use": {"name": read, "input": {read_path: "config/settings.txt"}}},
        {"tool_use": {"name": bash, "input": {command: "cat .env"}}},
    ]
    if write:
        replies.append({"tool_use": {"name": write_tool, "input": {write_path: "copy.env", content: DOTENV}}})
    return [*replies, split_answer(SPLIT_IN_TEXT, SPLIT_IN_THINKING), {"text": "Goodbye."}]


def workspace(folder: Path) -> Path:
    (folder / "config").mkdir(parents=True)
    (folder / "config" / "settings.txt").write_text(CONFIG)
    (folder / ".env").write_text(DOTENV)
    return folder


@contextlib.contextmanager
def loopback(replies: list[dict[str, Any]]) -> Iterator[tuple[FaultServer, Responder]]:
    built = [Reply(**reply) if reply.keys() & {"events", "error"} else Reply(message=reply) for reply in replies]
    responder = Responder(built, clock=VirtualClock())
    with FaultServer(responder, time_scale=0) as server:
        yield server, responder


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv(ENV_NAME, ENV_VALUE)
    for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def sent(responder: Responder) -> str:
    return json.dumps([r.body for r in responder.requests], ensure_ascii=False)


def leaks(cassette: Path) -> list[str]:
    """The planted secrets (by family and number) found anywhere in the cassette."""
    texts = [cassette.read_text(encoding="utf-8")]
    for interaction in load_cassette(cassette):
        texts += [str(interaction["request"].get("uri")), str(interaction["request"].get("body") or "")]
        texts.append(response_body_bytes(interaction["response"]).decode("utf-8", "replace"))
    return sorted({f"{fake.family}-{n}" for n, fake in enumerate(PLANTED) for text in texts if leaked(text, fake)})


def assert_clean(cassette: Path, responder: Responder) -> None:
    wire = sent(responder)
    assert [f.family for f in PLANTED if not leaked(wire, f)] == [], "every fake must have gone over the wire"
    assert responder.problems == []
    assert leaks(cassette) == []
    assert scan_paths([cassette]) == []
    assert "<redacted:env-MY_SERVICE_TOKEN:" in cassette.read_text()


@pytest.mark.parametrize("agent", ["mini_agent", "careful"])
def test_harness_record_writes_none_of_the_planted_secrets(tmp_path, environment, agent, capsys):
    folder, cassette = workspace(tmp_path / "work"), tmp_path / "planted.yaml"
    chosen = ["--agent", "examples.careful_agent:make_agent"] if agent == "careful" else []
    with loopback(session(agent)) as (server, responder):
        code = main(["record", "--cassette", str(cassette), "--base-url", server.url, "--cwd", str(folder), *chosen,
                     "--", USER_LINE, "Thanks"])
    said = capsys.readouterr()
    assert code == 0, said.err
    assert_clean(cassette, responder)
    shown = said.out + said.err  # the echo of the user's lines and the agent's output: a terminal, a CI log
    assert "Deploy with these: " in shown and [f.family for f in PLANTED if leaked(shown, f)] == []


def test_record_over_loopback_writes_none_of_the_planted_secrets(tmp_path, environment):
    scenario = tmp_path / "planted_scenario.yaml"
    replies = session("mini_agent")
    scenario.write_text(yaml.safe_dump({
        "name": "planted", "about": "Secrets where sessions put them.",
        "workspace": {"config/settings.txt": CONFIG, ".env": DOTENV},
        "turns": [{"user": USER_LINE, "replies": replies[:-1]}, {"user": "Thanks", "replies": replies[-1:]}],
    }))
    cassette = tmp_path / "planted.yaml"
    record_over_loopback(scenario, cassette)
    assert leaks(cassette) == [] and scan_paths([cassette]) == []
    assert "<redacted:env-MY_SERVICE_TOKEN:" in cassette.read_text()


FIXTURE_TEST = """\
import json
import pytest

BODIES = json.loads({bodies!r})


@pytest.mark.cassette
def test_places(cassette_client):
    for body in BODIES:
        with cassette_client.messages.stream(**body) as stream:
            stream.get_final_message()
"""


def test_the_cassette_fixture_in_record_mode_writes_none_of_the_planted_secrets(pytester, monkeypatch):
    every = Fake("all", "\n".join(f.value for f in PLANTED), "\n".join(f.line for f in PLANTED),
                 tuple(s for f in PLANTED for s in f.secrets))
    bodies = [{k: v for k, v in build(every).items() if k != "stream"} for build in PLACES.values()]
    pytester.makepyfile(test_planted=FIXTURE_TEST.format(bodies=json.dumps(bodies)))
    replies = [split_answer(fake, FAKES[-1 - n]) for n, fake in enumerate(FAKES[: len(bodies)])]
    monkeypatch.setenv(ENV_NAME, ENV_VALUE)
    with loopback(replies) as (server, responder):
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        pytester.runpytest("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest", "--record-mode", "all",
                           ).assert_outcomes(passed=1)
    cassette = pytester.path / "cassettes" / "test_planted" / "test_places.yaml"
    assert_clean(cassette, responder)


def test_a_planted_session_replays_with_its_placeholders_where_the_secrets_were(tmp_path, environment):
    """Placeholders are the same in a response and in the requests that echo it, so the
    recorded session replays, through the harness's index and through vcrpy."""
    folder, cassette = workspace(tmp_path / "work"), tmp_path / "planted.yaml"
    with loopback(session("mini_agent", write=False)) as (server, responder):
        code = main(["record", "--cassette", str(cassette), "--base-url", server.url, "--cwd", str(folder),
                     "--", USER_LINE, "Thanks"])
    assert code == 0 and leaks(cassette) == []
    for engine in ("harness", "vcr"):
        replayed = replay_session(cassette, [USER_LINE, "Thanks"], engine=engine, cwd=folder)
        assert replayed.requests == len(responder.requests) and replayed.unused == []


BINARY_DUMP = "\x00\x01\x02 core dump " + KEY + " \x7f\x00"  # not text: a secret in it cannot be redacted in place


def test_a_body_that_cannot_be_redacted_stops_the_recording_and_nothing_is_written(tmp_path, environment, capsys):
    folder, cassette = workspace(tmp_path / "work"), tmp_path / "kept.yaml"
    cassette.write_text("interactions: []\nversion: 1\n")
    with loopback([{"error": 500, "body": BINARY_DUMP}, {"text": "never served"}]) as (server, responder):
        code = main(["record", "--cassette", str(cassette), "--base-url", server.url, "--cwd", str(folder),
                     "--record-mode", "all", "--", "hello", "and a second turn that never starts"])
    err = capsys.readouterr().err
    assert code == 1 and len(responder.requests) == 1, err  # no retry, no second turn
    assert "the recording stopped and nothing was written: possible secret in a binary body" in err
    assert "anthropic-key" in err and KEY[13:30] not in err
    assert cassette.read_text() == "interactions: []\nversion: 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.yaml", "work"]


def test_the_cassette_fixture_does_not_write_a_cassette_it_cannot_redact(tmp_path, environment):
    from harness.cassette.session import CassetteSession

    path = tmp_path / "fixture.yaml"
    with loopback([{"error": 500, "body": BINARY_DUMP}]) as (server, _):
        with CassetteSession(path, record_mode="all") as session:
            client = session.client(base_url=server.url, api_key=KEY)
            with pytest.raises(anthropic.BadRequestError, match="the recording stops, nothing is written"):
                client.messages.create(model="claude-sonnet-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert not path.exists()
    (problem,) = session.problems
    assert problem.startswith("not recorded, the cassette was not written: possible secret in a binary body")
    assert KEY[13:30] not in problem
