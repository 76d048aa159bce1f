"""``harness run --shard K/N --results FILE`` on N machines, and ``harness report merge``
turning their results into the table, HTML report and JUnit file of one run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.scenario.frontends.durations import (
    longest_first,
    read_durations,
    record_durations,
)
from harness.scenario.frontends.progress import Progress
from harness.scenario.frontends.shards import shard_of, shard_option, split
from harness.scenario.frontends.workers import can_fork, run_in_workers

PASSING = """\
name: {name}
about: One answer.
turns:
  - user: hi
    replies:
      - text: Hello.
    expect: {{requests: 1, end: end_turn}}
"""
FAILING = """\
name: {name}
about: Expects a second request that never comes.
turns:
  - user: hi
    replies:
      - error: overloaded
      - text: Hello.
    expect: {{requests: 3}}
"""
NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Seven scenarios, two of them failing, run from their own folder with their own cache."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for number, name in enumerate(NAMES):
        (folder / f"{name}.yaml").write_text((FAILING if number in (2, 5) else PASSING).format(name=name))
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def without_wall_times(*paths: Path) -> None:
    """The one thing two runs of the same files cannot share: how long each took."""
    for path in paths:
        data = json.loads(path.read_text())
        for record in data["records"]:
            record["wall_ms"] = 0.0
        path.write_text(json.dumps(data))


def test_files_are_dealt_longest_first_to_the_lightest_shard() -> None:
    keys = ["a", "b", "c", "d", "e"]
    durations = {"a": 1.0, "b": 0.6, "c": 0.3, "d": 0.2, "e": 0.2}
    assert split(keys, durations, 2) == [[0, 4], [1, 2, 3]]  # the module docstring's example
    assert shard_of(keys, durations, (2, 2)) == [1, 2, 3]


def test_every_file_is_in_exactly_one_shard_whatever_is_known() -> None:
    keys = [f"scenarios/{n}.yaml" for n in range(23)]
    for durations in ({}, {keys[3]: 9.0, keys[7]: 0.1}, {k: (n * 7 % 5) / 10 for n, k in enumerate(keys)}):
        for count in (1, 2, 4, 30):
            shards = split(keys, durations, count)
            assert sorted(i for shard in shards for i in shard) == list(range(len(keys)))
            assert shards == split(list(keys), dict(durations), count)  # the same on every machine


def test_without_durations_the_shards_hold_as_many_files_each() -> None:
    sizes = [len(shard) for shard in split([f"f{n}" for n in range(10)], {}, 4)]
    assert sorted(sizes) == [2, 2, 3, 3]


def test_a_file_never_recorded_weighs_the_mean_of_those_that_were() -> None:
    keys = ["slow", "new", "fast"]
    assert split(keys, {"slow": 3.0, "fast": 1.0}, 2) == [[0], [1, 2]]  # new weighs 2.0


def test_the_slow_go_first_longest_first_and_the_rest_keep_their_order() -> None:
    keys = ["a", "b", "c", "d", "e"]
    assert longest_first(keys, {"b": 0.001, "c": 2.0, "e": 5.0, "d": 0.0}) == [4, 2, 0, 1, 3]  # b: under 1 % of the whole
    assert longest_first(keys, {}) == [0, 1, 2, 3, 4]


@pytest.mark.skipif(not can_fork(), reason="this platform cannot fork workers")
def test_jobs_hand_the_files_out_in_the_order_given_and_report_them_in_theirs(tmp_path: Path) -> None:
    files = [tmp_path / f"{name}.yaml" for name in "abcd"]
    started = tmp_path / "started.txt"

    def run_one(path: Path, ctrl_c: object) -> dict:
        with started.open("a") as out:
            out.write(f"{path.stem}\n")
        return {"file": str(path), "result": "pass", "wall_ms": 1.0}

    progress = Progress(len(files))
    progress.enabled = False
    records, interrupted = run_in_workers(files, run_one, progress, 1, order=[3, 1, 0, 2])
    assert started.read_text().split() == ["d", "b", "a", "c"]
    assert [r["file"] for r in records] == [str(f) for f in files] and not interrupted


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", "1/0", ""])
def test_a_bad_shard_is_a_usage_error_saying_what_is_expected(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected K/N"):
        shard_option(text)


def test_shards_merged_give_the_reports_of_one_run(library: Path, tmp_path: Path, capsys) -> None:
    one_code, _ = run(capsys, "run", "scenarios", "--results", "one.json")
    codes = [run(capsys, "run", "scenarios", "--shard", f"{k}/3", "--results", f"shard{k}.json")[0] for k in (1, 2, 3)]
    assert one_code == 1 and codes.count(1) >= 1  # the failures are somewhere
    parts = [json.loads((tmp_path / f"shard{k}.json").read_text()) for k in (1, 2, 3)]
    assert sorted(f for part in parts for f in part["assigned"]) == sorted(f"scenarios/{n}.yaml" for n in NAMES)
    without_wall_times(tmp_path / "one.json", *(tmp_path / f"shard{k}.json" for k in (1, 2, 3)))
    alone = run(capsys, "report", "merge", "one.json", "--html", "one.html", "--junit", "one.xml")
    merged = run(capsys, "report", "merge", "shard3.json", "shard1.json", "shard2.json", "--html", "all.html", "--junit", "all.xml")
    assert merged == alone and "5 passed, 2 failed" in merged[1]
    assert (tmp_path / "all.html").read_bytes() == (tmp_path / "one.html").read_bytes()
    assert (tmp_path / "all.xml").read_bytes() == (tmp_path / "one.xml").read_bytes()
    assert "Fault coverage" in (tmp_path / "all.html").read_text()


def test_merging_one_run_s_results_gives_the_bytes_that_run_wrote(library: Path, tmp_path: Path, capsys) -> None:
    ran = run(capsys, "run", "scenarios", "--results", "r.json", "--html", "ran.html", "--junit", "ran.xml")
    merged = run(capsys, "report", "merge", "r.json", "--html", "merged.html", "--junit", "merged.xml")
    assert merged == ran
    assert (tmp_path / "merged.html").read_bytes() == (tmp_path / "ran.html").read_bytes()
    assert (tmp_path / "merged.xml").read_bytes() == (tmp_path / "ran.xml").read_bytes()


def test_a_missing_shard_is_an_error_naming_it(library: Path, capsys) -> None:
    for k in (1, 3):
        run(capsys, "run", "scenarios", "--shard", f"{k}/3", "--results", f"shard{k}.json")
    assert main(["report", "merge", "shard1.json", "shard3.json"]) == 2
    assert "shard 2/3 missing" in capsys.readouterr().err


def test_shards_balanced_by_different_durations_are_an_error_naming_the_files(library: Path, tmp_path: Path, capsys) -> None:
    run(capsys, "run", "scenarios", "--shard", "1/2", "--results", "shard1.json")
    record_durations(tmp_path / "other.json", {"scenarios/alpha.yaml": 60.0, "scenarios/bravo.yaml": 0.1})
    run(capsys, "run", "scenarios", "--shard", "2/2", "--results", "shard2.json", "--durations", "other.json")
    assert main(["report", "merge", "shard1.json", "shard2.json"]) == 2
    err = capsys.readouterr().err
    assert "split the run differently" in err and "same durations file" in err


def test_a_file_that_is_not_results_is_an_error(library: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "x.json").write_text('{"scenarios": []}')
    assert main(["report", "merge", "x.json"]) == 2
    assert "not a harness results file" in capsys.readouterr().err


def test_a_run_records_durations_and_a_shard_does_not(library: Path, tmp_path: Path, capsys) -> None:
    durations = tmp_path / "cache" / "durations.json"
    run(capsys, "run", "scenarios", "--shard", "1/2")
    assert not durations.exists()  # the next shard, on this machine, must split by what the first read
    run(capsys, "run", "scenarios")
    assert set(read_durations(durations)) == {f"scenarios/{n}.yaml" for n in NAMES}
    run(capsys, "run", "scenarios", "--shard", "1/2", "--results", "a.json")
    run(capsys, "run", "scenarios", "--shard", "2/2", "--results", "b.json")
    run(capsys, "report", "merge", "a.json", "b.json", "--durations", "next.json")
    assert set(read_durations(tmp_path / "next.json")) == {f"scenarios/{n}.yaml" for n in NAMES}
