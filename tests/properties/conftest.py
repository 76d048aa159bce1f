"""mini_agent's own properties (its tool validation, its output truncation) and the
harness's counterexample files, under the same hypothesis profiles as the shipped,
agent-neutral properties (``harness.library.properties``)."""

from __future__ import annotations

import harness.library.properties.profiles  # noqa: F401 -- registers and loads the profiles
