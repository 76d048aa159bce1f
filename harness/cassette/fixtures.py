"""pytest fixtures and the ``cassette`` marker, after pytest-recording's conventions.

    @pytest.mark.cassette                       # cassettes/<module>/<test name>.yaml
    def test_answer(cassette_client): ...

    @pytest.mark.cassette("shared.yaml", match_on="order", engine="vcr")
    async def test_async(async_cassette_client): ...

- Cassettes live next to the test module in ``cassettes/<module name>/`` (fixture
  ``cassette_dir``), named after the test (``cassette_name``: ``test_x.yaml``, or
  ``TestClass.test_x.yaml``); a marker's first argument names another file in that
  folder (or an absolute path).
- ``--record-mode`` none (the default: replay only, network blocked), once, new_episodes,
  all, rewrite: pytest-recording's modes (``harness.cassette.modes``). When
  pytest-recording is installed its own ``--record-mode`` is used.
- Options, low to high precedence as in pytest-recording: ``--record-mode``, then the
  ``cassette_config`` fixture (a dict you may override at any scope: a folder's
  ``conftest.py`` sets it for the folder), then the marker's keyword arguments. Keys:
  ``record_mode``, ``match_on`` (body | order), ``engine`` (harness | vcr), ``cwd``
  (written as ``<cwd>`` in request bodies), ``block_network``, ``max_age`` (``7d``,
  ``12h`` …), ``drop_unused`` (after a passing replay, write the cassette again without
  the interactions no request got).
- Age (``harness.cassette.age``): a replayed cassette older than the strictest maximum
  that applies — its own, the ``harness_cassette_max_age`` ini key, ``cassette_config``,
  the marker — is a ``CassetteWarning`` on a developer's machine and fails the test in
  CI (``CI`` set); ``--record-mode rewrite`` records it again. Interactions a replay never
  used are a ``CassetteWarning`` too, naming them.
- ``cassette`` is the ``CassetteSession``; ``cassette_client`` / ``async_cassette_client``
  are SDK clients bound to it; ``cassette_workspace`` is the folder for the agent's
  tools: fresh and temporary unless ``cwd`` names one (a cassette's tool calls are code). A request that does not match the recording fails the
  test at teardown with a diff of the two bodies.

``pytest_plugin`` registers these (the plugin file holds only hooks and fixtures).
"""

from __future__ import annotations

import importlib.util
import warnings
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Iterator

import pytest

from harness.cassette.modes import RECORD_MODES
from harness.wire.errors import HarnessError

MARKER = "cassette"
OPTION_KEYS = ("record_mode", "match_on", "engine", "cwd", "block_network", "speed", "max_age", "drop_unused")
SESSION_KEYS = OPTION_KEYS[:6]
_FORBIDDEN = '<>?%*:|"\'/\\'


def add_options(parser: pytest.Parser) -> None:
    """``--record-mode``, unless pytest-recording (which has the same option) is
    installed, and the ``harness_cassette_max_age`` ini key."""
    parser.addini("harness_cassette_max_age", "the maximum age of every replayed cassette: 90s, 12h, 7d, 2w …", default="")
    if importlib.util.find_spec("pytest_recording") is not None:
        return
    group = parser.getgroup("recording", "cassettes (vcrpy)")
    group.addoption(
        "--record-mode",
        action="store",
        default="none",
        choices=RECORD_MODES,
        help='record mode for @pytest.mark.cassette tests (default: "none", replay only)',
    )


class CassetteWarning(UserWarning):
    """A replayed cassette past its maximum age or of unknown age, or with interactions
    that no request used."""


def configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(name=None, **options): replay (or record) a vcrpy cassette for the cassette_client fixture",
    )


@pytest.fixture(scope="module")
def cassette_dir(request: pytest.FixtureRequest) -> Path:
    """``cassettes/<module name>/`` next to the test module."""
    module = Path(request.path)
    return module.parent / "cassettes" / module.stem


@pytest.fixture
def cassette_name(request: pytest.FixtureRequest) -> str:
    """``<test name>.yaml`` (``<Class>.<test name>.yaml`` in a class), file-name safe."""
    name = f"{request.cls.__name__}.{request.node.name}" if request.cls else request.node.name
    for char in _FORBIDDEN:
        name = name.replace(char, "-")
    return f"{name}.yaml"


@pytest.fixture
def cassette_config() -> dict[str, Any]:
    """Options for every cassette in scope; override this fixture to change them."""
    return {}


@pytest.fixture
def cassette_record_mode(request: pytest.FixtureRequest) -> str:
    """The record mode from the command line (``none`` by default)."""
    return request.config.getoption("record_mode", default="none")


@pytest.fixture
def cassette(
    request: pytest.FixtureRequest,
    cassette_dir: Path,
    cassette_name: str,
    cassette_config: dict[str, Any],
    cassette_record_mode: str,
) -> Iterator[Any]:
    """The test's CassetteSession; fails the test at teardown if a request did not match."""
    from harness.cassette.session import CassetteSession

    marker = request.node.get_closest_marker(MARKER)
    options = {"record_mode": cassette_record_mode, **cassette_config, **(marker.kwargs if marker else {})}
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        pytest.fail(f"cassette options {unknown}: choose from {', '.join(OPTION_KEYS)}", pytrace=False)
    name = marker.args[0] if marker and marker.args else cassette_name
    path = Path(name) if Path(name).is_absolute() else Path(cassette_dir) / name
    try:
        session = CassetteSession(path, **{k: v for k, v in options.items() if k in SESSION_KEYS})
    except ValueError as error:
        pytest.fail(f"@pytest.mark.{MARKER}: {error}", pytrace=False)
    with ExitStack() as stack:
        failure = ""
        try:
            stack.enter_context(session)
        except HarnessError as error:  # a missing or corrupt cassette, a rules file with mistakes
            failure = str(error)
        if failure:
            pytest.fail(failure, pytrace=False)  # outside the except: no traceback chained to it
        if session.replaying:
            _judge_age(session, [request.config.getini("harness_cassette_max_age") or None, options.get("max_age")])
        yield session
    if session.problems:
        pytest.fail("\n\n".join(session.problems), pytrace=False)
    _report_unused(session, drop=bool(options.get("drop_unused")))


def _judge_age(session: Any, limits: list[Any]) -> None:
    """A cassette past its maximum age fails the test in CI and warns elsewhere."""
    from harness.cassette.age import AgeError, age_of

    try:
        age = age_of(str(session.path), session.metadata, limits)
    except AgeError as error:
        pytest.fail(f"@pytest.mark.{MARKER}: {error}", pytrace=False)
    message = age.message()
    if age.fails:
        pytest.fail(message or "", pytrace=False)
    if message:
        warnings.warn(CassetteWarning(message), stacklevel=2)


def _report_unused(session: Any, *, drop: bool) -> None:
    """Interactions the replay never used: a warning, or (``drop_unused``) dropped."""
    unused = session.unused
    if not unused:
        return
    if drop:
        from harness.cassette.vcr_setup import drop_interactions

        left = drop_interactions(session.path, unused)
        warnings.warn(CassetteWarning(f"{session.path}: dropped unused interaction(s) {_numbers(unused)}; {left} left"),
                      stacklevel=2)
        return
    warnings.warn(CassetteWarning(f"{session.path}: interaction(s) {_numbers(unused)} were never requested "
                                     "(drop them with the cassette option drop_unused=True)"), stacklevel=2)


def _numbers(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


@pytest.fixture
def cassette_client(cassette: Any) -> Any:
    """An ``anthropic.Anthropic`` that replays (or records) the test's cassette."""
    return cassette.client()


@pytest.fixture
def cassette_workspace(cassette: Any) -> Path:
    """Where the agent under test should run its tools: a fresh temporary folder (removed
    afterwards) unless the ``cwd`` option names one."""
    return cassette.workspace


@pytest.fixture
def async_cassette_client(cassette: Any) -> Any:
    """An ``anthropic.AsyncAnthropic`` that replays (or records) the test's cassette."""
    return cassette.async_client()
