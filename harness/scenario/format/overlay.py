"""Replies taken from a recorded vcrpy cassette, so that a scenario can overlay faults
on a real session: ``cassette: base.yaml`` and ``- recorded: 2`` with a ``cut:``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from harness.scenario.format.problem import Problem
from harness.scenario.format.sandbox import PathEscape, project_path
from harness.wire.cassette_file import CassetteError, load_cassette, response_body_bytes
from harness.wire.recorded_pace import recorded_pace
from harness.wire.replies import Reply
from harness.wire.sse_parse import decode_events

KEPT_ERROR_HEADERS = ("retry-after", "retry-after-ms", "x-should-retry", "content-type")


def recorded_reply(interaction: Mapping[str, Any]) -> Reply:
    """One recorded response as a Reply: a stream as its events, anything else as an
    error; at its recorded pace when the recording kept one (``recorded_pace``)."""
    response = interaction["response"]
    pace = recorded_pace(response)
    faults = (pace,) if pace is not None else ()
    status = int((response.get("status") or {}).get("code", 200))
    body = response_body_bytes(response)
    headers = {str(k).lower(): str(v[0] if isinstance(v, list) and v else v) for k, v in (response.get("headers") or {}).items()}
    if status != 200:
        kept = {k: headers[k] for k in KEPT_ERROR_HEADERS if k in headers}
        return Reply(error=status, body=body.decode("utf-8", "replace"), headers=kept, faults=faults)
    if "event-stream" not in headers.get("content-type", "text/event-stream"):
        raise CassetteError("the response is not a stream (only streamed messages can be overlaid)")
    return Reply(events=decode_events(body), faults=faults)


def recorded_replies(path: Path, document: Mapping[str, Any]) -> tuple[dict[int, Reply], list[Problem]]:
    """The cassette replies a scenario uses, by interaction number, and any problems."""
    wanted = [
        (reply["recorded"], reply.value_pos["recorded"])
        for turn in document["turns"]
        for reply in turn.get("replies", [])
        if "recorded" in reply
    ]
    if not wanted:
        return {}, []
    if "cassette" not in document:
        return {}, [Problem.at(wanted[0][1], "`recorded` replies need a top-level `cassette:` file")]
    at = document.value_pos["cassette"]
    try:
        interactions = load_cassette(project_path(path, document["cassette"]))
    except (CassetteError, PathEscape) as error:
        return {}, [Problem.at(at, f"cannot use the cassette: {error}")]
    replies: dict[int, Reply] = {}
    problems = []
    for number, where in wanted:
        if not 1 <= number <= len(interactions):
            problems.append(Problem.at(where, f"`recorded: {number}`: the cassette has interactions 1 to {len(interactions)}"))
            continue
        try:
            replies[number] = recorded_reply(interactions[number - 1])
        except (CassetteError, ValueError) as error:
            problems.append(Problem.at(where, f"`recorded: {number}`: {error}"))
    return replies, problems
