"""The properties' example database, from configuration: where hypothesis keeps the
examples that failed, so that the next run (on this machine or on any other) replays
them first.

    HYPOTHESIS_SHARED_DB unset          hypothesis' own: ``.hypothesis/examples``, this machine only
    a folder                            that folder besides: a volume every machine mounts
    redis://HOST:PORT/DB, rediss://…,   Redis (``RedisExampleDatabase``; ``pip install
    unix:///PATH                        'agent-fault-harness[redis]'``): a counterexample is
                                        shared the moment it is found, with every worker and machine
    github:OWNER/REPO[/ARTIFACT]        the example database CI uploaded as a GitHub Actions
                                        artifact (``GitHubArtifactDatabase``), read only

    HYPOTHESIS_SHARED_DB_MODE           ``write``: this machine saves what it finds there too (the
                                        default where ``$CI`` is set); ``read``: it only replays what
                                        is there (``ReadOnlyDatabase``, the default elsewhere)

The local folder is always read and written; the shared one is put beside it
(``MultiplexedDatabase``), so a failure is saved to both and either is replayed. This is
hypothesis' documented pattern: CI writes, developers read what CI found without adding
what their own experiments find.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    GitHubArtifactDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

from harness.wire.errors import HarnessError

SHARED_VARIABLE = "HYPOTHESIS_SHARED_DB"
MODE_VARIABLE = "HYPOTHESIS_SHARED_DB_MODE"
LOCAL = ".hypothesis/examples"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
GITHUB_SCHEME = "github:"


class DatabaseConfigError(HarnessError, ValueError):
    """An example database the environment names that cannot be used."""


def example_database(environ: Mapping[str, str]) -> ExampleDatabase | None:
    """The example database ``environ`` configures (None: hypothesis' own default)."""
    where = environ.get(SHARED_VARIABLE, "").strip()
    if not where:
        return None
    shared = shared_database(where)
    if where.startswith(GITHUB_SCHEME) or not writes(environ):
        shared = ReadOnlyDatabase(shared)
    return MultiplexedDatabase(DirectoryBasedExampleDatabase(LOCAL), shared)


def shared_database(where: str) -> ExampleDatabase:
    """The database ``where`` names: Redis, a GitHub artifact or a folder."""
    if where.startswith(REDIS_SCHEMES):
        try:
            import redis
        except ImportError:
            raise DatabaseConfigError(f"{SHARED_VARIABLE}={where}: the redis client is not installed: "
                                      "pip install 'agent-fault-harness[redis]'") from None
        from hypothesis.extra.redis import RedisExampleDatabase

        return RedisExampleDatabase(redis.Redis.from_url(where))
    if where.startswith(GITHUB_SCHEME):
        owner, _, rest = where[len(GITHUB_SCHEME):].partition("/")
        repo, _, artifact = rest.partition("/")
        if not owner or not repo:
            raise DatabaseConfigError(f"{SHARED_VARIABLE}={where}: expected github:OWNER/REPO or github:OWNER/REPO/ARTIFACT")
        return GitHubArtifactDatabase(owner, repo, **({"artifact_name": artifact} if artifact else {}))
    if Path(where).exists() and not Path(where).is_dir():
        raise DatabaseConfigError(f"{SHARED_VARIABLE}={where}: not a folder; name a folder every machine mounts, "
                                  "redis://HOST:PORT/DB or github:OWNER/REPO")
    return DirectoryBasedExampleDatabase(where)


def writes(environ: Mapping[str, str]) -> bool:
    """Whether this machine saves to the shared database: ``$HYPOTHESIS_SHARED_DB_MODE``,
    else where ``$CI`` is set (CI writes, developers read)."""
    mode = environ.get(MODE_VARIABLE, "").strip().lower()
    if mode not in ("", "read", "write"):
        raise DatabaseConfigError(f"{MODE_VARIABLE}={mode}: expected read or write")
    if mode:
        return mode == "write"
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
