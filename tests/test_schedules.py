"""What a fault schedule foretells, and for whom: a failure only the SDK's JSON parser
makes foretells mini_agent's way alone, since another client may read the same stream as
a whole answer (and answer a call whose input does not parse with an error result, as the
docs advise); the faults drawn put nothing after ``message_stop``, as the API does not,
and never end a stream with all but ``message_stop``, a whole message to a client that
takes ``message_delta`` as its end."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from harness.agents.context import AgentContext
from harness.library.properties.history_checks import (
    no_partial_messages,
    tool_uses_answered_once,
)
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.strategies import Schedule, fault_schedules, replies
from harness.strategies.faults import parser_dependent
from harness.strategies.replies import plain_events
from harness.wire.faults.bad_data import BadData
from harness.wire.faults.cut import Cut
from harness.wire.faults.end_early import EndEarly
from harness.wire.faults.error_event import ErrorEvent
from harness.wire.planner import plan_reply
from harness.wire.sse import encode_event

QUIET = settings(database=None, max_examples=2_000, suppress_health_check=list(HealthCheck))


def test_a_schedule_with_tool_json_only_the_sdk_cannot_read_foretells_mini_agents_way_only() -> None:
    def failed_so(s: Schedule) -> bool:
        return any(parser_dependent(r) for i, r in enumerate(s.replies) if i not in s.answers)

    schedule = find(fault_schedules(max_retries=2), failed_so, settings=QUIET)
    expect = schedule.turn("Hello").expect
    assert schedule.needs == ("mini_agent",)
    assert set(expect) == {"mini_agent"} and "policies" not in expect["mini_agent"]


def test_a_schedule_without_it_foretells_what_its_policies_say() -> None:
    schedule = find(fault_schedules(max_retries=2), lambda s: s.needs == ("retries",) and s.requests is not None, settings=QUIET)
    assert set(schedule.turn("Hello").expect) == {"policies"}


@given(st.data())
@settings(database=None, max_examples=200, suppress_health_check=list(HealthCheck))
def test_an_error_event_or_bad_data_comes_before_message_stop_as_the_api_sends_nothing_after_it(data: st.DataObject) -> None:
    reply = data.draw(replies(final=True))
    events = plain_events(reply)
    for kind in (ErrorEvent, BadData):
        fault = data.draw(kind.strategy(events))
        assert fault is not None and fault.after_event < len(events)  # after_event k keeps events[:k]
    early = data.draw(EndEarly.strategy(events))
    assert early is not None and early.after_event < len(events) - 1  # never all but message_stop: a whole message to some
    cut = data.draw(Cut.strategy(events))
    assert cut is not None
    served = plan_reply(replace(reply, faults=(cut,)), streaming=True, request_id="r", message_id="msg_harness_000000", model="claude")
    assert not served.body.endswith(encode_event(served.events[-1]))  # message_stop never whole


class ReadsBlocksAtTheirEnd:
    """No SDK: its own streaming requests on the run's HTTP client, each block built from
    its events and a tool input parsed at the block's end; an input that does not parse
    is kept as {} and answered with an error result, as the docs advise."""

    def __init__(self, ctx: AgentContext) -> None:
        self.http = ctx.http_client
        self.messages: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})
        for _ in range(4):
            body = {"model": "claude-opus-5-5", "max_tokens": 100, "stream": True, "messages": self.messages,
                    "tools": [{"name": "Read", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}}]}
            response = self.http.post("https://api.anthropic.com/v1/messages", json=body,
                                       headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
            blocks, partial, stop = {}, {}, None
            for frame in response.text.split("\n\n"):
                data = [line[5:].strip() for line in frame.splitlines() if line.startswith("data:")]
                event = json.loads(data[0]) if data else {}
                if event.get("type") == "content_block_start":
                    blocks[event["index"]] = dict(event["content_block"])
                elif event.get("type") == "content_block_delta" and event["delta"]["type"] == "text_delta":
                    blocks[event["index"]]["text"] = blocks[event["index"]].get("text", "") + event["delta"]["text"]
                elif event.get("type") == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
                    partial[event["index"]] = partial.get(event["index"], "") + event["delta"]["partial_json"]
                elif event.get("type") == "message_delta":
                    stop = event["delta"]["stop_reason"]
            results = []
            for index, block in blocks.items():
                if block["type"] == "tool_use":
                    try:
                        block["input"] = json.loads(partial.get(index) or "{}")
                        results.append({"type": "tool_result", "tool_use_id": block["id"], "content": "read"})
                    except ValueError:
                        block["input"] = {}
                        results.append({"type": "tool_result", "tool_use_id": block["id"], "content": "input is not JSON", "is_error": True})
            content = [b for b in blocks.values() if b["type"] != "text" or b.get("text", "").strip()]
            self.messages.append({"role": "assistant", "content": content})
            if stop != "tool_use":
                return
            self.messages.append({"role": "user", "content": results})


UNPARSEABLE = """\
name: unparseable-tool-json-in-a-whole-stream
about: A whole answer whose tool input is not JSON, then the answer.
turns:
  - user: Hello
    replies:
      - {text: Reading., tool_use: {name: Read, json: ["", nope]}}
      - {text: Done.}
"""


def test_a_whole_answer_whose_tool_input_does_not_parse_may_stay_in_the_history_answered_with_an_error(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(UNPARSEABLE)
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=ReadsBlocksAtTheirEnd)
    assert outcome.passed, format_timeline(outcome)
    assert no_partial_messages(outcome) == [] and tool_uses_answered_once(outcome) == []


class TakesMessageDeltaAsTheEnd:
    """Streams with the SDK's ``text_stream`` and takes ``get_final_message()``, which has
    the message once message_delta has come; retries only what raises, and declares it."""

    harness_policies = {"retries": 2, "retry_is_invisible": True}

    def __init__(self, ctx: AgentContext) -> None:
        self.client, self.sleep, self.history = ctx.client.with_options(max_retries=0), ctx.sleep, []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        for attempt in range(3):
            try:
                with self.client.messages.stream(model="claude-sonnet-4-5", max_tokens=256, messages=self.history) as stream:
                    "".join(stream.text_stream)
                    message = stream.get_final_message()
            except Exception:  # noqa: BLE001 -- any broken answer is asked again
                self.sleep(0.5 * 2 ** attempt)
                continue
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
            return
        self.history.pop()


def test_a_client_that_takes_message_delta_as_the_end_keeps_a_whole_message() -> None:
    path = Path(__file__).resolve().parent.parent / "scenarios" / "stream" / "end_after_message_delta.yaml"
    outcome = run_scenario(load_scenario(path), agent=TakesMessageDeltaAsTheEnd)
    assert outcome.passed, format_timeline(outcome)
    assert len(outcome.requests) == 2  # the answer taken, then the probe turn
    assert no_partial_messages(outcome) == []
    assert any("had come whole" in note for note in outcome.notes), outcome.notes
    assert run_scenario(load_scenario(path)).passed  # mini_agent asks again: both readings pass
