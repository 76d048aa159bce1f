"""JSON outputs (``output_config.format``): the real API answers a request that asks for a
JSON schema with text that is such JSON, except a refusal and an answer cut by
``max_tokens`` (the structured outputs docs). The fake API writes a scenario's free text
so, keeping the text's deltas (and so every fault's place); what it cannot so write is
not applicable, never a false failure of an agent that trusts the guarantee."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from examples import careful_agent
from examples.careful_agent import CarefulAgent, TurnOutcome
from harness.agents.context import AgentContext
from harness.scenario.fake_api.json_outputs import (
    as_json_output,
    output_schema,
    unwritable,
)
from harness.scenario.fake_api.json_schema import breach, example
from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire import blocks
from harness.wire.faults.cut import Cut
from harness.wire.faults.duplicate import Duplicate
from harness.wire.faults.pings import Pings
from harness.wire.planner import stream_events
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "harness" / "library" / "scenarios"
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}, "done": {"type": "boolean"}},
          "required": ["answer", "done"], "additionalProperties": False}
ASKING = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}],
          "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}}


def _text(reply: Reply) -> str:
    events = stream_events(reply, message_id="msg_x", model="m")
    return "".join(e["delta"]["text"] for e in events if e.get("type") == "content_block_delta"
                   and e["delta"]["type"] == "text_delta")


# -- the rewrite -------------------------------------------------------------------------

def test_a_free_text_is_written_as_the_schemas_json_holding_it() -> None:
    text = 'It is a "demo": a README with one heading, nothing more to it than that.'
    served = as_json_output(Reply(message={"text": text}), ASKING)
    value = json.loads(_text(served))
    assert value == {"answer": text, "done": False}
    assert breach(SCHEMA, value, "text") is None
    shown = _text(as_json_output(Reply(message={"text": "It is a demo."}), ASKING))
    assert shown in " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())  # the README's example


def test_the_json_comes_in_as_many_deltas_as_the_text_so_a_cut_lands_where_it_did() -> None:
    text = "The menu says: café ☕ and naïve crème brûlée, then a long list of desserts."
    written = Reply(message={"text": text}, faults=(Cut(after_event=4),))
    served = as_json_output(written, ASKING)
    own, rewritten = (stream_events(r, message_id="msg_x", model="m") for r in (written, served))
    assert [e["type"] for e in own] == [e["type"] for e in rewritten]
    assert len(blocks.text_pieces(text)) > 2
    assert unwritable(written, ASKING) is None


def test_text_that_already_meets_the_schema_and_other_requests_are_served_as_written() -> None:
    given = Reply(message={"text": json.dumps({"answer": "x", "done": True})})
    assert as_json_output(given, ASKING) is given
    free = Reply(message={"text": "Hello."})
    assert as_json_output(free, {**ASKING, "output_config": {"effort": "low"}}) is free
    assert as_json_output(Reply(message={"text": "No.", "stop_reason": "refusal"}), ASKING).message["text"] == "No."
    assert as_json_output(Reply(message={"text": "Hello."}, as_written=True), ASKING).message["text"] == "Hello."


def test_an_answer_cut_by_max_tokens_is_a_prefix_of_the_json() -> None:
    served = as_json_output(Reply(message={"text": "I was saying that", "stop_reason": "max_tokens"}), ASKING)
    text = _text(served)
    assert text == '{"answer": "I was saying that'
    with pytest.raises(ValueError):
        json.loads(text)


def test_an_answer_cut_by_the_context_window_is_a_prefix_too() -> None:
    cut = Reply(message={"text": "So far we", "stop_reason": "model_context_window_exceeded"})
    assert _text(as_json_output(cut, ASKING)) == '{"answer": "So far we'


def test_an_empty_answer_is_not_applicable_as_json_never_is(tmp_path: Path) -> None:
    assert "an empty answer" in unwritable(Reply(message={"text": " "}), ASKING)
    assert unwritable(Reply(message={"text": "", "tool_use": {"name": "Read", "input": {}}}), ASKING) is None
    scenario = _scenario(tmp_path, "      - text: ''\n      - text: ' and so on.'\n")
    outcome = run_scenario(scenario, agent=StructuredCareful)
    assert outcome.not_applicable is not None and "the API's JSON is never empty" in outcome.not_applicable


def test_a_recorded_text_is_written_delta_for_delta() -> None:
    events = [{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Two names: "}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Pouch, Pelé."}},
              {"type": "content_block_stop", "index": 0}]
    served = as_json_output(Reply(events=events), ASKING)
    texts = [e["delta"]["text"] for e in served.events if e["type"] == "content_block_delta"]
    assert texts == ['{"answer": "Two names: ', 'Pouch, Pelé.", "done": false}']
    assert events[1]["delta"]["text"] == "Two names: "  # the recording itself is left as it was


def test_the_betas_output_format_is_read_too() -> None:
    request = {"messages": [], "output_format": {"type": "json_schema", "schema": SCHEMA}}
    assert output_schema(request) == SCHEMA
    assert output_schema({"output_config": {"format": {"type": "text"}}}) is None


def test_a_value_is_built_for_pydantics_schemas_refs_and_formats() -> None:
    class Step(pydantic.BaseModel):
        when: str
        count: int

    class Plan(pydantic.BaseModel):
        kind: str
        steps: list[Step]
        first: Step
        day: datetime.date
        note: str | None = None

    schema = Plan.model_json_schema()
    built = example(schema, "Plan it.")
    assert Plan.model_validate_json(built.json).kind == "Plan it."
    assert example({"type": "object", "properties": {"n": {"type": "integer"}}}, "x").json == "{}"
    assert example({"type": "string", "format": "email"}, "x").value == "user@example.com"


def test_a_fault_that_scrambles_the_json_is_not_applicable_one_that_leaves_it_is_served() -> None:
    text = "The README describes a small demo project with one script."
    opening = Reply(message={"text": text}, faults=(Duplicate(3),))  # the delta that opens the JSON, twice
    assert "the reply's fault (event 3 twice) leaves text that is not such JSON" in unwritable(opening, ASKING)
    inside = Reply(message={"text": text}, faults=(Duplicate(4),))  # a delta inside its string: JSON still
    assert unwritable(inside, ASKING) is None and json.loads(_text(as_json_output(inside, ASKING)))["done"] is False
    assert unwritable(Reply(message={"text": text}, faults=(Pings(3),)), ASKING) is None
    assert unwritable(Reply(message={"text": text, "stop_reason": "max_tokens"}, faults=(Duplicate(3),)), ASKING) is None


def test_what_cannot_be_written_is_not_applicable_with_the_reason() -> None:
    raw = Reply(message={"content": [{"type": "text", "text": "Hi."}]})
    assert "a raw text block of the reply is not such JSON: 'Hi.'" in unwritable(raw, ASKING)
    by_bytes = Reply(message={"text": "Hello there."}, faults=(Cut(after_bytes=120),))
    assert "a fault placed by bytes" in unwritable(by_bytes, ASKING)
    looping = {**ASKING, "output_config": {"format": {"type": "json_schema", "schema": {"$ref": "#/$defs/Gone"}}}}
    assert "names nothing in it" in unwritable(Reply(message={"text": "Hello."}), looping)


# -- an agent that trusts the guarantee ----------------------------------------------------

class Answer(pydantic.BaseModel):
    answer: str
    done: bool


class StructuredCareful(CarefulAgent):
    """examples/careful_agent asking for JSON outputs on every request, and reading every
    finished answer as an ``Answer``: ``broken`` lists those that are not."""

    broken: list[str] = []

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx.client, ctx.workspace, ctx.sleep, ctx.wall, ctx.settings, getattr(ctx, "on_event", None))

    def _carry_out(self, effect: Any) -> Any:
        if hasattr(effect, "request"):
            effect.request["output_config"] = {"format": {"type": "json_schema", "schema": SCHEMA}}
        return super()._carry_out(effect)

    def run_turn(self, text: str) -> TurnOutcome:
        outcome = super().run_turn(text)
        if outcome.stop_reason in ("end_turn", "stop_sequence") and outcome.text:
            try:
                Answer.model_validate_json(outcome.text)
            except pydantic.ValidationError:
                StructuredCareful.broken.append(outcome.text)
        return outcome


def _scenario(tmp_path: Path, reply: str) -> Any:
    path = tmp_path / "plain.yaml"
    path.write_text(f"name: plain\nabout: One answer.\nturns:\n  - user: Hi\n    replies:\n{reply}")
    return load_scenario(path)


def test_an_agent_that_trusts_the_json_gets_valid_json_through_the_sdk(tmp_path: Path) -> None:
    class Parses:
        def __init__(self, ctx: AgentContext) -> None:
            self.client, self.history, self.parsed = ctx.client, [], []

        def run_turn(self, text: str) -> None:
            self.history.append({"role": "user", "content": text})
            message = self.client.messages.parse(model="claude-sonnet-4-5", max_tokens=256, messages=self.history,
                                                 output_format=Answer)
            self.parsed.append(message.parsed_output)
            self.history.append({"role": "assistant", "content": [b.model_dump(exclude={"parsed_output"})
                                                                  for b in message.content]})

    agents: list[Any] = []
    scenario = _scenario(tmp_path, "      - error: overloaded\n      - text: Hello, how can I help?\n")
    outcome = run_scenario(scenario, agent=lambda ctx: agents.append(Parses(ctx)) or agents[-1])
    assert outcome.passed, format_timeline(outcome)
    assert agents[0].parsed[0] == Answer(answer="Hello, how can I help?", done=False)


def test_an_agent_that_trusts_the_json_gets_the_verdicts_it_gets_without_it() -> None:
    plain, structured, broken, scrambled = {}, {}, set(), set()
    for path in scenario_files([LIBRARY]):
        name, scenario = str(path.relative_to(LIBRARY)), load_scenario(path)
        plain[name] = _verdict(run_scenario(scenario, agent=careful_agent.make_agent))
        StructuredCareful.broken.clear()
        outcome = run_scenario(scenario, agent=StructuredCareful)
        structured[name] = _verdict(outcome)
        if StructuredCareful.broken and structured[name] != "n/a":
            broken.add(name)
        if "leaves text that is not such JSON" in (outcome.not_applicable or ""):
            scrambled.add(name)
    assert broken == set()
    assert structured == {**plain, **dict.fromkeys(scrambled, "n/a")}
    assert scrambled == {"stream/duplicated_event.yaml", "stream/swapped_events.yaml"}  # text scrambled on purpose
    assert list(plain.values()).count("pass") > 60


def _verdict(outcome: Any) -> str:
    if outcome.skipped:
        return "skipped"
    return "n/a" if outcome.not_applicable else "pass" if outcome.passed else "fail"


def test_served_as_written_the_free_text_breaks_the_trusting_agent(tmp_path: Path) -> None:
    StructuredCareful.broken.clear()
    scenario = _scenario(tmp_path, "      - text: Hello, how can I help?\n        as_written: true\n")
    run_scenario(scenario, agent=StructuredCareful)
    assert StructuredCareful.broken == ["Hello, how can I help?"]
    StructuredCareful.broken.clear()
    run_scenario(_scenario(tmp_path, "      - text: Hello, how can I help?\n"), agent=StructuredCareful)
    assert StructuredCareful.broken == []
