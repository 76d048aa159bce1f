"""Find anything that looks like a credential in files: API keys (``sk-ant-…`` and a
few other well-known shapes), Bearer tokens, ``x-api-key`` values, and the values of
secret-bearing headers in a vcrpy cassette — also inside gzip ``!!binary`` bodies and
in strings that YAML folded over several lines.

``scan_paths(paths)`` and ``scan_text(text, name)`` return ``Finding``s with
``file:line``; ``harness scan PATHS`` prints them and exits 1 if there is any.
The same ``SECRET_PATTERNS`` drive ``harness.cassette.scrub``, so what the scrubber redacts and
what the scanner flags never drift apart.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import yaml

from harness.wire.cassette_file import inflate
from harness.wire.files import read_regular

MAX_SCAN_BYTES = 1024 * 1024 * 1024
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BINARY_TAG = "tag:yaml.org,2002:binary"
_SKIPPED_DIRS = frozenset({".git", ".hg", ".venv", "venv", "__pycache__", "node_modules", ".hypothesis"})


@dataclass(frozen=True)
class SecretPattern:
    """One shape of secret: the secret is the regex's group 1 if it has one, else the
    whole match, which must start a word. Every match contains one of ``hints``
    (lower-cased): text without any is skipped, and the regexes start with a literal, which
    ``re`` finds fast — a 200 KB request body is checked in about a millisecond."""

    label: str
    regex: re.Pattern[str]
    hints: tuple[str, ...]

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        for match in self.regex.finditer(text):
            start = match.start()
            if start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_"):
                yield match

    @property
    def group(self) -> int:
        return 1 if self.regex.groups else 0


SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern("Anthropic API key", re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"), ("sk-ant-",)),
    SecretPattern("OpenAI-style API key", re.compile(r"sk-(?!ant-)(?:proj-)?[A-Za-z0-9_\-]{20,}"), ("sk-",)),
    SecretPattern("Bearer token", re.compile(r"(?i)bearer\s+([A-Za-z0-9._~+/=\-]{8,})"), ("bearer",)),
    SecretPattern("x-api-key value", re.compile(r"(?i)x-api-key[\"']?\s*[:=]\s*[\"']?([^\s\"',}\]]{4,})"), ("x-api-key",)),
    SecretPattern("AWS access key id", re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}\b"), ("akia", "asia")),
    SecretPattern("GitHub token", re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}\b"), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    SecretPattern("Google API key", re.compile(r"AIza[0-9A-Za-z_\-]{35}\b"), ("aiza",)),
    SecretPattern("Slack token", re.compile(r"xox[abpors]-[A-Za-z0-9\-]{10,}\b"), ("xox",)),
)
_HINTS = frozenset(h for p in SECRET_PATTERNS for h in p.hints)


def patterns_for(text: str) -> list[SecretPattern]:
    """The patterns that may match ``text``: those with a hint in it (a substring search
    per hint is ~6× faster than one pass of a regex alternation of all of them)."""
    lowered = text.lower()
    found = {hint for hint in _HINTS if hint in lowered}
    return [p for p in SECRET_PATTERNS if found.intersection(p.hints)] if found else []


# Headers whose value is a credential whatever it looks like (cassettes store them as
# mapping keys). Cookies are not here: the recorder never writes them (its allowlist), but
# a cookie is not necessarily a credential (the real API sets Cloudflare's ``_cfuvid``).
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "x-auth-token"})
PLACEHOLDER = re.compile(
    r"(?i)^(?:<[^<>]*>|\[[^\[\]]*\]|\*+|x+|\.+|…|redacted|filtered|dummy|placeholder|\$\{?[A-Z_][A-Z0-9_]*\}?|)$"
)


@dataclass(frozen=True)
class Finding:
    """One thing that looks like a secret, where it is, and a masked excerpt."""

    path: str
    line: int
    kind: str
    excerpt: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.excerpt}"


def is_placeholder(value: str) -> bool:
    """Whether ``value`` is an obvious stand-in (``<redacted>``, ``***``, ``$API_KEY``)."""
    return bool(PLACEHOLDER.match(value.strip().strip("'\"")))


def find_secrets(text: str) -> Iterator[tuple[str, str, int]]:
    """``(kind, secret, offset)`` for each secret-looking string in ``text``."""
    for pattern in patterns_for(text):
        for match in pattern.finditer(text):
            secret = match.group(pattern.group)
            if not is_placeholder(secret):
                yield pattern.label, secret, match.start(pattern.group)


def mask(secret: str) -> str:
    """Enough of a secret to recognise it, not enough to use it."""
    return secret[:8] + "…" if len(secret) > 8 else secret[:2] + "…"


def scan_text(text: str, name: str = "<text>") -> list[Finding]:
    """Every finding in ``text``: line by line, then (for YAML) value by value."""
    findings: list[Finding] = []
    for number, line in enumerate(text.splitlines(), 1):
        findings += [Finding(name, number, kind, mask(secret)) for kind, secret, _ in find_secrets(line)]
    if _looks_like_yaml(name, text):
        reported = {f.line for f in findings}  # one report per line is enough
        for finding in _scan_yaml_values(text, name):
            if finding.line not in reported:
                reported.add(finding.line)
                findings.append(finding)
    return sorted(findings, key=lambda f: (f.line, f.kind))


def scan_file(path: Path) -> list[Finding]:
    """Findings in one file; binary files (with NUL bytes) are skipped. A path that is
    not a regular file raises NotReadable (an OSError), as does one over MAX_SCAN_BYTES."""
    data = read_regular(path, max_bytes=MAX_SCAN_BYTES)
    if b"\0" in data[:8192]:
        return []
    return scan_text(data.decode("utf-8", "replace"), str(path))


def files_under(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, and every file under the folders named (VCS and venv folders skipped)."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files += sorted(
                p for p in path.rglob("*") if p.is_file() and not _SKIPPED_DIRS.intersection(p.relative_to(path).parts)
            )
        elif path.exists():
            files.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
    return files


def scan_paths(paths: Iterable[str | Path]) -> list[Finding]:
    """Findings in every file under ``paths``."""
    return [finding for path in files_under(paths) for finding in scan_file(path)]


def _looks_like_yaml(name: str, text: str) -> bool:
    return name.endswith((".yaml", ".yml")) or text.startswith(("interactions:", "---"))


def _scan_yaml_values(text: str, name: str) -> Iterator[Finding]:
    """Secrets the line scan cannot see: folded strings, gzip/base64 bodies, header values."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return
    stack = [root] if root is not None else []
    seen: set[int] = set()  # an alias is the same node again: scanned once (no alias bomb)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                header = str(key.value).lower() if isinstance(key, yaml.ScalarNode) else ""
                if header in SECRET_HEADERS:
                    yield from _header_values(value, header, name)
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
        elif isinstance(node, yaml.ScalarNode):
            line = node.start_mark.line + 1
            value, where = _scalar_text(node)
            for kind, secret, _ in find_secrets(value):
                yield Finding(name, line, kind + where, mask(secret))


def _header_values(node: yaml.Node, header: str, name: str) -> Iterator[Finding]:
    values = node.value if isinstance(node, yaml.SequenceNode) else [node]
    for value in values:
        if isinstance(value, yaml.ScalarNode) and not is_placeholder(str(value.value)):
            yield Finding(name, value.start_mark.line + 1, f"{header} header value", mask(str(value.value)))


def _scalar_text(node: yaml.ScalarNode) -> tuple[str, str]:
    """A scalar's text, with ``!!binary`` decoded (and un-gzipped): the text and a note."""
    if node.tag != _BINARY_TAG:
        return str(node.value), ""
    try:
        data = base64.b64decode("".join(str(node.value).split()))
    except (binascii.Error, ValueError):
        return "", ""
    note = " (in a base64 body)"
    try:
        if data.startswith(b"\x1f\x8b"):
            data, note = inflate(data, gzip=True), " (in a gzip body)"
        elif data[:1] == b"\x78":
            data, note = inflate(data, gzip=False), " (in a deflate body)"
    except (OSError, EOFError, zlib.error):
        pass
    return data.decode("utf-8", "replace"), note
