"""The oracle against real recorded requests (``harness/library/cassettes/conformance/
requests``, its README names every source and licence): every request the live API
accepted is accepted, and every 400 a body-only checker can judge is refused with the
API's own words, first. A recorded request that kept its headers is judged with its
betas; one that did not is judged without the rules a beta lifts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.oracle import check_request
from harness.oracle.betas import request_betas
from harness.oracle.history_file import check_history_file

REQUESTS = Path(__file__).resolve().parents[1] / "harness" / "library" / "cassettes" / "conformance" / "requests"
FILES = sorted(REQUESTS.glob("*.jsonl"))


def recorded(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def betas_of(row: dict[str, Any]) -> list[str] | None:
    headers = row.get("headers")
    return None if headers is None else request_betas(headers) or []


def verdicts(path: Path) -> tuple[list[str], list[str], int]:
    """False alarms, 400s missed or worded otherwise, and how many rows were judged."""
    false_alarms, missed, judged = [], [], 0
    for row in recorded(path):
        said = [v.api_text for v in check_request(row["body"], betas=betas_of(row))]
        if row["status"] == 200:
            judged += 1
            if said:
                false_alarms.append(f"{row['source']}: {said[0]}")
        elif "not_judged" not in row:
            judged += 1
            if said[:1] != [row["error"]]:
                missed.append(f"{row['source']}: the API said {row['error']!r}, the oracle {said[:1]}")
    return false_alarms, missed, judged


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_accepted_request_passes_and_every_judgeable_400_is_refused_in_the_apis_words(path: Path) -> None:
    false_alarms, missed, judged = verdicts(path)
    assert judged and false_alarms == [] and missed == [], "\n".join(false_alarms + missed)


def test_the_corpus_is_real_traffic_of_several_clients_with_their_licences() -> None:
    rows = [row for path in FILES for row in recorded(path)]
    accepted = [row for row in rows if row["status"] == 200]
    refused = [row for row in rows if row["status"] == 400 and "not_judged" not in row]
    with_betas_known = [row for row in accepted if "headers" in row]
    assert len(accepted) >= 400 and len(refused) >= 10 and len(with_betas_known) >= 100
    readme = (REQUESTS / "README.md").read_text(encoding="utf-8")
    for path in FILES:
        assert f"`{path.name}`" in readme, f"{path.name} is not described in the README"
        if path.stem != "reported-400s":
            assert path.with_suffix(".LICENSE").is_file(), f"{path.name} has no licence beside it"


def test_a_refused_body_recorded_as_accepted_is_a_false_alarm_and_the_other_way_a_miss(tmp_path: Path) -> None:
    refused = recorded(REQUESTS / "reported-400s.jsonl")[0]
    accepted = recorded(REQUESTS / "langchaingo.jsonl")[0]
    path = tmp_path / "swapped.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in (
        {**refused, "status": 200}, {**accepted, "status": 400, "error": refused["error"]},
    )))
    false_alarms, missed, judged = verdicts(path)
    assert judged == 2 and len(false_alarms) == 1 and len(missed) == 1


def test_check_history_reads_the_corpus_as_recorded_requests() -> None:
    assert check_history_file(REQUESTS / "chatlas.jsonl") == []
    reported = check_history_file(REQUESTS / "reported-400s.jsonl")
    assert [line.split(": ", 1)[1] for line in reported[:1]] == [recorded(REQUESTS / "reported-400s.jsonl")[0]["error"]]
