"""No false alarms on real recordings: the shipped and conformance cassettes and the
scenario files hold real thinking signatures, base64 images, request ids, msg_/toolu_
ids and Cloudflare cookies; the scanner reports none of them, the redactor changes no
byte of any body, and the YAML reader reads them exactly as PyYAML does."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conformance_paths import CONFORMANCE

from harness.cassette.redaction.yaml_scalars import scalars
from harness.cassette.scan import scan_paths

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
ROOT = Path(__file__).resolve().parents[2]
REAL_CASSETTES = sorted(
    str(p) for p in [*CONFORMANCE.glob("*.yaml"), *(ROOT / "cassettes").rglob("*.yaml"), *(ROOT / "scenarios").rglob("*.yaml")]
)


def test_there_are_real_cassettes_to_check():
    assert len(REAL_CASSETTES) > 50


def test_the_scanner_reports_nothing_in_real_cassettes_and_scenarios():
    findings = scan_paths(REAL_CASSETTES)
    assert findings == [], "\n".join(map(str, findings))


def _bodies(path: str) -> list[bytes]:
    data = yaml.load(open(path, encoding="utf-8"), Loader=LOADER)
    bodies = []
    for interaction in (data or {}).get("interactions", []) if isinstance(data, dict) else []:
        request, response = interaction.get("request", {}), interaction.get("response", {})
        for body in (request.get("body"), (response.get("body") or {}).get("string")):
            if body:
                bodies.append(body if isinstance(body, bytes) else body.encode("utf-8"))
    return bodies


def test_the_redactor_changes_no_byte_of_a_real_body(redactor):
    bodies = [body for path in REAL_CASSETTES for body in _bodies(path)]
    assert len(bodies) > 40  # 46 in the shipped copies, more with the full conformance set beside the project
    changed = [n for n, body in enumerate(bodies) if redactor.redact_body(body) != body]
    assert changed == []


def _pyyaml_scalars(text: str) -> list[tuple[str, int]]:
    found, seen = [], set()

    def walk(node: yaml.Node) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.value:
                found.append((node.value, node.start_mark.line + 1))
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                walk(key), walk(value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item)

    for document in yaml.compose_all(text, Loader=LOADER):
        if document is not None:
            walk(document)
    return found


@pytest.mark.parametrize("path", REAL_CASSETTES, ids=lambda p: p.split("/")[-1])
def test_the_yaml_reader_reads_every_real_file_as_pyyaml_does(path):
    text = open(path, encoding="utf-8").read()
    assert [(s.value, s.line) for s in scalars(text) if s.value] == _pyyaml_scalars(text)
