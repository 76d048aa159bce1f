"""A writer killed with SIGKILL in the middle of ``write_atomically`` leaves its
temporary beside the file (nothing in the process can remove it). ``harness scan`` and
``harness lint`` pass it by, and the next command that writes that file removes it when
it starts, whether or not that command gets as far as writing.

The writer is a real child process: it stops inside the write (its fsync blocks on a
pipe), says so, and is killed; the test waits for each of those events, never for time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from harness.cli import main
from harness.wire.files import is_temporary, temporaries

KEY = "sk-ant-api03-" + "Qz7" * 31 + "AA"  # a secret the half-written file holds
WRITER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from harness.wire import files

    def stop_inside_the_write(fd):
        print("inside the write", flush=True)
        sys.stdin.read()  # blocks until killed

    files.os.fsync = stop_inside_the_write
    files.write_atomically(Path(sys.argv[1]), "interactions: []\\n# " + sys.argv[2] + "\\n")
""")


def killed_mid_write(path: Path) -> Path:
    """Start a writer of ``path``, kill it with SIGKILL inside the write; its temporary."""
    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(path), KEY], cwd=root, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdout.readline() == "inside the write\n"
    child.kill()
    assert child.wait(timeout=60) == -signal.SIGKILL
    (left,) = [p for p in temporaries(path.parent) if p.name.startswith(f".{path.name}.")]
    assert is_temporary(left.name) and KEY in left.read_text()
    return left


def test_a_writer_killed_mid_write_leaves_a_temporary_that_scan_and_lint_pass_by(tmp_path, capsys):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    killed_mid_write(folder / "session.yaml")
    assert main(["scan", str(folder)]) == 0
    assert main(["lint", str(folder)]) in (0, 2)  # no scenario there: nothing to lint, the temporary not read
    out = capsys.readouterr()
    assert ".tmp" not in out.out + out.err


def test_the_next_recording_of_that_cassette_sweeps_it_when_it_starts(tmp_path, capsys):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    left = killed_mid_write(folder / "session.yaml")
    other = killed_mid_write(folder / "other.yaml")
    # a recording that stops before it writes anything (its --cwd is missing) still sweeps
    code = main(["record", "--cassette", str(folder / "session.yaml"), "--base-url", "http://127.0.0.1:9",
                 "--cwd", str(tmp_path / "missing"), "--", "hello"])
    assert code != 0, capsys.readouterr()
    assert not left.exists()
    assert other.exists()  # another file's temporary is that file's writer's to sweep
    assert sorted(p.name for p in folder.iterdir()) == [other.name]


def test_a_temporary_of_a_running_writer_is_left_alone(tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    live = folder / f".report.html.{os.getpid()}.abc123.tmp"
    live.write_text("half")
    assert main(["run", str(tmp_path / "none"), "--html", str(folder / "report.html")]) != 0
    assert live.exists()
