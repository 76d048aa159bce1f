"""The shipped overlay scenarios stand on cassettes shipped with the project (users do
not have ../shared), and the copied conformance cassettes are the originals, licence
included. The scenarios themselves run as collected items of scenarios/overlays/."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.scenario.format.loader import load_scenario

ROOT = Path(__file__).resolve().parents[1]
OVERLAYS = sorted((ROOT / "scenarios" / "overlays").glob("*.yaml"))
COPIES = ROOT / "cassettes" / "conformance" / "llm-anthropic"
ORIGINALS = ROOT.parent / "shared" / "conformance" / "llm-anthropic"


def test_there_are_overlays_over_loopback_and_over_real_recordings():
    cassettes = {yaml.safe_load(p.read_text())["cassette"] for p in OVERLAYS}
    assert len(OVERLAYS) >= 5
    assert any("loopback_" in c for c in cassettes) and any("conformance/" in c for c in cassettes)


@pytest.mark.parametrize("path", OVERLAYS, ids=[p.stem for p in OVERLAYS])
def test_each_overlay_loads_and_names_a_cassette_inside_the_project(path):
    load_scenario(path)
    cassette = (path.parent / yaml.safe_load(path.read_text())["cassette"]).resolve()
    assert cassette.is_relative_to((ROOT / "cassettes").resolve()) and cassette.is_file()


def test_the_conformance_copies_are_the_originals_with_their_licence():
    assert (COPIES / "LICENSE").read_text().lstrip().startswith("Apache License")
    if not ORIGINALS.is_dir():
        pytest.skip(f"no originals at {ORIGINALS} to compare with")
    for copy in COPIES.iterdir():
        assert copy.read_bytes() == (ORIGINALS / copy.name).read_bytes(), copy.name


@pytest.mark.parametrize("content_type", [10**30, [], [7]], ids=["a number", "an empty list", "a list of a number"])
def test_a_recorded_header_that_is_no_text_is_a_problem_at_the_line_not_an_internal_error(tmp_path: Path, content_type):
    """Found by the fuzzing of cassette commands: `content-type: 1000…` in a response."""
    from harness.scenario.format.loader import problems_in

    shipped = yaml.safe_load((ROOT / "cassettes" / "loopback_read_readme.yaml").read_text(encoding="utf-8"))
    shipped["interactions"][0]["response"]["headers"]["content-type"] = content_type
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(shipped), encoding="utf-8")
    overlay = tmp_path / "o.yaml"
    overlay.write_text("name: o\nabout: o\ncassette: c.yaml\nturns:\n  - user: hi\n    replies:\n      - recorded: 1\n",
                       encoding="utf-8")
    said = [str(p) for p in problems_in(overlay)]
    assert said and all("internal error" not in s for s in said), said
    assert "`recorded: 1`: the response is not a stream" in said[0] and ":7:" in said[0]
