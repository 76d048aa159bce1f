"""harness.wire.plain_yaml gives what ``yaml.load`` with the safe loader gives, on every kind of
document: cassettes and scenarios of this repository, generated data, and the YAML the
shortcut leaves to PyYAML (aliases, merge keys, tagged collections, unhashable keys)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness.wire import plain_yaml

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "cassettes").rglob("*.yaml")) + sorted((ROOT / "scenarios").rglob("*.yaml"))


def safe_load(text: str) -> object:
    return yaml.load(text, Loader=plain_yaml.LOADER)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_every_yaml_file_here_loads_as_yaml_load_loads_it(path):
    text = path.read_text(encoding="utf-8")
    assert plain_yaml.load(text) == safe_load(text)


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary(max_size=20)
data = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | st.integers(), inner, max_size=4),
    max_leaves=15,
)


@given(data)
def test_dumped_data_loads_back_as_yaml_load_loads_it(value):
    text = yaml.safe_dump(value, allow_unicode=True)
    assert plain_yaml.load(text) == safe_load(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {k: 1}\nb: *x\n",  # an alias
        "base: &b {x: 1}\nmore:\n  <<: *b\n  y: 2\n",  # a merge key
        "s: !!set {a, b}\n",  # a tagged collection
        "o: !!omap [{a: 1}, {b: 2}]\n",
        "t: 2001-12-14t21:59:43.10-05:00\nn: ~\nb: yes\nf: 1.5e3\no: 0o17\nbin: !!binary aGk=\n",
        "'quoted': \"text\"\nplain: text\nnum: '12'\n",
        "",
        "- just\n- a\n- list\n",
    ],
)
def test_what_the_shortcut_leaves_to_pyyaml_loads_the_same(text):
    assert plain_yaml.load(text) == safe_load(text)


@pytest.mark.parametrize(
    "text",
    ["? [a, b]\n: 1\n", "a: !!python/object:os.system {}\n", "a: [1, 2\n", "--- 1\n--- 2\n"],
)
def test_what_yaml_load_refuses_is_refused_the_same_way(text):
    with pytest.raises(yaml.YAMLError) as expected:
        safe_load(text)
    with pytest.raises(type(expected.value)) as got:
        plain_yaml.load(text)
    assert str(got.value) == str(expected.value)


def test_no_collection_runs_while_a_document_loads_and_collection_resumes_after():
    text = yaml.safe_dump([{"request": {"n": n, "tags": ["a", "b"]}, "response": {"body": "x" * 10}} for n in range(3000)])
    generations: list[int] = []

    def record(phase: str, info: dict) -> None:
        generations.append(info["generation"])

    gc.callbacks.append(record)
    try:
        loaded = plain_yaml.load(text)
    finally:
        gc.callbacks.remove(record)
    assert len(loaded) == 3000
    assert len(generations) <= 2  # one collection at most (start, stop): once collection resumes
    assert gc.isenabled()


def test_a_load_leaves_collection_off_when_it_was_off():
    gc.disable()
    try:
        plain_yaml.load("a: [1, 2]\n")
        assert not gc.isenabled()
    finally:
        gc.enable()
