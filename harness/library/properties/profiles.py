"""Hypothesis profiles for the properties, registered on import and loaded unless the run
already chose one (hypothesis' ``--hypothesis-profile NAME``, which may name these: the
harness's pytest plugin registers them before hypothesis reads the option), then from
``$HYPOTHESIS_PROFILE`` (``ci`` by default):

- ``ci``: derandomized, so a run is reproducible (hypothesis's own ``ci`` profile, which
  it loads by itself on a CI machine, gives way to these); few enough examples to keep the
  properties under a minute on 2 cores.
- ``quick``: derandomized and small, for a second agent in the same CI run.
- ``thorough``: ``HYPOTHESIS_PROFILE=thorough`` for a long search.
- ``shared``: random like ``thorough`` but shorter, for many machines searching at once.

The random profiles (``thorough``, ``shared``) read their example database from
configuration (``database``): ``.hypothesis/examples`` by default, and beside it the one
``HYPOTHESIS_SHARED_DB`` names (a folder every CI machine mounts, ``redis://host:port``, or
CI's GitHub artifact), so a counterexample found on one machine is replayed first on all
of them. The derandomized ones keep none: hypothesis allows no database with
``derandomize``, and they draw the same examples every time anyway.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from hypothesis import HealthCheck, settings
from hypothesis.errors import InvalidArgument

from harness.library.properties import PROFILE_NAMES
from harness.library.properties.database import DatabaseConfigError, example_database

LONG_PROFILES = ("thorough", "shared")


def register() -> None:
    """Register the four profiles (loading none)."""
    try:
        database = example_database(os.environ)
    except DatabaseConfigError as error:  # the environment names a database that cannot be used: say so, once
        from pytest import UsageError

        raise UsageError(str(error)) from None
    # hypothesis's own defaults as the parent: on a CI machine it loads its `ci` profile
    # (derandomized, no database) by itself, and a profile registered then inherits from it
    common: dict = dict(parent=settings.get_profile("default"), deadline=None, print_blob=True,
                        suppress_health_check=[HealthCheck.too_slow])
    random = dict(common, derandomize=False, **({"database": database} if database is not None else {}))
    settings.register_profile("ci", derandomize=True, max_examples=100, stateful_step_count=6, **common)
    settings.register_profile("quick", derandomize=True, max_examples=20, stateful_step_count=4, **common)
    settings.register_profile("thorough", max_examples=1000, stateful_step_count=25, **random)
    settings.register_profile("shared", max_examples=300, stateful_step_count=12, **random)


def chosen_profile(environ: Mapping[str, str]) -> str:
    """``$HYPOTHESIS_PROFILE``, or ``ci``; pytest's UsageError naming the profiles there
    are when hypothesis knows no profile of that name (a typo: ``sharde``)."""
    name = environ.get("HYPOTHESIS_PROFILE") or "ci"
    try:
        settings.get_profile(name)
    except InvalidArgument:
        from pytest import UsageError

        raise UsageError(f"HYPOTHESIS_PROFILE={name!r}: no hypothesis profile of that name; the harness registers "
                         f"{', '.join(PROFILE_NAMES)}") from None
    return name


_AUTOMATIC = settings.get_current_profile_name() == "default" or (  # not chosen: hypothesis's default, or the
    settings.get_current_profile_name() == "ci" and settings.default is settings.get_profile("ci"))  # ci it loads on CI
register()
if _AUTOMATIC:  # no --hypothesis-profile: the environment's, or ci
    settings.load_profile(chosen_profile(os.environ))
PROGRESS_EVERY = 30.0
