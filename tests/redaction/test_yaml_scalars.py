"""The stdlib YAML reader gives the values PyYAML gives, whatever style PyYAML writes
them in (plain, quoted, literal, folded, flow, narrow widths, !!binary), and the line
of each character of a folded string."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.cassette.redaction.yaml_scalars import scalars

_SPECIAL = st.sampled_from("\n\t '\"#:-{}[],&*!|>%@`\\")
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")) | _SPECIAL, max_size=40)
_VALUES = st.recursive(
    _TEXT | st.binary(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT.filter(bool), inner, max_size=4),
    max_leaves=12,
)
_STYLES = st.fixed_dictionaries({
    "default_flow_style": st.sampled_from([False, True, None]),
    "width": st.sampled_from([20, 80, 1000]),
    "allow_unicode": st.booleans(),
    "default_style": st.sampled_from([None, '"', "'", "|", ">"]),
})


@settings(max_examples=100, deadline=None)
@given(_VALUES, _STYLES)
def test_every_string_pyyaml_dumps_is_read_back_whatever_the_style(value, style):
    text = yaml.dump({"root": value}, Dumper=yaml.Dumper, **style)
    composed = yaml.compose(text, Loader=yaml.SafeLoader)
    expected, stack = [], [composed]
    while stack:  # document order
        node = stack.pop(0)
        if isinstance(node, yaml.ScalarNode):
            expected.append(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack[:0] = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack[:0] = list(node.value)
    assert [s.value for s in scalars(text) if s.value] == [v for v in expected if v]


def test_a_folded_string_knows_the_line_of_each_character():
    text = "body: 'first line of a\n  long string\n\n  after a gap'\n"
    (key, value) = scalars(text)
    assert value.value == "first line of a long string\nafter a gap"
    assert [value.line_at(value.value.index(w)) for w in ("first", "long", "after")] == [1, 2, 4]


def test_a_binary_block_is_tagged_and_its_header_line_is_its_line():
    text = "string: !!binary |\n  aGVsbG8=\n  d29ybGQ=\nnext: 1\n"
    scalar = scalars(text)[1]
    assert (scalar.tag, scalar.value, scalar.line, scalar.path) == ("!!binary", "aGVsbG8=\nd29ybGQ=\n", 1, ("string",))


def test_indentless_sequences_belong_to_the_key_above():
    text = "headers:\n  Authorization:\n  - Bearer x\n  Host:\n  - a\n"
    assert [(s.value, s.path) for s in scalars(text) if not s.is_key] == [
        ("Bearer x", ("headers", "Authorization")), ("a", ("headers", "Host"))]
