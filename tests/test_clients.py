"""Real clients' requests, captured against a loopback fault server and trimmed small
(``tests/clients/*.json``), replayed into the fake API: every one that a naive checker
calls invalid must pass without a problem, and the one real defect among them must be
reported. Each case names its client, its version, the fault and what it shows.

A case is a list of exchanges: the request as the client sent it (its betas, its body,
its arrival time) and the reply the fault server gave (as a scenario reply). Message
ids the capture's server gave are mapped to the ones the fake API gives, so a
``continue`` names a thread it holds — unless the case keeps them, to show a thread
the server lost.
"""

from __future__ import annotations

import dataclasses
import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from harness.scenario.checks.invariants import run_invariants, wire_invariants
from harness.scenario.fake_api.clients import sync_client
from harness.scenario.fake_api.conversation import relation
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.scenario.format.loader import reply_from
from harness.scenario.format.model import Scenario, Turn
from harness.serve.findings import SOCKET_TOLERANCE
from harness.serve.report import check_served
from harness.serve.server import FaultServer

CASES = Path(__file__).resolve().parent / "clients"
NAMES = sorted(p.stem for p in CASES.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    return json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))


def replies(case: dict[str, Any]) -> list[Any]:
    """The capture's replies, served as written: the client's next requests answer them as
    they were, with no thinking the fake API would add today."""
    return [dataclasses.replace(reply_from(exchange["reply"]), as_written=True)
            for exchange in case["exchanges"] if "reply" in exchange]


def replay(case: dict[str, Any]) -> tuple[Responder, list[str], list[str]]:
    """The case's requests into a Responder at their captured times; (responder, problems, notes)."""
    responder = Responder(replies(case), threads=case["threads"] == "supported", label="the capture")
    ids: dict[str, str] = {}
    for exchange in case["exchanges"]:
        body = body_text(case, exchange, ids)
        responder.respond("POST", exchange["path"].split("?")[0], exchange["headers"], body.encode())
        record = responder.requests[-1]
        record.time, record.finished = exchange["t"], exchange["answered"]
        if record.reply is not None and exchange.get("message_id"):
            ids[exchange["message_id"]] = f"msg_harness_{record.number:06d}"
    found = run_invariants(responder.requests, policies={})
    found += wire_invariants("the capture", responder.requests, max_retries=None, tolerance=SOCKET_TOLERANCE)
    return responder, [str(p) for p in responder.problems + found.problems], found.notes


def body_text(case: dict[str, Any], exchange: dict[str, Any], ids: dict[str, str]) -> str:
    text = json.dumps(exchange["body"])
    for theirs, ours in ({} if case["keep_ids"] else ids).items():
        text = text.replace(theirs, ours)
    return text


def assert_expected(case: dict[str, Any], problems: list[str], notes: list[str]) -> None:
    expect = case["expect"]
    wanted_problems = expect.get("problems", [])
    if not wanted_problems:
        assert problems == [], case["about"]
    for wanted in wanted_problems:
        assert any(wanted in p for p in problems), (wanted, problems)
    if expect.get("notes") == []:
        assert notes == [], notes
    for wanted in expect.get("notes", []):
        assert any(wanted in n for n in notes), (wanted, notes)


@pytest.mark.parametrize("name", NAMES)
def test_captured_client_requests_get_no_false_alarm(name: str) -> None:
    case = load(name)
    responder, problems, notes = replay(case)
    assert_expected(case, problems, notes)
    requests = responder.requests
    for number, kind in case["expect"].get("relations", {}).items():
        before, after = requests[int(number) - 2], requests[int(number) - 1]
        assert relation(before.whole, after.whole) == kind, (number, kind)
    for number, code in case["expect"].get("refused", {}).items():
        assert requests[int(number) - 1].refused == code
    for number, count in case["expect"].get("conversation_messages", {}).items():
        assert len(requests[int(number) - 1].conversation["messages"]) == count


@pytest.mark.parametrize("name", [n for n in NAMES if not load(n)["timed"]])
def test_captured_requests_over_a_real_socket_get_the_same_verdict(name: str) -> None:
    """The same bytes posted to ``harness serve``'s server, checked by its report."""
    case = load(name)
    scenario = Scenario(name, case["about"], CASES / f"{name}.json", (Turn("capture", tuple(replies(case))),),
                        threads=case["threads"] == "supported")
    responder = Responder(scenario.turns[0].replies, threads=scenario.threads, label="the capture")
    ids: dict[str, str] = {}
    with ExitStack() as stack:
        server = stack.enter_context(FaultServer(responder, time_scale=0))
        http = stack.enter_context(httpx2.Client(base_url=server.url, timeout=10))
        for exchange in case["exchanges"]:
            response = http.post(exchange["path"], content=body_text(case, exchange, ids),
                                 headers=exchange["headers"] | {"content-type": "application/json"})
            record = responder.requests[-1]
            if exchange["body"].get("stream") is False:
                assert response.headers["content-type"] == "application/json" and response.json()["type"] == "message"
            if record.reply is not None and exchange.get("message_id"):
                ids[exchange["message_id"]] = f"msg_harness_{record.number:06d}"
    report = check_served(scenario, server)
    assert_expected(case, [str(p) for p in report.problems], report.notes)
    assert len([line for line in report.lines if line.startswith("  #")]) == len(case["exchanges"])


# -- the same checks, shown to fail where a client is wrong ---------------------------------


def test_the_continue_checked_alone_would_hold_an_orphan_tool_result() -> None:
    """Why threads must be modelled: request 2 of the tool runner, without its thread."""
    case = load("f1_tool_runner_continues_a_thread")
    del case["exchanges"][1]["body"]["thread"]
    _, problems, _ = replay(case)
    assert any("unexpected `tool_use_id` found in `tool_result` blocks: toolu_anthronormals_01" in p for p in problems)


def test_resending_the_threaded_turn_unchanged_after_thread_unsupported_is_a_problem() -> None:
    case = load("f8_tool_runner_drops_the_thread_when_unsupported")
    case["exchanges"][1]["body"] = case["exchanges"][0]["body"]
    case["exchanges"][1]["headers"] = case["exchanges"][0]["headers"]
    responder, problems, _ = replay(case)
    assert [r.refused for r in responder.requests[:2]] == ["thread_unsupported_request"] * 2
    assert "the capture: request 2 resends request 1, which the API rejected as invalid" in problems


def test_a_retry_before_retry_after_is_a_problem_and_one_far_after_it_a_note() -> None:
    case = load("f9_tool_runner_honours_retry_after")
    second = case["exchanges"][1]
    second["t"] = case["exchanges"][0]["answered"] + 0.3
    _, problems, _ = replay(case)
    assert any("request 2 came 0.300s after request 1, which asked for retry-after 2s" in p for p in problems)
    second["t"] = case["exchanges"][0]["answered"] + 200.0  # smolagents waits 120-240 s on retry-after: 2
    _, problems, notes = replay(case)
    assert problems == [] and any("waited 200.0s before request 2, far beyond the 2s asked" in n for n in notes)


def test_a_continue_of_an_unknown_message_is_the_sdks_thread_not_found_error() -> None:
    """The error body parses as the SDK's own ThreadNotFoundError (404, error_code)."""
    case = load("f8_tool_runner_replays_a_lost_thread")
    continued = case["exchanges"][1]["body"]
    client = sync_client(ScenarioTransport(Responder([])))
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.beta.messages.create(
            model=continued["model"], max_tokens=continued["max_tokens"], messages=continued["messages"],
            thread=continued["thread"], betas=["message-threads-2026-08-12"],
        )
    assert type(caught.value).__name__ == "ThreadNotFoundError"
    assert caught.value.body["error"]["details"] == {"error_code": "thread_not_found"}


def test_threads_unsupported_is_the_sdks_thread_unsupported_request_error() -> None:
    create = load("f8_tool_runner_drops_the_thread_when_unsupported")["exchanges"][0]["body"]
    client = sync_client(ScenarioTransport(Responder([], threads=False)))
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.beta.messages.create(
            model=create["model"], max_tokens=create["max_tokens"], messages=create["messages"],
            thread={"type": "create"}, betas=["message-threads-2026-08-12"],
        )
    assert type(caught.value).__name__ == "ThreadUnsupportedRequestError"


def test_unknown_betas_are_reported_as_unknown_never_as_errors() -> None:
    case = load("f3_claude_code_system_messages_without_their_beta")
    for exchange in case["exchanges"]:
        exchange["headers"]["anthropic-beta"] += ",made-up-beta-2031-01-01"
    _, problems, notes = replay(case)
    assert problems == []
    assert notes == ["betas the harness does not know (their rules are not checked): made-up-beta-2031-01-01"]
