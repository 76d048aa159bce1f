"""YAML syntax errors read like schema errors: ``path:line:col: not valid YAML: <a
sentence>``, in scenario files and in cassettes, from lint and from run, never a
traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.scenario.format.loader import problems_in
from harness.wire.cassette_file import CassetteError, load_cassette

MISTAKES = [  # (text, where (the C parser may stop one column earlier: "a|b"), the sentence)
    ("name: a\nabout: this: breaks\nturns: []\n", "2:12", "a ': ' where YAML cannot start a key; put quotes around a value"),
    ("name: a\n\tabout: x\n", "2:1", "a tab character; YAML indents with spaces only"),
    ('name: "abc\nabout: x\n', "3:1", "the quote opened on line 1, column 7 is never closed"),
    ("turns:\n  - user: a\n   replies: []\n", "3:4", "this line is indented differently from the block that began on line 2, column 3"),
    ("settings: {max_retries: 5\nturns: []\n", "2:6", "the '{' opened on line 1, column 11 is not closed before this point"),
    ("name: a\n- b\n", "2:1", "a list item ('-') where the mapping that began on line 1, column 1 expects a key"),
    ("name: a\nabout\nturns: []\n", "3:1", "line 2 is neither a key with a ':' nor part of a value"),
    ("a: *nope\n", "1:4", "an alias (*name) with no anchor (&name) defined before it"),
    ('name: "a\\q"\n', "1:10|1:9", "a backslash escape YAML does not know inside double quotes"),
    ("name: `x`\n", "1:7", "a plain value cannot start with '`'; put the value in quotes"),
    ("a: 1\n---\nb: 2\n", "2:1", "a second document ('---'); the file must hold exactly one"),
    ("name: a\x07\n", "1:8", "a control character (U+0007) that YAML does not allow in a file"),
]
IDS = ["colon", "tab", "quote", "indent", "brace", "dash", "no-colon", "alias", "escape", "backtick", "documents", "control"]


@pytest.mark.parametrize(("text", "where", "sentence"), MISTAKES, ids=IDS)
def test_a_scenario_with_a_yaml_mistake_names_the_place_and_says_what_is_wrong(tmp_path, text, where, sentence):
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    [problem] = problems_in(path)
    assert str(problem).startswith(f"{path}:{where.split('|')[0]}: not valid YAML: {sentence}")
    assert f"{problem.line}:{problem.col}" == where.split("|")[0] and problem.file == str(path)


@pytest.mark.parametrize(("text", "where", "sentence"), MISTAKES, ids=IDS)
def test_a_cassette_with_a_yaml_mistake_names_the_place_and_says_what_is_wrong(tmp_path, text, where, sentence):
    path = tmp_path / "broken_cassette.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        load_cassette(path)
    assert any(str(caught.value).startswith(f"{path}:{at}: not valid YAML: {sentence}") for at in where.split("|"))


def test_the_parser_s_own_words_follow_the_sentence(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: a\nabout: this: breaks\n", encoding="utf-8")
    assert problems_in(path)[0].text.endswith("(the parser says: mapping values are not allowed here)")


@pytest.mark.parametrize("command", ["lint", "run"])
def test_lint_and_run_print_the_sentence_and_no_traceback(tmp_path, capsys, command):
    path = tmp_path / "scenarios" / "broken.yaml"
    path.parent.mkdir()
    path.write_text("name: a\x07\nabout: b\n", encoding="utf-8")
    assert main([command, str(path)]) in (1, 2)
    captured = capsys.readouterr()
    assert f"{path}:1:8: not valid YAML: a control character (U+0007)" in captured.out + captured.err
    assert "Traceback" not in captured.out + captured.err


def test_a_scenario_naming_a_broken_cassette_reports_the_cassette_s_line(tmp_path):
    (tmp_path / "base.yaml").write_text("interactions:\n  - request: {a: 1\n", encoding="utf-8")
    scenario = tmp_path / "overlay.yaml"
    scenario.write_text(
        "name: o\nabout: b\ncassette: base.yaml\nturns:\n  - user: hi\n    replies:\n      - recorded: 1\n", encoding="utf-8"
    )
    [problem] = problems_in(scenario)
    assert str(problem).startswith(f"{scenario}:3:11: cannot use the cassette: {Path(tmp_path / 'base.yaml')}:3:1: not valid YAML: ")
    assert "the '{' opened on line 2, column 14 is not closed" in problem.text
