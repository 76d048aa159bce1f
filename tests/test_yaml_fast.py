"""libyaml reads scenario files when PyYAML has it: the same values, the same positions
and the same errors as the pure-Python loader, only faster."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.scenario.format import yaml_positions
from harness.scenario.format.yaml_positions import YamlError, loads_located

ROOT = Path(__file__).resolve().parent.parent
TRICKY = [
    "日本語: été\nnext: {a: 1, b: [x, y]}\n",
    "base: &b {retries: 2, model: m}\nturn:\n  <<: *b\n  user: hi\n",
    "- &one first\n- *one\n- |\n  two lines\n  of text\n- >-\n  folded\n  text\n",
    "# only a comment\n",
    "just a scalar\n",
    "a:\n  - b: 1\n    c: [1, 2, {d: e}]\n  -   - deep\n      - er\n",
    "key: 'quoted: colon'\nother: \"esc\\u00e9\\n\"\n\nlast: ~\n",
    "\ufeffbom: first\n",
    "tab:\tafter\n",
    "?\n",
    "key:\nother: [a, , b]\n",
]
BROKEN = [
    "a: [1, 2\n",
    "a: 1\na: 2\n",
    "? [x]\n: unhashable\n",
    "x: \x07\n",
    "[" * 100_000,
    "a: &a [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("bcdefgh", "cdefghi")
    ),
    "a: &a [*a]\n",
    "key: value\n  bad indent: here\n",
    "|#\n",
    "!!seq a\n",
    "x: !!map [1]\n",
    "a: >#\n",
]


def both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    """What the fast loader and the pure-Python loader make of ``text``: a value with its
    positions, or the error message."""
    results = []
    for fast in (True, False):
        monkeypatch.setattr(yaml_positions, "_FAST", fast)
        try:
            results.append(("value", _with_positions(loads_located(text, "f.yaml"))))
        except YamlError as error:
            results.append(("error", str(error)))
    return results[0], results[1]


def _with_positions(value: object) -> object:
    if isinstance(value, dict):
        return ("map", value.pos, [(k, value.key_pos[k], value.value_pos[k], _with_positions(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", value.pos, value.item_pos, [_with_positions(v) for v in value])
    return (type(value).__name__, value)


def test_libyaml_is_there_to_be_used() -> None:
    assert yaml_positions._FAST  # PyYAML's wheels carry libyaml; without it the pure-Python loader reads alone


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").rglob("*.yaml")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_library_file_reads_the_same_to_the_column(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, pure = both(path.read_text(encoding="utf-8"), monkeypatch)
    assert fast == pure and fast[0] == "value"


def test_the_library_is_read_by_libyaml_not_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the pure-Python loader was asked")

    monkeypatch.setattr(yaml_positions.yaml, "load", refuse)
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        assert isinstance(loads_located(path.read_text(encoding="utf-8"), str(path)), dict)


@pytest.mark.parametrize("text", TRICKY)
def test_unicode_anchors_merges_block_scalars_and_a_bom_read_the_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, pure = both(text, monkeypatch)
    assert fast == pure


@pytest.mark.parametrize("text", BROKEN, ids=range(len(BROKEN)))
def test_broken_files_get_the_pure_python_loaders_message(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, pure = both(text, monkeypatch)
    assert fast == pure and fast[0] == "error" and fast[1].startswith("f.yaml:")


@given(st.lists(st.sampled_from(list("ab:-[]{},&*!|>'\"#?\n\t é") + ["  ", "\n  ", "<<: *a", "&a ", "a: "]), max_size=30).map("".join))
def test_any_text_reads_the_same_or_fails_the_same(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, pure = both(text, monkeypatch)
    assert fast == pure


def test_a_collection_tag_on_the_wrong_kind_of_node_is_an_error_not_a_traceback() -> None:
    with pytest.raises(YamlError, match=r"^f.yaml:1:4: not valid YAML: the tag !!map needs a mapping here, not a sequence"):
        loads_located("x: !!map [1]\n", "f.yaml")
