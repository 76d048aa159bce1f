"""pytest plugin: scenario YAML files are collected as tests, and the ``fault_api``
fixture binds a test's own Anthropic client to a scenario; the ``cassette`` marker and
``cassette_client`` fixture replay vcrpy cassettes (``cassette_fixtures``).

Hooks and fixtures only; the work is in ``harness.scenario`` (``pytest_items``, ``runner``,
``wire_session``) and ``harness.cassette.fixtures``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from harness.cassette import fixtures as cassette_fixtures
from harness.cassette.fixtures import (  # noqa: F401 -- fixtures, registered by being here
    async_cassette_client,
    cassette,
    cassette_client,
    cassette_config,
    cassette_dir,
    cassette_name,
    cassette_record_mode,
    cassette_workspace,
)
from harness.library.properties import PROFILE_NAMES
from harness.scenario.frontends.process_end import a_session_begins, a_session_ends
from harness.wire.errors import HarnessError

SCENARIO_SUFFIXES = (".yaml", ".yml")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "fault scenarios")
    group.addoption(
        "--update-golden", action="store_true", default=False, help="write scenario golden transcripts anew"
    )
    group.addoption(
        "--harness-found-dir", metavar="DIR", default=None,
        help="where failing property tests save their scenario (default: $HARNESS_FOUND_DIR or scenarios/found)",
    )
    group.addoption(
        "--harness-agent", metavar="MODULE:FACTORY", default=None,
        help="the agent scenario files are run against (default: the harness_agent ini key, else mini_agent)",
    )
    group.addoption(
        "--harness-html", metavar="FILE", default=None,
        help="write a self-contained HTML report of the scenario items (timelines, fault coverage)",
    )
    group.addoption(
        "--harness-progress", metavar="SECONDS", type=float, default=None,
        help="every SECONDS, a line per running hypothesis test with the examples it has run",
    )
    group.addoption(
        "--harness-library", action="store_true", default=False,
        help="also run the scenario library installed with the harness (harness.library.SCENARIOS)",
    )
    group.addoption(
        "--harness-properties", action="store_true", default=False,
        help="also run the agent-neutral properties installed with the harness (harness.library.PROPERTIES)",
    )
    group.addoption(
        "--harness-hypothesis-output", action="store_true", default=False,
        help="show hypothesis' own report of a failing property, not only the harness's scenario and timeline",
    )
    group.addoption(
        "--harness-shard", metavar="K/N", default=None, type=_shard,
        help="run the K-th of N parts of the collected items, balanced by their recorded durations",
    )
    group.addoption(
        "--harness-durations", metavar="FILE", default=None,
        help="the items' recorded durations, read to order -n and --harness-shard and written after a run "
             "(default: durations.json in .harness_cache or $HARNESS_CACHE_DIR)",
    )
    parser.addini("harness_scenario_dirs", "folder names whose YAML files are scenarios", type="args", default=["scenarios"])
    parser.addini("harness_agent", "MODULE:FACTORY of the agent scenario files are run against", default="")
    cassette_fixtures.add_options(parser)


def _runs_the_properties(args: list[str]) -> bool:
    """Whether the session's arguments name the properties installed with the harness
    (``--pyargs harness.library.properties``, their folder, a file or test in it)."""
    from harness import library

    for arg in args:
        target = arg.split("::")[0]
        if target == "harness.library.properties" or target.startswith("harness.library.properties."):
            return True
        try:
            resolved = Path(target).resolve()
        except (OSError, ValueError):
            continue
        if resolved == library.PROPERTIES or library.PROPERTIES in resolved.parents:
            return True
    return False


@pytest.hookimpl(tryfirst=True)  # before hypothesis' plugin reads --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("hypothesis_profile", None) in PROFILE_NAMES:
        from harness.library.properties import profiles  # noqa: F401 -- registers the harness's profiles
    config.addinivalue_line("markers", "scenario(path, tool_map=None): bind the fault_api fixture to a scenario file "
                                       "(tool_map: the agent's names for the standard tools)")
    if config.getoption("--harness-library") or config.getoption("--harness-properties"):
        from harness import library

        if config.getoption("--harness-library"):
            config.args.append(str(library.SCENARIOS))
        if config.getoption("--harness-properties"):
            config.args.append(str(library.PROPERTIES))
    if _runs_the_properties(config.args):  # their profile in force before hypothesis' header names it
        from harness.library.properties import profiles  # noqa: F401 -- registers the profiles, loads the run's
    cassette_fixtures.configure(config)
    a_session_begins()
    from harness.scenario.frontends.pytest_schedule import PLUGIN_NAME, Schedule

    config.pluginmanager.register(Schedule(config), PLUGIN_NAME)
    if config.getoption("--harness-found-dir"):
        import os

        from harness.scenario.run.found import FOUND_DIR_VARIABLE

        os.environ[FOUND_DIR_VARIABLE] = str(Path(config.getoption("--harness-found-dir")).resolve())
    if config.getoption("--harness-agent"):  # properties read it from the environment, as subprocesses do
        import os

        from harness.scenario.frontends.pytest_items import AGENT_VARIABLE

        os.environ[AGENT_VARIABLE] = config.getoption("--harness-agent")
    if config.getoption("--harness-html"):
        from harness.scenario.frontends.pytest_report import HtmlReport

        config.pluginmanager.register(HtmlReport(Path(config.getoption("--harness-html")).resolve()), "harness-html-report")
    if config.getoption("--harness-progress") is not None:
        from harness.scenario.frontends.pytest_progress import (
            PLUGIN_NAME,
            ExampleProgress,
        )

        config.pluginmanager.register(ExampleProgress(config, config.getoption("--harness-progress")), PLUGIN_NAME)
    if config.getoption("--update-golden"):
        import os

        from harness.scenario.checks.golden import UPDATE_VARIABLE

        os.environ[UPDATE_VARIABLE] = "1"


@pytest.hookimpl(tryfirst=True)  # before pytest's own collection for unraisable exceptions, which then has little to walk
def pytest_unconfigure(config: pytest.Config) -> None:
    a_session_ends(worker=hasattr(config, "workerinput"))  # a pytest-xdist worker's process ends with its session


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    dirs = set(parent.config.getini("harness_scenario_dirs"))
    if file_path.suffix in SCENARIO_SUFFIXES and dirs.intersection(file_path.parts[:-1]):
        from harness.scenario.frontends.pytest_items import ScenarioFile

        return ScenarioFile.from_parent(parent, path=file_path)
    return None


def _shard(text: str) -> tuple[int, int]:
    from harness.scenario.frontends.shards import shard_option

    return shard_option(text)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A property's counterexample is reported as its scenario and timeline only."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or report.passed or item.config.getoption("--harness-hypothesis-output"):
        return
    from harness.scenario.run.found import Counterexample

    if isinstance(call.excinfo.value, Counterexample):
        report.longrepr = f"{call.excinfo.value}\n(hypothesis' own report: --harness-hypothesis-output)"


@pytest.fixture
def fault_api(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fake Anthropic API serving the scenario named by ``@pytest.mark.scenario(path)``;
    its wire-level invariants and expectations are checked at teardown."""
    from harness.scenario.run.wire_session import WireSession

    marker = request.node.get_closest_marker("scenario")
    if marker is None or not marker.args:
        pytest.fail("fault_api needs @pytest.mark.scenario('path/to/scenario.yaml')", pytrace=False)
    path = Path(marker.args[0])
    if not path.is_absolute():
        path = Path(request.config.rootpath) / path
    tool_map = marker.kwargs.get("tool_map")
    session, failure = _or_failure(lambda: WireSession.from_file(path, tool_map=tool_map), "@pytest.mark.scenario")
    if session is None:
        pytest.fail(failure, pytrace=False)
    yield session
    problems = session.problems()
    if problems:
        pytest.fail("\n".join(map(str, problems)), pytrace=False)


@pytest.fixture
def harness_agent(request: pytest.FixtureRequest) -> Any:
    """The agent under test: ``--harness-agent``, the ``harness_agent`` ini key, or None
    (mini_agent). Override it to return your factory."""
    from harness.scenario.frontends.pytest_items import configured_agent

    return configured_agent(request.config)


@pytest.fixture
def harness_run(request: pytest.FixtureRequest, harness_agent: Any) -> Any:
    """``harness_run(path, agent=None) -> Outcome``: run a scenario file (relative to the
    rootdir) against ``agent``, by default the ``harness_agent`` fixture's."""
    from harness.scenario.format.loader import load_scenario
    from harness.scenario.run.runner import run_scenario

    def run(path: str | Path, agent: Any = None) -> Any:
        file = Path(path) if Path(path).is_absolute() else Path(request.config.rootpath) / path
        scenario, failure = _or_failure(lambda: load_scenario(file), "harness_run")
        if scenario is None:
            pytest.fail(failure, pytrace=False)
        return run_scenario(scenario, agent=agent if agent is not None else harness_agent)

    return run


def _or_failure(load: Any, who: str) -> tuple[Any, str]:
    """``(load(), "")``, or ``(None, what went wrong)`` where the harness names a mistake in
    its input (a scenario's file, line and choices): failed with no traceback, outside the
    ``except`` so that none is chained to it."""
    try:
        return load(), ""
    except HarnessError as error:
        return None, f"{who}: {error}"
