"""One example database for every machine: the properties' database from configuration,
and two processes sharing a counterexample through a real Redis."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    GitHubArtifactDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)
from hypothesis.extra.redis import RedisExampleDatabase

from harness.library.properties.database import DatabaseConfigError, example_database

BOUND = 12345
PROPERTY = f"""
from hypothesis import given, strategies as st

import harness.library.properties.profiles  # noqa: F401 -- the profiles, and the example database they read

@given(st.integers(min_value=0, max_value=10**9))
def test_stays_small(n):
    with open("tried.txt", "a") as out:
        out.write(f"{{n}}\\n")
    assert n < {BOUND}
"""


def parts(database: object) -> list[object]:
    assert isinstance(database, MultiplexedDatabase)
    return list(database._wrapped)


def test_without_configuration_hypothesis_keeps_its_own_local_folder() -> None:
    assert example_database({}) is None


def test_ci_writes_to_the_shared_folder_and_a_developer_only_reads_it(tmp_path: Path) -> None:
    local, shared = parts(example_database({"HYPOTHESIS_SHARED_DB": str(tmp_path), "CI": "true"}))
    assert isinstance(local, DirectoryBasedExampleDatabase) and isinstance(shared, DirectoryBasedExampleDatabase)
    _, read_only = parts(example_database({"HYPOTHESIS_SHARED_DB": str(tmp_path)}))
    assert isinstance(read_only, ReadOnlyDatabase)
    _, written = parts(example_database({"HYPOTHESIS_SHARED_DB": str(tmp_path), "HYPOTHESIS_SHARED_DB_MODE": "write"}))
    assert isinstance(written, DirectoryBasedExampleDatabase)


def test_a_redis_url_is_a_redis_database() -> None:
    _, shared = parts(example_database({"HYPOTHESIS_SHARED_DB": "redis://localhost:6379/0", "CI": "1"}))
    assert isinstance(shared, RedisExampleDatabase)


def test_ci_s_github_artifact_is_read_only_even_where_ci_writes() -> None:
    _, shared = parts(example_database({"HYPOTHESIS_SHARED_DB": "github:octo/agent/examples", "CI": "true"}))
    assert isinstance(shared, ReadOnlyDatabase) and isinstance(shared._wrapped, GitHubArtifactDatabase)
    assert (shared._wrapped.owner, shared._wrapped.repo, shared._wrapped.artifact_name) == ("octo", "agent", "examples")


@pytest.mark.parametrize(("environ", "says"), [
    ({"HYPOTHESIS_SHARED_DB": "github:octo"}, "expected github:OWNER/REPO"),
    ({"HYPOTHESIS_SHARED_DB": "/tmp/x", "HYPOTHESIS_SHARED_DB_MODE": "sometimes"}, "expected read or write"),
    ({"HYPOTHESIS_SHARED_DB": __file__}, "not a folder; name a folder every machine mounts"),
])
def test_a_database_that_cannot_be_used_says_why(environ: dict[str, str], says: str) -> None:
    with pytest.raises(DatabaseConfigError, match=says):
        example_database(environ)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A real redis-server on a Unix socket of its own, for this test only."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    socket = tmp_path / "redis.sock"
    server = subprocess.Popen(
        ["redis-server", "--port", "0", "--unixsocket", str(socket), "--unixsocketperm", "700",
         "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        for line in server.stdout:  # type: ignore[union-attr]
            if "ready to accept connections" in line.lower():
                break
        else:
            pytest.fail(f"redis-server ended before it was ready (exit code {server.wait()})")
        yield f"unix://{socket}"
    finally:
        server.terminate()
        server.wait()


def machine(folder: Path, **environ: str) -> list[int]:
    """A process standing in for a machine: the property run in a folder of its own
    (its own local database), under the ``shared`` profile; the values it tried, in order."""
    folder.mkdir()
    (folder / "test_small.py").write_text(PROPERTY)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYPOTHESIS_")} | {"HYPOTHESIS_PROFILE": "shared", **environ}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "test_small.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-2000:]  # the property fails on every machine
    return [int(line) for line in (folder / "tried.txt").read_text().split()]


def test_a_counterexample_one_machine_finds_is_the_first_another_tries(redis_url: str, tmp_path: Path) -> None:
    shared = {"HYPOTHESIS_SHARED_DB": redis_url, "HYPOTHESIS_SHARED_DB_MODE": "write"}
    first = machine(tmp_path / "machine1", **shared)
    assert first[0] != BOUND and BOUND in first  # found by searching, then shrunk to the bound
    second = machine(tmp_path / "machine2", **shared)
    assert second[0] == BOUND  # replayed from Redis before anything else
    alone = machine(tmp_path / "machine3")  # the same, with no shared database: it searches afresh
    assert alone[0] != BOUND


def test_on_a_ci_machine_the_shared_profile_still_searches_at_random_and_shares(tmp_path: Path) -> None:
    """With `CI` set, hypothesis loads its own `ci` profile (derandomized, no database) by
    itself; `HYPOTHESIS_PROFILE=shared` must still win, with its database."""
    shared = {"HYPOTHESIS_SHARED_DB": str(tmp_path / "shared"), "HYPOTHESIS_SHARED_DB_MODE": "write", "CI": "true"}
    first = machine(tmp_path / "machine1", **shared)
    assert first[0] != BOUND and BOUND in first
    assert any(path.is_file() for path in (tmp_path / "shared").rglob("*"))
    second = machine(tmp_path / "machine2", **shared)
    assert second[0] == BOUND
