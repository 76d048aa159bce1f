"""Find secrets in files the way the redactor reads bodies: decoded first, and judged by
the same ``Judge`` (``harness scan``, the pre-commit hook, and the check before a cassette
is written).

``scan_text(text, name)`` reads a text three ways and reports each secret once:

1. raw: the text and its JSON-unescaped view, so a key in any line is seen even where
   the structure cannot be read;
2. YAML (``*.yaml``, ``interactions:``): every scalar, folded as YAML folds it; a
   ``!!binary`` scalar base64-decoded and gunzipped; each value read as a body — JSON
   walked to its strings, SSE reassembled per content block — and checked against the
   key it is stored under (a ``x-api-key`` header is a secret whatever it looks like);
   keys and headers are quiet (no high-entropy report), as the recorder reads them;
3. other files: the whole text as one body (a JSON file walked, a PEM block whole).

What is a secret — the rules, credential-named keys, high-entropy tokens of no known
shape, what a credential-named file holds, a value found elsewhere in the same body — is
``harness.cassette.redaction.judge``'s to say.

A ``Finding`` has the file, the line, the kind and an excerpt that shows the context
and the public prefix of the secret (``sk-ant-api03-``), never the secret itself.
``settings`` (``redaction.config.configured()``) adds a user's literals, patterns and
credential-named environment values to the rules, and its ``allow`` rules.

``files_under`` skips version-control, virtualenv and cache folders, and the temporary
files a killed writer left (``harness.wire.files.is_temporary``): they are half of a
file, not a file.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.cassette.redaction import decode, views
from harness.cassette.redaction.checks import is_placeholder
from harness.cassette.redaction.config import Settings
from harness.cassette.redaction.find import DEFAULT_RULES, Hit
from harness.cassette.redaction.judge import QUIET_KEYS, Judge
from harness.cassette.redaction.yaml_scalars import Scalar, scalars
from harness.wire.cassette_file import inflate
from harness.wire.files import is_temporary, read_regular

__all__ = ["Finding", "files_under", "is_placeholder", "scan_bytes", "scan_file", "scan_paths", "scan_text"]

MAX_SCAN_BYTES = 1024 * 1024 * 1024
PUBLIC_PREFIX = re.compile(
    r"sk-ant-[a-z]+\d\d-|sk-(?:proj-|svcacct-|admin-)?|AKIA|ASIA|gh[pousr]_|github_pat_|gl[a-z]+-|xox[a-z]-|xapp-"
    r"|(?:sk|rk)_(?:live|test|prod)_|whsec_|AIza|ya29\.|GOCSPX-|npm_|hf_|api_org_|eyJ|pypi-|SG\.|sq0csp-"
    r"|[A-Z][A-Z0-9]*-SECRET-KEY-"
)
_CASE_CHANGE = re.compile(r"[a-z][A-Z]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9+/=_.~-]{6,}")
_SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".venv", "venv", "__pycache__", "node_modules", ".hypothesis", ".pytest_cache", ".ruff_cache",
    ".mypy_cache",
})


@dataclass(frozen=True)
class Finding:
    """One possible secret: where, what kind, and a masked excerpt."""

    path: str
    line: int
    kind: str
    excerpt: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.excerpt}"


def scan_text(text: str, name: str = "<text>", *, settings: Settings | None = None) -> list[Finding]:
    """Every secret in ``text``, once per line and secret, by line."""
    report = _Report(name, settings)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:
        return bisect_right(starts, offset)

    if name.endswith((".yaml", ".yml")) or text.startswith(("interactions:", "---")):
        for scalar in scalars(text):
            _scan_scalar(report, scalar)
    else:
        _scan_document(report, views.root(text), line_of, "")
    raw = views.root(text)
    for view in (raw, decode.unescaped(raw)):
        if view is not None:
            report.hits(view, report.judge.leaf(view, quiet=True), line_of, "", raw=True)
    return report.sorted()


def scan_bytes(data: bytes, name: str = "<bytes>", **options: Any) -> list[Finding]:
    """``scan_text`` of ``data`` (gunzipped if gzip; UTF-8, else latin-1, so a binary
    file is read byte for byte)."""
    data = _inflate(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return scan_text(text, name, **options)


def scan_file(path: Path, **options: Any) -> list[Finding]:
    """The findings in one file (``options`` as for ``scan_text``). A path that is not a
    regular file raises NotReadable (an OSError), as does one over MAX_SCAN_BYTES."""
    return scan_bytes(read_regular(Path(path), max_bytes=MAX_SCAN_BYTES), str(path), **options)


def files_under(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, and every file under the folders named (VCS, virtualenv and
    cache folders skipped); FileNotFoundError for a path that does not exist."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files += sorted(
                p for p in path.rglob("*")
                if p.is_file() and not _SKIPPED_DIRS & set(p.relative_to(path).parts) and not is_temporary(p.name)
            )
        elif path.exists():
            files.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
    return files


def scan_paths(paths: Iterable[str | Path], **options: Any) -> list[Finding]:
    """Findings in every file named and every file under the folders named."""
    return [finding for file in files_under(paths) for finding in scan_file(file, **options)]


def _scan_scalar(report: _Report, scalar: Scalar) -> None:
    if scalar.tag == "!!binary":
        try:
            data = _inflate(base64.b64decode("".join(scalar.value.split())))
        except (binascii.Error, ValueError):
            return
        text = data.decode("utf-8", "replace")
        _scan_document(report, views.root(text), lambda _: scalar.line, " (in a base64 body)")
        return
    view = views.root(scalar.value)
    if scalar.path and not scalar.is_key:
        report.hits(view, report.judge.pair(scalar.path[-1], scalar.value), scalar.line_at, "")
    if len(scalar.value) < 4:  # shorter than any secret a rule or a literal finds on its own
        return
    quiet = scalar.is_key or "headers" in scalar.path or (scalar.path and scalar.path[-1].lower() in QUIET_KEYS)
    _scan_document(report, view, scalar.line_at, "", quiet=bool(quiet))


LineOf = Callable[[int], int]


def _scan_document(report: _Report, top: views.View, line_of: LineOf, where: str, *, quiet: bool = False) -> None:
    judged = report.judge.document(top, quiet=quiet)
    for leaf in judged.opaque:
        line = line_of(views.to_root(leaf, 0, len(leaf.text))[0][0])
        _scan_document(report, views.root(leaf.text), lambda _, line=line: line, " (in a base64 string)")
    for view, hits in judged.found:
        report.hits(view, hits, line_of, where)


class _Report:
    """Findings of one file, each (line, secret) once; raw-pass findings that are part
    of (or contain) a decoded one on the same line are left out."""

    def __init__(self, name: str, settings: Settings | None) -> None:
        self.name = name
        self.judge: Judge = settings.redactor.judge if settings else _DEFAULT_JUDGE
        self.found: dict[tuple[int, str], Finding] = {}
        self.secrets_on: dict[int, list[str]] = {}

    def hits(self, view: views.View, hits: list[Hit], line_of: LineOf, where: str, *, raw: bool = False) -> None:
        for hit in hits:
            secret = view.text[hit.start : hit.end]
            line = line_of(views.to_root(view, hit.start, hit.end)[0][0])
            if raw and any(secret in s or s in secret for s in self.secrets_on.get(line, ())):
                continue
            self.add(line, secret, hit.label + where, _excerpt(view.text, hit.start, secret, hits))

    def add(self, line: int, secret: str, kind: str, excerpt: str) -> None:
        if (line, secret) in self.found:
            return
        self.found[line, secret] = Finding(self.name, line, kind, excerpt)
        self.secrets_on.setdefault(line, []).append(secret)

    def sorted(self) -> list[Finding]:
        return sorted(self.found.values(), key=lambda f: (f.line, f.kind, f.excerpt))


_DEFAULT_JUDGE = Judge(DEFAULT_RULES)


def _excerpt(text: str, start: int, secret: str, hits: list[Hit]) -> str:
    """Up to 24 characters before the secret (other secrets and random-looking runs
    masked), the secret's public prefix and its length: no character of a secret."""
    begin = max(0, start - 24)
    chars = list(text[begin:start])
    for hit in hits:
        for i in range(max(hit.start, begin), min(hit.end, start)):
            chars[i - begin] = "…"
    before = "".join(chars).rsplit("\n", 1)[-1]
    before = _RANDOM_RUN.sub(lambda m: "…" if _looks_random(m.group()) else m.group(), before)
    prefix = PUBLIC_PREFIX.match(secret)
    shown = prefix.group() if prefix else ""
    before = _CONTROL.sub(lambda m: repr(m.group())[1:-1], before)
    return f"{before}{shown}…({len(secret)} chars)"


def _looks_random(run: str) -> bool:
    """A digit, or a lower-case letter followed by an upper-case one (``xQ``): not a word
    or a name (``Authorization``, ``ANTHROPIC_API_KEY``)."""
    return any(c.isdigit() for c in run) or _CASE_CHANGE.search(run) is not None


def _inflate(data: bytes) -> bytes:
    try:
        if data[:2] == b"\x1f\x8b":
            return inflate(data, gzip=True)
        if data[:1] == b"\x78":
            return inflate(data, gzip=False)
    except (OSError, EOFError, zlib.error):
        pass
    return data


