"""pytest beyond one process: the items' recorded durations, pytest-xdist handing the slow
ones out first, ``--harness-shard K/N``, the SDK imported by the workers only, and remote
workers over execnet's socket server on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

XDIST = ("-p", "xdist", "-p", "no:cacheprovider", "-p", "no:randomly")
TESTS = "\n".join(f"def test_{name}():\n    pass\n" for name in "abcdef")
ORDER_SPY = """
import json
import os

def name(config):  # not $PYTEST_XDIST_WORKER: a run under an xdist worker inherits it
    return getattr(config, "workerinput", {}).get("workerid", "main")

def pytest_collection_finish(session):
    with open(f"order-{name(session.config)}.json", "w") as out:
        json.dump([item.nodeid for item in session.items], out)

def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        with open("chunk.json", "w") as out:
            json.dump(session.config.getoption("maxschedchunk", None), out)

def pytest_sessionfinish(session):
    import sys
    with open(f"sdk-{name(session.config)}", "w") as out:
        out.write(str("anthropic" in sys.modules))
"""
SAYS_HELLO = """\
name: says-hello-{n}
about: One question, one answer.
turns:
  - user: hi
    replies:
      - text: Hello.
"""


HELLO = "scenarios/hello_0.yaml::says-hello-0"


def ids(*names: str) -> list[str]:
    return [f"test_items.py::test_{name}" for name in names]


@pytest.fixture
def items(pytester: pytest.Pytester) -> pytest.Pytester:
    """Six tests, and a conftest that writes the order each process collected them in
    and whether it imported the SDK."""
    pytester.makepyfile(test_items=TESTS, conftest=ORDER_SPY)
    return pytester


def durations(pytester: pytest.Pytester, seconds: dict[str, float]) -> str:
    (pytester.path / "durations.json").write_text(json.dumps({"durations": seconds}))
    return f"--harness-durations={pytester.path / 'durations.json'}"


def test_workers_take_the_slow_items_first_one_at_a_time_and_the_run_records_them_all(items: pytest.Pytester) -> None:
    items.makefile(".yaml", **{"scenarios/hello_0": SAYS_HELLO.format(n=0)})  # a scenario: the workers need the SDK
    fast = dict.fromkeys([HELLO, *ids("a", "b", "d", "f")], 0.01)
    known = durations(items, {ids("e")[0]: 5.0, ids("c")[0]: 3.0} | fast)
    items.runpytest_subprocess(*XDIST, "-n", "2", known).assert_outcomes(passed=7)
    for worker in ("gw0", "gw1"):
        assert json.loads((items.path / f"order-{worker}.json").read_text()) == [*ids("e", "c"), HELLO, *ids("a", "b", "d", "f")]
    assert json.loads((items.path / "chunk.json").read_text()) == 1
    recorded = json.loads((items.path / "durations.json").read_text())["durations"]
    assert set(recorded) == {HELLO, *ids(*"abcdef")} and recorded[ids("e")[0]] < 5.0  # this run's times replaced the old
    seen = {path.name: path.read_text() for path in items.path.glob("sdk-*")}  # the SDK: each worker's, never the controller's
    assert seen == {"sdk-main": "False", "sdk-gw0": "True", "sdk-gw1": "True"}


def test_without_durations_the_order_and_chunks_are_xdist_s_own_and_the_cache_learns_them(items: pytest.Pytester) -> None:
    items.runpytest_subprocess(*XDIST, "-n", "2").assert_outcomes(passed=6)
    assert json.loads((items.path / "order-gw0.json").read_text()) == ids(*"abcdef")
    assert json.loads((items.path / "chunk.json").read_text()) is None
    recorded = json.loads((items.path / ".harness_cache" / "durations.json").read_text())["durations"]
    assert set(recorded) == set(ids(*"abcdef"))


def test_one_process_keeps_the_collection_order(items: pytest.Pytester) -> None:
    known = durations(items, {ids("e")[0]: 5.0})
    items.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", known).assert_outcomes(passed=6)
    assert json.loads((items.path / "order-main.json").read_text()) == ids(*"abcdef")


def test_the_shards_of_a_pytest_run_hold_every_item_once(items: pytest.Pytester) -> None:
    known = durations(items, {ids("e")[0]: 5.0, ids("c")[0]: 3.0} | dict.fromkeys(ids("a", "b", "d", "f"), 0.01))
    kept = []
    for shard in ("1/3", "2/3", "3/3"):
        result = items.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "--harness-shard", shard, known, "-rA")
        kept.append({line.split()[1] for line in result.outlines if line.startswith("PASSED ")})
    assert kept[0] == {ids("e")[0]} and kept[1] == {ids("c")[0]}  # each long one alone, the rest dealt after them
    assert sorted(n for shard in kept for n in shard) == ids(*"abcdef")
    assert json.loads((items.path / "durations.json").read_text())["durations"][ids("e")[0]] == 5.0  # a shard records nothing


def test_a_bad_shard_is_a_usage_error(items: pytest.Pytester) -> None:
    result = items.runpytest_subprocess("-p", "no:xdist", "--harness-shard", "4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*expected K/N*"])


def test_remote_workers_on_loopback_run_the_scenarios_as_one_process_does(pytester: pytest.Pytester, tmp_path: Path) -> None:
    project = pytester.path
    pytester.makefile(".yaml", **{f"scenarios/hello_{n}": SAYS_HELLO.format(n=n) for n in range(4)})
    servers: list[subprocess.Popen[str]] = []
    specs: list[str] = []
    try:
        for name in ("machine1", "machine2"):  # two socket servers, each in a folder of its own
            (tmp_path / name).mkdir()
            server = subprocess.Popen([sys.executable, "-m", "execnet.script.socketserver", "127.0.0.1:0"],
                                      cwd=tmp_path / name, stdout=subprocess.PIPE, text=True)
            servers.append(server)
            port = server.stdout.readline().rstrip().rstrip(")").rsplit(" ", 1)[-1]  # type: ignore[union-attr]
            specs += ["--tx", f"socket=127.0.0.1:{port}//chdir={tmp_path / name}"]
        result = pytester.runpytest_subprocess(*XDIST, "-d", *specs, f"--rsyncdir={project}", str(project / "scenarios"), "-v")
    finally:
        for server in servers:
            server.kill()
            server.wait()
    result.assert_outcomes(passed=4)
    ran_on = {line.split()[0] for line in result.outlines if "PASSED" in line and line.startswith("[gw")}
    assert ran_on == {"[gw0]", "[gw1]"}
    for name in ("machine1", "machine2"):  # each worker ran from the copy sent to its own folder
        assert (tmp_path / name / project.name / "scenarios" / "hello_0.yaml").exists()


LATE_WORKER = """
import os
from pathlib import Path

from word import say, wait_for


def pytest_collection_modifyitems(config, items):
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker == "gw0":  # finishes collecting only once the late worker waits for an item
        wait_for("late-worker-waits")
    if worker != "gw1":
        return
    seen = wait_for("an-item-ran", then=lambda: say("late-worker-waits"))
    Path("late-worker-saw-an-item").write_text(str(seen))
    if os.environ.get("LATE_WORKER_DIFFERS"):
        del items[-1]
"""
WORD = """
import os
import select
from pathlib import Path


def say(name):
    Path(name).write_text("yes")
    try:
        fifo = os.open(f"{name}.fifo", os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # nobody waits
        return
    os.write(fifo, b"!")
    os.close(fifo)


def wait_for(name, then=lambda: None):
    \"\"\"True once another process said ``name`` (30 s at most, only if it never does).\"\"\"
    fifo = os.open(f"{name}.fifo", os.O_RDWR | os.O_NONBLOCK)  # listening from here on: no word is lost
    then()
    return Path(name).exists() or bool(select.select([fifo], [], [], 30)[0])
"""


@pytest.fixture
def late_worker(pytester: pytest.Pytester) -> pytest.Pytester:
    """Six tests each saying it ran, and a conftest that holds worker gw1's collection until
    one has (30 s at most) and gw0's until gw1 waits: only a run that starts before the
    last collection is in gets past it at once."""
    pytester.makepyfile(conftest=LATE_WORKER, word=WORD, test_items="from word import say\n" + "\n".join(
        f"def test_{n}():\n    say('an-item-ran')\n" for n in "abcdef"))
    for word in ("an-item-ran", "late-worker-waits"):
        os.mkfifo(pytester.path / f"{word}.fifo")
    return pytester


def test_a_worker_starts_on_the_items_as_soon_as_its_own_collection_is_in(late_worker: pytest.Pytester) -> None:
    known = durations(late_worker, {ids("e")[0]: 5.0} | dict.fromkeys(ids(*"abcdf"), 0.01))
    late_worker.runpytest_subprocess(*XDIST, "-n", "2", known).assert_outcomes(passed=6)
    assert (late_worker.path / "late-worker-saw-an-item").read_text() == "True"


def test_a_late_worker_whose_collection_differs_gets_no_item_and_is_reported(late_worker: pytest.Pytester,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LATE_WORKER_DIFFERS", "1")
    known = durations(late_worker, {ids("e")[0]: 5.0} | dict.fromkeys(ids(*"abcdf"), 0.01))
    result = late_worker.runpytest_subprocess(*XDIST, "-n", "2", known, "-v")
    result.assert_outcomes(passed=6, errors=1)
    result.stdout.fnmatch_lines(["*Different tests were collected between gw0 and gw1*"])
    assert not [line for line in result.outlines if "PASSED" in line and line.startswith("[gw1]")]
