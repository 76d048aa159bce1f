"""The HTML report in a real browser: headless Chromium opens the file offline and takes
a screenshot that is not blank. Skipped where Chromium is not installed (Debian's
``chromium`` package has it)."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib

import pytest
from report_page import FAILING

from harness.cli import main

BROWSER = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None)
WIDTH, HEIGHT = 1400, 1800
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars")


def png_size_and_colours(data: bytes) -> tuple[int, int, int]:
    """Width, height and how many byte values the decoded image rows use."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        if kind == b"IDAT":
            chunks.append(data[at + 8 : at + 8 + length])
        at += 12 + length
    return width, height, len(set(zlib.decompress(b"".join(chunks))))


@pytest.mark.skipif(BROWSER is None, reason="Chromium is not installed")
def test_headless_chromium_renders_the_report(tmp_path, capsys):
    scenario = tmp_path / "scenarios" / "failing.yaml"
    scenario.parent.mkdir()
    scenario.write_text(FAILING, encoding="utf-8")
    report = tmp_path / "report.html"
    main(["run", str(scenario), "scenarios/stream/stall.yaml", "scenarios/interrupts/ctrl_c_during_tool.yaml",
          "--html", str(report)])
    shot = tmp_path / "report.png"
    assert BROWSER is not None
    done = subprocess.run(
        [BROWSER, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={WIDTH},{HEIGHT}",
         f"--screenshot={shot}", report.as_uri()],
        capture_output=True, text=True, timeout=180,
    )
    assert shot.exists(), done.stderr[-2000:]
    width, height, colours = png_size_and_colours(shot.read_bytes())
    assert (width, height) == (WIDTH, HEIGHT)
    assert colours > 50, "the screenshot is blank"
    dom = subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", report.as_uri()],
                         capture_output=True, text=True, timeout=180).stdout
    assert dom.count('class="timeline"') == 3 and 'class="band bad"' in dom
