"""What the redactor and the scanner take besides the shipped rules: a user's rules file
(literals, patterns, allowed strings), the values of credential-named environment
variables, and the key; a rules file that cannot be read names its file and line."""

from __future__ import annotations

import json
import re

import pytest

from harness.cassette.redaction.config import (
    KEY_VARIABLE,
    RULES_VARIABLE,
    RulesFileError,
    configured,
    redaction_key,
)
from harness.cassette.redaction.redact import Redactor
from harness.cassette.scan import scan_text
from redaction.fakes import unknown_token
from redaction.places import ENCODINGS, stream

LITERAL = "plain" + "words" + "-of-a-password"  # no shape any rule knows
INTERNAL = "itk_" + "Q7" * 12  # a company's own token shape


def rules_file(tmp_path, text: str) -> dict[str, str]:
    path = tmp_path / "redact.rules"
    path.write_text(text)
    return {RULES_VARIABLE: str(path)}


def test_literals_and_patterns_from_the_rules_file_are_redacted_and_scanned_for(tmp_path):
    environ = rules_file(tmp_path, f"# ours\nliteral: {LITERAL}\npattern internal-token: itk_[A-Za-z0-9]{{24}}\n")
    settings = configured(environ)
    body = {"messages": [{"role": "user", "content": f"password {LITERAL}, token {INTERNAL}"}]}
    for encoding, dumps in ENCODINGS.items():
        out = json.loads(settings.redactor.redact_body(dumps(body).encode()))["messages"][0]["content"]
        assert re.fullmatch(r"password <redacted:literal:\w{8}>, token <redacted:internal-token:\w{8}>", out), encoding
    split = settings.redactor.redact_body(stream("text", f"it is {LITERAL}.", 12)).decode()
    assert LITERAL[2:-2] not in "".join(re.findall(r'"text":"([^"]*)"', split))
    found = scan_text(f"a = {LITERAL}\nb = {INTERNAL}\n", "notes.txt", settings=settings)
    assert [(f.line, f.kind) for f in found] == [(1, "literal"), (2, "internal-token")]
    assert LITERAL not in str(found) and INTERNAL[4:] not in str(found)


def test_a_pattern_with_a_secret_group_redacts_only_that_group(tmp_path):
    settings = configured(rules_file(tmp_path, "pattern: employee=(?P<secret>\\d{6})\n"))
    assert re.fullmatch(r"employee=<redacted:pattern:\w{8}>", settings.redactor.redact_text("employee=123456"))


def test_an_allow_rule_keeps_a_known_false_positive_out_of_the_report_and_out_of_redaction(tmp_path):
    unknown = unknown_token()
    settings = configured(rules_file(tmp_path, f"allow: {unknown[:6]}\\w+\n"))
    assert [f.kind for f in scan_text(f"id: {unknown}\n", "notes.txt")] == ["high-entropy-string"]
    assert scan_text(f"id: {unknown}\n", "notes.txt", settings=settings) == []
    body = f"note {unknown} and more".encode()
    assert unknown not in Redactor(key=b"k").redact_body(body).decode()  # without the rule: redacted
    assert settings.redactor.redact_body(body) == body  # with it: the one judge says no secret


@pytest.mark.parametrize("line, problem", [
    ("secret: x1234", "not a rule; write literal: VALUE, pattern LABEL: REGEX or allow: REGEX"),
    ("literal: abc", "a literal needs 4 characters or more"),
    ("pattern: (unclosed", "not a regular expression"),
    ("pattern: a*", "matches the empty string"),
    ("pattern bad/label: x+", "label 'bad/label'"),
    ("allow:", "allow with nothing after the colon"),
    ("literal x: abcdef", "not a rule"),
])
def test_a_rules_file_that_cannot_be_read_names_the_file_and_the_line_not_the_value(tmp_path, line, problem):
    environ = rules_file(tmp_path, f"# first\n{line}\n")
    with pytest.raises(RulesFileError) as error:
        configured(environ)
    assert str(error.value).startswith(f"{tmp_path / 'redact.rules'}:2: ") and problem in str(error.value)
    assert "x1234" not in str(error.value) and "abcdef" not in str(error.value)


def test_a_missing_rules_file_is_an_error_naming_the_variable(tmp_path):
    with pytest.raises(RulesFileError, match=rf"nothing.rules \(\${RULES_VARIABLE}\): cannot be read"):
        configured({RULES_VARIABLE: str(tmp_path / "nothing.rules")})


def test_credential_named_environment_values_are_redacted_verbatim_and_others_are_not():
    value = "s3rvice-" + "Passphrase-42"
    weak = "hunter" + "2-but-longer"
    environ = {"MY_SERVICE_TOKEN": value, "DB_PASSWORD": weak, "HOME": "/root",
               "MAX_TOKENS": "8192", "GOOGLE_APPLICATION_CREDENTIALS": "/path/key.json", "EDITOR": "vim-tiny-x"}
    redactor = configured(environ).redactor
    text = f"{value} /root 8192 /path/key.json vim-tiny-x {weak}"
    assert re.fullmatch(
        r"<redacted:env-MY_SERVICE_TOKEN:\w{8}> /root 8192 /path/key.json vim-tiny-x <redacted:env-DB_PASSWORD:\w{8}>",
        redactor.redact_text(text),
    )


def test_the_key_is_the_variable_if_set_else_one_per_process():
    assert redaction_key({KEY_VARIABLE: "shared-in-ci"}) == b"shared-in-ci"
    assert redaction_key({}) == redaction_key({}) and len(redaction_key({})) == 32
    shared = configured({KEY_VARIABLE: "shared-in-ci"}).redactor.redact_text("DB_PASSWORD=Xy7-" + "abcdefgh")
    assert shared == configured({KEY_VARIABLE: "shared-in-ci"}).redactor.redact_text("DB_PASSWORD=Xy7-" + "abcdefgh")
    assert shared.startswith("DB_PASSWORD=<redacted:generic-secret:")
    assert configured({KEY_VARIABLE: "shared-in-ci"}) is configured({KEY_VARIABLE: "shared-in-ci"})


@pytest.mark.parametrize("command", [
    ["scan", "."],
    ["replay", "empty.yaml", "--", "hi"],
    ["record", "--cassette", "x.yaml", "--base-url", "http://127.0.0.1:9", "--", "hi"],
])
def test_every_command_reads_the_rules_file_and_exits_2_naming_its_line(tmp_path, monkeypatch, capsys, command):
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.yaml").write_text("interactions: []\nversion: 1\n")
    for name, value in rules_file(tmp_path, "literal: fine-value\nnonsense here\n").items():
        monkeypatch.setenv(name, value)
    assert main(command) == 2
    assert f"{tmp_path / 'redact.rules'}:2: not a rule" in capsys.readouterr().err
    assert not (tmp_path / "x.yaml").exists()
