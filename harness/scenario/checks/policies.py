"""Judging policies (their names and meanings: ``harness.scenario.format.policy_names``):
which an agent declares (``harness_policies``), and whether a scenario's
``expect.policies.NAME`` block applies to it — ``retries: N`` only when the turn needs no
more than N retries of one request."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.scenario.fake_api.served import transient
from harness.scenario.format.policy_names import POLICIES
from harness.wire.errors import HarnessError
from harness.wire.replies import Reply


class PolicyError(HarnessError, ValueError):
    """An agent's ``harness_policies`` that names a policy the harness does not know, or
    gives a number where none goes (or none where one does)."""


def declared_policies(agent: Any) -> dict[str, Any]:
    """The policies an agent declares (``harness_policies``), each with its number or True."""
    declared = getattr(agent, "harness_policies", None) or {}
    items: Iterable[tuple[Any, Any]] = declared.items() if isinstance(declared, Mapping) else ((n, True) for n in declared)
    return _checked(items, "harness_policies")


def policy_options(options: Iterable[str]) -> dict[str, Any]:
    """The policies named on a command line (``--policy retries=2 --policy never_raises``)."""
    items = []
    for option in options:
        name, equals, number = option.partition("=")
        try:
            items.append((name.strip(), float(number) if "." in number else int(number)) if equals else (name.strip(), True))
        except ValueError:
            raise PolicyError(f"--policy {option}: {name} takes a number after '=', got {number!r}") from None
    return _checked(items, "--policy")


def _checked(items: Iterable[tuple[Any, Any]], source: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in items:
        kind = POLICIES.get(name)
        if kind is None:
            raise PolicyError(f"{source}: no policy named {name!r}; the policies: {', '.join(POLICIES)}")
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if kind.number is not None and not (numeric and value >= 0):
            raise PolicyError(f"{source}: {name} takes a number ({kind.number}), got {value!r}")
        if kind.number is None and value is not True:
            raise PolicyError(f"{source}: {name} takes no number; name it alone, got {name}: {value!r}")
        found[name] = value
    return found


def needed_retries(replies: Iterable[Reply]) -> int:
    """The most transient failures in a row a turn's script serves before an answer:
    how many retries of one request an agent needs to get through it."""
    most = run = 0
    for reply in replies:
        run = run + 1 if transient(reply) else 0
        most = max(most, run)
    return most


def unmet_policy(name: str, policies: Mapping[str, Any], replies: Iterable[Reply]) -> str | None:
    """Why a scenario's ``policies.NAME`` block is not checked for this agent, or None."""
    if name not in policies:
        return f"the agent does not declare {name}"
    count = policies.get("retries")
    if name in ("retries", "retries_as_the_sdks_do") and count is not None and count < (needed := needed_retries(replies)):
        return f"the agent retries {count} times at most; the turn needs {needed}"
    return None


def applicable(expect: Mapping[str, Any], policies: Mapping[str, Any], replies: Iterable[Reply]) -> dict[str, Any]:
    """A turn's expectations as they apply to an agent with these policies: the plain keys,
    then those of each ``policies.NAME`` block (nested ones too) whose policies it declares."""
    replies = list(replies)
    found = {k: v for k, v in expect.items() if k != "policies"}
    for name, block in (expect.get("policies") or {}).items():
        if unmet_policy(name, policies, replies) is None:
            found.update(applicable(block, policies, replies))
    return found


def attempt_limit(settings: Mapping[str, Any], policies: Mapping[str, Any]) -> int | None:
    """The most retries of one request the run may see: the scenario's ``max_retries``
    for an agent that honours it, else the number an agent that retries declares; None
    for an agent that declares neither (how often to retry is its own business)."""
    if "honours_max_retries" in policies and "max_retries" in settings:
        return int(settings["max_retries"])
    return policies.get("retries")
