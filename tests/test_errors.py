"""One root for the harness's exceptions, and the CLI catching it once."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import harness
from harness import cli
from harness.wire.errors import HarnessError


def _harness_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(harness.__path__, "harness."):
        if info.name == "harness.__main__":
            continue
        module = importlib.import_module(info.name)
        found += [
            value for value in vars(module).values()
            if inspect.isclass(value) and issubclass(value, BaseException) and not issubclass(value, Warning)
            and value.__module__ == info.name
        ]
    return found


def test_every_exception_the_harness_defines_has_the_one_root() -> None:
    exceptions = _harness_exceptions()
    assert len(exceptions) > 20  # the walk found them
    strays = [f"{e.__module__}.{e.__qualname__}" for e in exceptions if not issubclass(e, HarnessError)]
    assert not strays, strays


def test_the_cli_says_a_harness_error_in_one_line_and_exits_2(monkeypatch, capsys) -> None:
    class Planted(HarnessError):
        pass

    def command(args: object) -> int:
        raise Planted("scenarios/x.yaml:3:5: `cut` cannot be 'soon'")

    monkeypatch.setattr(cli, "_parser", lambda: _parser_running(command))
    assert cli.main(["go"]) == cli.EXIT_USAGE
    assert capsys.readouterr().err == "harness: scenarios/x.yaml:3:5: `cut` cannot be 'soon'\n"


def test_the_cli_calls_anything_else_a_bug_of_its_own(monkeypatch, capsys) -> None:
    def command(args: object) -> int:
        raise KeyError("type")

    monkeypatch.setattr(cli, "_parser", lambda: _parser_running(command))
    assert cli.main(["go"]) == cli.EXIT_INTERNAL
    assert "internal error: KeyError" in capsys.readouterr().err


def _parser_running(command):  # type: ignore[no-untyped-def]
    import argparse

    parser = argparse.ArgumentParser(prog="harness")
    parser.add_argument("word")
    parser.set_defaults(command=command)
    return parser


@pytest.mark.parametrize("name", ["ScenarioError", "PositionError", "CassetteError", "ReplayMismatch"])
def test_a_built_in_meaning_is_kept_beside_the_root(name: str) -> None:
    """Callers that catch ValueError or AssertionError still catch these."""
    cls = next(e for e in _harness_exceptions() if e.__name__ == name)
    assert issubclass(cls, HarnessError)
    assert issubclass(cls, (ValueError, AssertionError))
