"""A ``harness`` command and a pytest session end without Python's last walk over the
live objects: at exit the garbage is collected (finalizers run), then what is alive is
frozen. Each test watches from an exit handler registered first, so it runs last."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WATCH_THE_EXIT = (
    "import atexit, gc, sys\n"
    "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
    "class Finalized:\n"
    "    def __del__(self): print('garbage finalized')\n"
    "def make_garbage():\n"
    "    cycle = Finalized(); cycle.me = cycle  # a cycle no one reaches once this returns\n"
)


def _run_harness(*flags: str) -> subprocess.CompletedProcess[str]:
    code = WATCH_THE_EXIT + (
        "from harness.cli import main\n"
        "code = main(['lint', 'scenarios/http/retry_after_ms.yaml'])\n"
        "atexit.register(make_garbage)  # registered last: runs first, garbage just before the harness's own handler\n"
        "sys.exit(code)\n"
    )
    return subprocess.run([sys.executable, *flags, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_a_harness_command_ends_with_its_objects_frozen() -> None:
    done = _run_harness()
    assert done.returncode == 0, done.stderr
    assert "frozen at exit: True" in done.stdout


def test_the_garbage_at_exit_is_still_finalized() -> None:
    done = _run_harness()
    assert done.stdout.index("garbage finalized") < done.stdout.index("frozen at exit")


def test_development_mode_keeps_the_full_finalization() -> None:
    done = _run_harness("-X", "dev")
    assert done.returncode == 0, done.stderr
    assert "frozen at exit: False" in done.stdout


def test_a_pytest_session_ends_with_its_objects_frozen(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(WATCH_THE_EXIT)
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    assert "frozen at exit: True" in _pytest(tmp_path).stdout


WATCH_THE_UNCONFIGURE = (
    "import gc, os, pytest\n"
    "@pytest.hookimpl(trylast=True)\n"
    "def pytest_unconfigure(config):\n"
    "    name = 'worker' if hasattr(config, 'workerinput') else 'main'\n"
    "    with open(os.path.join(os.path.dirname(__file__), f'frozen-{name}.txt'), 'w') as f:\n"
    "        f.write(str(gc.get_freeze_count() > 0))\n"
)


def _pytest(tmp_path: Path, *args: str, program: tuple[str, ...] = ("-m", "pytest")) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, *program, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args, str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")})
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_a_process_that_ends_with_its_session_freezes_what_is_left_before_pytest_collects(tmp_path: Path) -> None:
    """Done with its tests, an xdist worker and pytest's own command (here the controller)
    collect once and freeze: pytest's own collections at their end then pass over little."""
    (tmp_path / "conftest.py").write_text(WATCH_THE_UNCONFIGURE)
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    _pytest(tmp_path, "-n", "1")
    assert (tmp_path / "frozen-worker.txt").read_text() == "True"
    assert (tmp_path / "frozen-main.txt").read_text() == "True"


def test_a_session_run_inside_a_program_leaves_its_process_as_it_was(tmp_path: Path) -> None:
    """``pytest.main()`` inside a program that goes on: nothing is frozen."""
    (tmp_path / "conftest.py").write_text(WATCH_THE_UNCONFIGURE)
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    program = "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))"
    _pytest(tmp_path, program=("-c", program))
    assert (tmp_path / "frozen-main.txt").read_text() == "False"


INNER_SESSION = """
import gc
import pytest


def test_an_inner_session_leaves_the_outer_one_as_it_was(tmp_path):
    (tmp_path / "test_inner.py").write_text("def test_inner():\\n    assert True\\n")
    assert pytest.main(["-q", "-p", "no:cacheprovider", str(tmp_path)]) == 0
    assert gc.get_freeze_count() == 0
"""


def test_a_session_inside_another_leaves_the_outer_process_as_it_was(tmp_path: Path) -> None:
    """A session run inside a pytest command's session (pytester's way) ends before its
    process does: only the outer one, at its own end, freezes."""
    (tmp_path / "test_outer.py").write_text(INNER_SESSION)
    assert "1 passed" in _pytest(tmp_path, "-p", "no:xdist").stdout


WATCH_THE_CONFIGURE = (
    "import gc, os, pytest\n"
    "@pytest.hookimpl(trylast=True)\n"
    "def pytest_configure(config):\n"
    "    if hasattr(config, 'workerinput'):\n"
    "        with open(os.environ['SESSIONS_LOG'], 'a') as f:\n"
    "            f.write(f'{os.getpid()} {gc.get_freeze_count()}\\n')\n"
)


def test_a_socket_server_that_runs_session_after_session_gets_back_what_the_last_froze(tmp_path: Path) -> None:
    """execnet's socket server runs each session's worker in its own long-lived process: the
    objects one session froze at its end go back to the collector when the next begins."""
    project, log = tmp_path / "project", tmp_path / "sessions.log"
    project.mkdir()
    (tmp_path / "remote").mkdir()
    (project / "conftest.py").write_text(WATCH_THE_CONFIGURE)
    (project / "test_one.py").write_text("def test_one():\n    assert True\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")} | {"SESSIONS_LOG": str(log)}
    server = subprocess.Popen([sys.executable, "-m", "execnet.script.socketserver", "127.0.0.1:0"], cwd=tmp_path,
                              stdout=subprocess.PIPE, text=True, env=env)
    try:
        port = server.stdout.readline().rstrip().rstrip(")").rsplit(" ", 1)[-1]  # type: ignore[union-attr]
        for _ in range(2):
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-d",
                                   "--tx", f"socket=127.0.0.1:{port}//chdir={tmp_path / 'remote'}", f"--rsyncdir={project}",
                                   str(project)], cwd=project, capture_output=True,
                                  text=True, timeout=120, env=env)
            assert done.returncode == 0, done.stdout + done.stderr
    finally:
        server.kill()
        server.wait()
    sessions = [line.split() for line in log.read_text().splitlines()]
    assert len(sessions) == 2 and sessions[0][0] == sessions[1][0]  # one process, two sessions
    assert sessions[1][1] == "0"  # what the first froze was given back before the second began
