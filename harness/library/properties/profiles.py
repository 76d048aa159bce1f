"""Hypothesis profiles for the properties, registered on import and loaded from
``$HYPOTHESIS_PROFILE`` (``ci`` by default):

- ``ci``: derandomized, so a run is reproducible; few enough examples to keep the
  properties under a minute on 2 cores.
- ``quick``: derandomized and small, for a second agent in the same CI run.
- ``thorough``: ``HYPOTHESIS_PROFILE=thorough`` for a long search.
- ``shared``: random like ``thorough`` but shorter, saving and replaying examples through
  the database named by ``HYPOTHESIS_SHARED_DB`` (a folder every CI machine mounts, or
  ``redis://host:port``) beside the local ``.hypothesis/`` folder, so a counterexample
  found on one machine is replayed first on all of them.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
)


def shared_database(where: str | None) -> ExampleDatabase:
    """The local example database, plus the shared one ``where`` names (if any)."""
    local = DirectoryBasedExampleDatabase(".hypothesis/examples")
    if not where:
        return local
    if where.startswith("redis://"):
        import redis  # an optional dependency: pip install redis
        from hypothesis.extra.redis import RedisExampleDatabase

        return MultiplexedDatabase(local, RedisExampleDatabase(redis.Redis.from_url(where)))
    return MultiplexedDatabase(local, DirectoryBasedExampleDatabase(where))


COMMON = dict(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", derandomize=True, max_examples=100, stateful_step_count=6, **COMMON)
settings.register_profile("quick", derandomize=True, max_examples=20, stateful_step_count=4, **COMMON)
settings.register_profile("thorough", max_examples=1000, stateful_step_count=25, **COMMON)
settings.register_profile(
    "shared",
    max_examples=300,
    stateful_step_count=12,
    database=shared_database(os.environ.get("HYPOTHESIS_SHARED_DB")),
    **COMMON,
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or "ci"
settings.load_profile(PROFILE)
LONG_PROFILES = ("thorough", "shared")
PROGRESS_EVERY = 30.0
