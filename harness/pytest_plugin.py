"""pytest plugin: scenario YAML files are collected as tests, and the ``fault_api``
fixture binds a test's own Anthropic client to a scenario; the ``cassette`` marker and
``cassette_client`` fixture replay vcrpy cassettes (``cassette_fixtures``).

Hooks and fixtures only; the work is in ``runner``, ``wire_session`` and ``timeline``.
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
)

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
    parser.addini("harness_scenario_dirs", "folder names whose YAML files are scenarios", type="args", default=["scenarios"])
    cassette_fixtures.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "scenario(path): bind the fault_api fixture to a scenario file")
    cassette_fixtures.configure(config)
    if config.getoption("--harness-found-dir"):
        import os

        from harness.scenario.found import FOUND_DIR_VARIABLE

        os.environ[FOUND_DIR_VARIABLE] = str(Path(config.getoption("--harness-found-dir")).resolve())
    if config.getoption("--update-golden"):
        import os

        from harness.scenario.golden import UPDATE_VARIABLE

        os.environ[UPDATE_VARIABLE] = "1"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    dirs = set(parent.config.getini("harness_scenario_dirs"))
    if file_path.suffix in SCENARIO_SUFFIXES and dirs.intersection(file_path.parts[:-1]):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    """One scenario file: one test item, named after the scenario."""

    def collect(self) -> Iterator[pytest.Item]:
        from harness.scenario.loader import ScenarioError, load_scenario

        try:
            scenario = load_scenario(self.path)
        except ScenarioError as error:
            yield BrokenScenarioItem.from_parent(self, name=self.path.stem, problems=error.problems)
            return
        yield ScenarioItem.from_parent(self, name=scenario.name, scenario=scenario)


class ScenarioFailed(Exception):
    """A scenario whose invariants or expectations did not hold."""


class ScenarioItem(pytest.Item):
    """Runs one scenario against mini_agent; a failure prints the timeline."""

    def __init__(self, *, scenario: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        from harness.scenario.runner import run_scenario
        from harness.scenario.timeline import format_timeline

        outcome = run_scenario(self.scenario)
        if outcome.problems:
            raise ScenarioFailed(format_timeline(outcome))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario: {self.name}"


class BrokenScenarioItem(pytest.Item):
    """A scenario file with mistakes: fails with ``path:line:col`` lines, no traceback."""

    def __init__(self, *, problems: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problems = problems

    def runtest(self) -> None:
        raise ScenarioFailed("\n".join(self.problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario file: {self.path.name}"


@pytest.fixture
def fault_api(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fake Anthropic API serving the scenario named by ``@pytest.mark.scenario(path)``;
    its wire-level invariants and expectations are checked at teardown."""
    from harness.scenario.wire_session import WireSession

    marker = request.node.get_closest_marker("scenario")
    if marker is None or not marker.args:
        raise pytest.UsageError("fault_api needs @pytest.mark.scenario('path/to/scenario.yaml')")
    path = Path(marker.args[0])
    if not path.is_absolute():
        path = Path(request.config.rootpath) / path
    session = WireSession.from_file(path)
    yield session
    problems = session.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
