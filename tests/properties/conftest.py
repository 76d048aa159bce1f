"""Hypothesis profiles for the property suite.

- ``ci`` (the default, and always when ``CI=true``): derandomized, so a run is
  reproducible; few enough examples to keep tests/properties under a minute on 2 cores.
- ``thorough``: ``HYPOTHESIS_PROFILE=thorough pytest tests/properties`` for a long search.

A failing property writes its shrunk scenario to ``$HARNESS_FOUND_DIR`` (or
``--harness-found-dir``, default ``scenarios/found``): replay it with ``harness run FILE``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=100,
    stateful_step_count=6,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    stateful_step_count=25,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") == "true" else os.environ.get("HYPOTHESIS_PROFILE", "ci"))
