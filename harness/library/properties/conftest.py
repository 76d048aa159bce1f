"""The properties' pytest set-up: the hypothesis profiles (``profiles``), and progress
lines for the long ones (``thorough``, ``shared``): every 30 s, a line per running
property with the examples it has run (``--harness-progress SECONDS`` sets another pace,
for any profile).

A failing property writes its shrunk scenario to ``$HARNESS_FOUND_DIR`` (or
``--harness-found-dir``, default ``scenarios/found``): the failure prints the
``harness run`` line that replays it against the same agent. An agent that cannot be
loaded (a typo in ``--harness-agent``) stops the run before any property: a usage error,
not a counterexample for every property.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from harness.agents.loading import AgentSpecError, load_factory
from harness.library.properties.agent import AGENT
from harness.library.properties.profiles import LONG_PROFILES, PROGRESS_EVERY


def pytest_configure(config: pytest.Config) -> None:
    from harness.scenario.frontends.pytest_progress import PLUGIN_NAME, ExampleProgress

    if AGENT is not None:
        try:
            load_factory(AGENT)
        except AgentSpecError as error:
            raise pytest.UsageError(f"--harness-agent: {error}") from None

    if settings.get_current_profile_name() in LONG_PROFILES and not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(ExampleProgress(config, PROGRESS_EVERY), PLUGIN_NAME)
