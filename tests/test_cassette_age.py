"""A cassette's age: written when it is recorded, never refreshed by reading it, judged
against the strictest maximum that applies (the cassette's own, the project's, a folder's
``cassette_config``, a test's marker): a warning on a developer's machine, a failure in
CI, recorded again under ``--record-mode rewrite``."""

from __future__ import annotations

import datetime

import pytest
import yaml
from test_cassette_fixtures import ANSWERS, PELICANS, PLUGIN, api

from harness.cassette.age import AgeError, age_of, parse_max_age
from harness.wire.cassette_file import read_cassette

pytest_plugins = ["pytester"]
NOW = datetime.datetime(2026, 12, 6, 12, 0, tzinfo=datetime.timezone.utc)


def recorded(days_ago: float, **more: object) -> dict:
    when = NOW - datetime.timedelta(days=days_ago)
    return {"harness": {"recorded_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"), **more}}


@pytest.mark.parametrize(("text", "seconds"), [(90, 90.0), ("90s", 90.0), ("30m", 1800.0), ("12h", 43200.0),
                                                ("7d", 604800.0), ("2w", 1209600.0), ("1.5d", 129600.0)])
def test_a_maximum_age_is_seconds_or_a_number_with_a_unit(text, seconds) -> None:
    assert parse_max_age(text) == seconds


@pytest.mark.parametrize("text", ["soon", "-3d", "0", "7 days", "", True])
def test_anything_else_is_an_error_naming_the_forms(text) -> None:
    with pytest.raises(AgeError, match="90s, 30m, 12h, 7d, 2w"):
        parse_max_age(text)


def test_the_strictest_maximum_holds_and_only_ci_fails(monkeypatch) -> None:
    age = age_of("c.yaml", recorded(10, max_age="30d"), ["7d", None], now=NOW)
    assert age.expired and age.max_seconds == 7 * 86400
    assert "c.yaml: the cassette is 10 days old, more than its maximum age of 7 days" in age.message()
    monkeypatch.delenv("CI", raising=False)
    assert not age.fails
    monkeypatch.setenv("CI", "true")
    assert age.fails
    assert not age_of("c.yaml", recorded(10), ["30d"], now=NOW).expired
    assert age_of("c.yaml", recorded(10), [], now=NOW).message() is None  # no maximum, nothing to say


def test_a_cassette_that_does_not_say_when_it_was_recorded_is_a_warning_never_a_failure(monkeypatch) -> None:
    monkeypatch.setenv("CI", "true")
    age = age_of("old.yaml", {}, ["7d"], now=NOW)
    assert age.unknown and not age.expired and not age.fails
    assert "does not say when it was recorded" in age.message()


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The pelican project, recorded today, its cassettes then made 40 days old."""
    pytester.makepyfile(test_pelicans=PELICANS)
    monkeypatch.delenv("CI", raising=False)
    with api(monkeypatch, ANSWERS):
        pytester.runpytest(*PLUGIN, "--record-mode", "once").assert_outcomes(passed=3)
    for path in (pytester.path / "cassettes" / "test_pelicans").iterdir():
        data = yaml.safe_load(path.read_text())
        data["metadata"]["harness"]["recorded_at"] = "2026-10-27T12:00:00Z"
        path.write_text(yaml.safe_dump(data))
    return pytester


def test_reading_never_refreshes_the_age(project: pytest.Pytester) -> None:
    cassette = project.path / "cassettes" / "test_pelicans" / "test_answer.yaml"
    before = cassette.read_text()
    project.runpytest(*PLUGIN).assert_outcomes(passed=3)
    assert cassette.read_text() == before
    assert read_cassette(cassette).metadata["harness"]["recorded_at"] == "2026-10-27T12:00:00Z"


def test_an_expired_cassette_warns_on_a_developers_machine(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nharness_cassette_max_age = 30d\n")
    result = project.runpytest(*PLUGIN)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*CassetteWarning*test_answer.yaml: the cassette is * days old, more than its maximum age of 30 days*"])


def test_an_expired_cassette_fails_in_ci(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    project.makeini("[pytest]\nharness_cassette_max_age = 30d\n")
    monkeypatch.setenv("CI", "true")
    result = project.runpytest(*PLUGIN)
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*test_answer.yaml: the cassette is * days old*record it again (--record-mode rewrite)*"])


def test_a_marker_can_be_stricter_than_the_project(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    project.makeini("[pytest]\nharness_cassette_max_age = 90d\n")
    project.makepyfile(test_pelicans=PELICANS.replace("@pytest.mark.cassette\ndef test_answer", "@pytest.mark.cassette(max_age='2w')\ndef test_answer"))
    monkeypatch.setenv("CI", "1")
    project.runpytest(*PLUGIN).assert_outcomes(passed=2, errors=1)


def test_rewrite_records_an_expired_cassette_again_with_a_new_age(project: pytest.Pytester, monkeypatch) -> None:
    project.makeini("[pytest]\nharness_cassette_max_age = 30d\n")
    with api(monkeypatch, ANSWERS):
        project.runpytest(*PLUGIN, "--record-mode", "rewrite").assert_outcomes(passed=3)
    cassette = project.path / "cassettes" / "test_pelicans" / "test_answer.yaml"
    stamp = read_cassette(cassette).metadata["harness"]["recorded_at"]
    assert stamp > "2026-10-27T12:00:00Z"
    monkeypatch.setenv("CI", "true")
    project.runpytest(*PLUGIN).assert_outcomes(passed=3)  # young again: CI passes


def test_unused_interactions_are_reported_and_can_be_dropped(pytester: pytest.Pytester, monkeypatch) -> None:
    pytester.makepyfile(test_two="""
import pytest

def ask(client, text):
    return client.messages.create(model="m", max_tokens=9, messages=[{"role": "user", "content": text}]).content[0].text

@pytest.mark.cassette("shared.yaml", match_on="order")
def test_both(cassette_client):
    assert ask(cassette_client, "one") == "Gulliver"
    assert ask(cassette_client, "two") == "Pouch"
""")
    with api(monkeypatch, ANSWERS[:2]):
        pytester.runpytest(*PLUGIN, "--record-mode", "once").assert_outcomes(passed=1)
    pytester.makepyfile(test_two=pytester.path.joinpath("test_two.py").read_text().replace(
        'assert ask(cassette_client, "two") == "Pouch"', "pass"))
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*shared.yaml: interaction(s) 2 were never requested*drop_unused=True*"])
    cassette = pytester.path / "cassettes" / "test_two" / "shared.yaml"
    assert len(read_cassette(cassette).interactions) == 2
    pytester.makeconftest("import pytest\n\n@pytest.fixture\ndef cassette_config():\n    return {'drop_unused': True}\n")
    pytester.runpytest(*PLUGIN).stdout.fnmatch_lines(["*shared.yaml: dropped unused interaction(s) 2; 1 left*"])
    kept = read_cassette(cassette)
    assert len(kept.interactions) == 1 and "recorded_at" in kept.metadata["harness"]


@pytest.fixture
def old_cassette(tmp_path):
    from harness.cassette.record import record_over_loopback

    path = tmp_path / "write_then_check.yaml"
    record_over_loopback("cassettes/sources/loopback_write_then_check.yaml", path)
    data = yaml.safe_load(path.read_text())
    data["metadata"]["harness"]["recorded_at"] = "2026-10-27T12:00:00Z"
    path.write_text(yaml.safe_dump(data))
    return path


def test_harness_replay_warns_of_an_expired_cassette_and_fails_in_ci(old_cassette, monkeypatch, capsys) -> None:
    from harness.cli import main

    monkeypatch.delenv("CI", raising=False)
    assert main(["replay", str(old_cassette), "--max-age", "30d"]) == 0
    assert "write_then_check.yaml: the cassette is" in capsys.readouterr().err
    monkeypatch.setenv("CI", "true")
    assert main(["replay", str(old_cassette), "--max-age", "30d"]) == 1
    assert main(["replay", str(old_cassette), "--max-age", "90d"]) == 0


def test_harness_replay_drops_what_no_request_got_when_asked(old_cassette, capsys) -> None:
    from harness.cli import main

    recorded = len(read_cassette(old_cassette).interactions)  # two turns; replay only the first
    first = "Create notes.txt with a shopping list of three items."
    assert main(["replay", str(old_cassette), "--", first]) == 1
    assert "were never requested (--drop-unused drops them)" in capsys.readouterr().err
    assert main(["replay", "--drop-unused", str(old_cassette), "--", first]) == 0
    kept = read_cassette(old_cassette)
    assert 0 < len(kept.interactions) < recorded
    assert kept.metadata["harness"]["recorded_at"] == "2026-10-27T12:00:00Z"  # dropping is no new recording
