"""The ``cassette`` marker and ``cassette_client`` fixture, run on generated test files the
way a pytest-recording user works: record once against a server (here the fault server
on 127.0.0.1), then replay offline by default; a changed request fails with a diff."""

from __future__ import annotations

import contextlib
from typing import Iterator

import pytest

from harness.cassette.scan import scan_paths
from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

pytest_plugins = ["pytester"]

PLUGIN = ("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest")
KEY = "sk-ant-api03-" + "Fx3" * 30

PELICANS = """\
import asyncio

import pytest


def ask(client, text):
    reply = client.messages.create(model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": text}])
    return reply.content[0].text


@pytest.mark.cassette
def test_answer(cassette_client):
    assert ask(cassette_client, "Name a pelican") == "Gulliver"


@pytest.mark.cassette("shared.yaml", engine="vcr", match_on="order")
def test_async_through_vcrpy(async_cassette_client):
    async def go():
        reply = await async_cassette_client.messages.create(
            model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": "Another one"}]
        )
        return reply.content[0].text

    assert asyncio.run(go()) == "Pouch"


class TestNames:
    @pytest.mark.cassette
    def test_in_a_class(self, cassette_client, cassette):
        assert ask(cassette_client, "And a third") == "Scoop"
        assert cassette.path.name == "TestNames.test_in_a_class.yaml"
"""
ANSWERS = [Reply(message={"text": name}) for name in ("Gulliver", "Pouch", "Scoop")]


@contextlib.contextmanager
def api(monkeypatch: pytest.MonkeyPatch, replies: list[Reply]) -> Iterator[Responder]:
    """The fault server as ``ANTHROPIC_BASE_URL``, with a key that must not be recorded."""
    responder = Responder(replies, clock=VirtualClock())
    with FaultServer(responder, time_scale=0) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        yield responder
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)  # closed now: any request would fail


@pytest.fixture
def recorded(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project whose three tests were recorded with ``--record-mode once``."""
    pytester.makepyfile(test_pelicans=PELICANS)
    with api(monkeypatch, ANSWERS) as responder:
        pytester.runpytest(*PLUGIN, "--record-mode", "once").assert_outcomes(passed=3)
    assert len(responder.requests) == 3 and responder.problems == []
    return pytester


def test_record_once_writes_one_clean_cassette_per_test(recorded):
    folder = recorded.path / "cassettes" / "test_pelicans"
    assert sorted(p.name for p in folder.iterdir()) == ["TestNames.test_in_a_class.yaml", "shared.yaml", "test_answer.yaml"]
    assert scan_paths([folder]) == []
    assert all(KEY not in p.read_text() and "authorization" not in p.read_text() for p in folder.iterdir())


def test_by_default_the_cassettes_replay_offline(recorded):
    recorded.runpytest(*PLUGIN).assert_outcomes(passed=3)  # the server is gone; nothing may connect


def test_a_changed_request_fails_the_test_with_a_diff(recorded):
    recorded.makepyfile(test_pelicans=PELICANS.replace('"Name a pelican"', '"Name a heron"'))
    result = recorded.runpytest(*PLUGIN, "-k", "test_answer")
    result.assert_outcomes(failed=1, errors=1)  # the call fails, and teardown reports the mismatch
    result.stdout.fnmatch_lines(["*request 1 (POST /v1/messages) does not match*test_answer.yaml*", "*--- recorded*"])
    result.stdout.fnmatch_lines(['*-*"content": "Name a pelican"*', '*+*"content": "Name a heron"*'])


def test_a_missing_cassette_says_how_to_record_it(pytester):
    pytester.makepyfile(test_missing="import pytest\n\n@pytest.mark.cassette\ndef test_x(cassette_client):\n    pass\n")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_x.yaml: no such cassette; record it with --record-mode once*"])


def test_options_come_from_command_line_then_cassette_config_then_the_marker(pytester, monkeypatch):
    pytester.makeconftest("import pytest\n\n@pytest.fixture\ndef cassette_config():\n    return {'record_mode': 'none'}\n")
    pytester.makepyfile(
        test_precedence="""
import pytest

def test_the_fixture_beats_the_command_line(cassette):
    assert cassette.record_mode == "none"

@pytest.mark.cassette(record_mode="all", match_on="order")
def test_the_marker_beats_the_fixture(cassette):
    assert (cassette.record_mode, cassette.match_on) == ("all", "order")
"""
    )
    with api(monkeypatch, []):
        pytester.runpytest(*PLUGIN, "--record-mode", "once", "-k", "marker").assert_outcomes(passed=1)
    pytester.runpytest(*PLUGIN, "--record-mode", "once", "-k", "command_line").assert_outcomes(errors=1)  # none: no file


def test_an_unknown_option_is_a_usage_error(pytester):
    pytester.makepyfile(test_bad="import pytest\n\n@pytest.mark.cassette(mode='none')\ndef test_x(cassette):\n    pass\n")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cassette options *'mode'*: choose from record_mode, match_on, engine, cwd, block_network, speed, max_age, drop_unused"])


def test_the_options_sit_beside_the_plugins_own(pytester):
    result = pytester.runpytest(*PLUGIN, "--help")
    result.stdout.fnmatch_lines(["*--update-golden*", "*--record-mode=*", "*record mode for @pytest.mark.cassette tests*"])
    pytester.runpytest(*PLUGIN, "--markers").stdout.fnmatch_lines(["@pytest.mark.cassette(name=None, **options)*"])
