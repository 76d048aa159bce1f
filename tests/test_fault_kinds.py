"""What every registered fault kind owes the harness, checked for each one (a new kind
is checked the moment it is registered): its home is the module named after its key,
what its strategy draws is a fault the format accepts and reads back as it was, the
planner serves it on the stream it was drawn for, and its words, coverage rows and
non-streaming form are ones the reports know."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.report.coverage import COLUMNS, matrix_rows
from harness.scenario.format.schema import fault_spec
from harness.wire.faults.base import SENT, Fault, PositionError, fault_kinds
from harness.wire.plan import NoJsonForm
from harness.wire.planner import plan_reply, stream_events
from harness.wire.replies import Reply

KINDS = fault_kinds()
MESSAGE = {"thinking": "Let me see.", "text": "Reading it — déjà vu.", "tool_use": {"name": "Read", "input": {"file_path": "a.txt"}}}
IDS = {"request_id": "req_1", "message_id": "msg_1", "model": "claude-opus-5-5"}
EVENTS = stream_events(Reply(message=MESSAGE), message_id=IDS["message_id"], model=IDS["model"])


def drawn(kind: type[Fault]) -> st.SearchStrategy[Fault]:
    strategy = kind.strategy(EVENTS)
    assert strategy is not None, f"{kind.key} draws nothing for a message of {len(EVENTS)} events"
    return strategy


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.key)
def test_a_kind_lives_in_the_module_named_after_its_key_and_declares_known_places(kind: type[Fault]) -> None:
    assert kind.__module__ == f"harness.wire.faults.{kind.key}"
    assert kind.role in (None, "failure", "noise")
    for row, places in kind.rows():
        assert row.startswith(kind.key) and set(places) <= set(COLUMNS), row
        assert (row, places) in matrix_rows()


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.key)
@given(data=st.data())
def test_what_a_strategy_draws_the_format_accepts_and_reads_back(kind: type[Fault], data: st.DataObject) -> None:
    fault = data.draw(drawn(kind))
    written = fault.to_yaml()
    assert fault_spec(kind).check(written, (1, 1), kind.key) == []
    assert kind.from_yaml(written) == fault


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.key)
@given(data=st.data())
def test_what_a_strategy_draws_is_served_on_its_stream_and_named_and_counted(kind: type[Fault], data: st.DataObject) -> None:
    fault = data.draw(drawn(kind))
    reply = Reply(message=MESSAGE, faults=(fault,))
    try:
        plan = plan_reply(reply, streaming=True, **IDS)
    except PositionError as error:
        pytest.fail(f"{fault} was drawn for this stream but does not fit it: {error}")
    assert plan.status == 200 and plan.connection is None
    assert reply.describe() == " · ".join(["thinking+text+tool_use", *filter(None, [fault.label()])])
    rows = {row for row, _ in kind.rows()}
    for row, at in fault.hits():
        assert row in rows and (at in (SENT, *COLUMNS) or 0 <= at <= len(EVENTS)), (row, at)
    try:
        plan_reply(reply, streaming=False, **IDS)
    except NoJsonForm as error:  # the kind has no JSON form, or the events it changed make no message
        changed_too_far = ("tool input JSON the SDK's stream gives up on (a prefix of it does not parse)", "events that make no message")
        assert str(error) == kind.no_json_form or (not kind.breaks_message and str(error) in changed_too_far), error
    else:
        assert not kind.no_json_form
