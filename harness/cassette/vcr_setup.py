"""vcrpy as the harness uses it: the recorder, the file format, and the
pytest-recording-compatible replay path.

``make_vcr(record_mode, match_on, cwd, scrubber, max_age)`` is a ``vcr.VCR`` that scrubs
every request and response before it is kept (``harness.cassette.scrub``), matches
bodies with placeholder tags ignored (``harness.cassette.matching.same_body``), never
saves after an exception, and saves through ``AtomicPersister``: stamp the cassette's
age (``harness.cassette.age``: when, with which SDK and harness, for which models),
serialise, scan for secrets with the same rules, then
``harness.wire.files.write_atomically`` (a temporary file in the cassette's folder,
fsync, ``os.replace``; stale temporaries of killed writers swept first). A crash or
Ctrl+C leaves the previous cassette (or no file), never a truncated one; a cassette the
scanner flags is not written at all. Record modes are pytest-recording's
(``harness.cassette.modes``).

Errors::

    ValueError
     ├── SecretsFound     the serialised cassette still looks like it holds a secret
     └── RedactionError   (harness.cassette.redaction.redact) a body that cannot be
                          redacted safely; the scrubber keeps it in ``failures``
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Collection

from harness.cassette.age import METADATA_KEY, harness_version, stamp
from harness.cassette.matching import same_api_path, same_body
from harness.cassette.modes import MATCHING, RECORD_MODES, VCR_MODE
from harness.cassette.redaction.config import configured
from harness.cassette.scan import Finding, scan_text
from harness.cassette.scrub import Scrubber
from harness.cassette.timing import Stopwatch
from harness.wire.errors import HarnessError
from harness.wire.files import write_atomically

__all__ = ["MATCHING", "RECORD_MODES", "AtomicPersister", "SecretsFound", "Stamper", "drop_interactions", "make_vcr",
           "write_atomically", "write_scanned"]



class SecretsFound(HarnessError, ValueError):
    """A cassette that would have been written with something that looks like a secret."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        lines = "\n".join(f"  {f}" for f in findings[:20])
        more = f"\n  … and {len(findings) - 20} more" if len(findings) > 20 else ""
        super().__init__(f"not written: the cassette still looks like it holds secrets:\n{lines}{more}")


class Stamper:
    """What a recording notes for the cassette's age: the models its requests name and the
    client that sent them (its ``user-agent``), read before the request is scrubbed and
    redacted like the rest (``scrub``)."""

    def __init__(self, *, fresh: bool, max_age: Any = None, scrub: Callable[[str], str] = str) -> None:
        self.fresh = fresh  # rewrite: a new age, whatever the old cassette said
        self.max_age = max_age
        self.scrub = scrub
        self.models: set[str] = set()
        self.clients: set[str] = set()

    def saw(self, request: Any) -> None:
        """vcrpy's request hook, before scrubbing."""
        agent = request.headers.get("user-agent") or request.headers.get("User-Agent")
        if agent:
            self.clients.add(self.scrub(str(agent)))
        try:
            model = json.loads(request.body or b"null").get("model")
        except (ValueError, AttributeError, TypeError):
            return
        if isinstance(model, str):
            self.models.add(self.scrub(model))

    def metadata(self, old: Mapping[str, Any] | None) -> dict[str, Any]:
        """The cassette's metadata after this recording: a new age when it starts the
        cassette afresh, else the old one with the models added."""
        metadata = dict(old or {})
        previous = metadata.get(METADATA_KEY)
        if self.fresh or not isinstance(previous, Mapping) or "recorded_at" not in previous:
            sdk = ", ".join(sorted(self.clients)) or "unknown"
            metadata[METADATA_KEY] = stamp(models=self.models, sdk=sdk, harness=harness_version(), max_age=self.max_age)
        else:
            kept = dict(previous)
            kept["models"] = sorted(set(kept.get("models") or ()) | self.models)
            if self.max_age is not None:
                kept["max_age"] = self.max_age
            metadata[METADATA_KEY] = kept
        return metadata


_TEXT, _MAP = (str, "text"), (Mapping, "a mapping")
VCR_PARTS: dict[str, dict[str, tuple[Any, str]]] = {
    "request": {"method": _TEXT, "uri": _TEXT, "body": ((str, bytes, Mapping, type(None)), "text or a mapping"), "headers": _MAP},
    "response": {"status": _MAP, "headers": _MAP, "body": _MAP},
    "older httpx response": {"status_code": (int, "a number"), "headers": _MAP, "content": ((str, bytes), "text")},
    "status": {"code": (int, "a number"), "message": ((str, type(None)), "text")},
}
"""What vcrpy builds a recorded interaction from, and what each part must be."""


def vcr_needs(side: str, part: Mapping[str, Any]) -> list[str]:
    """What vcrpy needs of one side of an interaction that ``part`` lacks (its older httpx
    response form too), as ``headers as a mapping``."""
    form = "older httpx response" if side == "response" and "status_code" in part else side
    missing = [f"{key} as {words}" for key, (kind, words) in VCR_PARTS[form].items() if not isinstance(part.get(key), kind)]
    headers = part.get("headers")
    if isinstance(headers, Mapping) and any(value == [] for value in headers.values()):
        missing.append("headers with a value each (not an empty list)")
    status = part.get("status")
    if form == "response" and isinstance(status, Mapping):
        missing += [f"status {key} as {words}" for key, (kind, words) in VCR_PARTS["status"].items()
                    if not isinstance(status.get(key), kind)]
    return missing


class AtomicPersister:
    """vcrpy's filesystem persister, but the save is stamped, scanned and atomic."""

    def __init__(self, stamper: Stamper | None = None) -> None:
        self.stamper = stamper

    @staticmethod
    def load_cassette(cassette_path: Any, serializer: Any) -> Any:
        """vcrpy's load, after the harness's reader has checked the file: a cassette that
        is not one (garbage, ``interactions: 5``) is a CassetteError naming its file and
        line, not vcrpy's TypeError halfway through (a missing or empty file is vcrpy's:
        record afresh)."""
        from vcr.persisters.filesystem import CassetteDecodeError, FilesystemPersister

        from harness.wire.cassette_file import CassetteError, located, read_cassette

        path = Path(cassette_path)
        if path.is_file() and path.read_bytes().strip():
            for n, interaction in enumerate(read_cassette(path).interactions):
                for side in ("request", "response"):
                    missing = vcr_needs(side, interaction[side])
                    if missing:
                        where = located(path, ["interactions", n, side])
                        raise CassetteError(f"{where}: interaction {n}: vcrpy needs the {side}'s {', '.join(missing)}")
        try:
            return FilesystemPersister.load_cassette(cassette_path, serializer)
        except CassetteDecodeError:
            raise  # vcrpy's own: it records such a cassette afresh
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as error:  # what vcrpy cannot build its interactions from
            raise CassetteError(f"{path}: vcrpy cannot read this cassette ({type(error).__name__}: {error})") from None

    def save_cassette(self, cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize

        if self.stamper is not None:
            cassette_dict = {**cassette_dict, "metadata": self.stamper.metadata(cassette_dict.get("metadata"))}
        text = serialize(cassette_dict, serializer)
        write_scanned(Path(cassette_path), text)


def drop_interactions(path: str | Path, numbers: Iterable[int]) -> int:
    """Write the cassette at ``path`` again without the interactions ``numbers`` (from 1):
    scanned and atomic like a recording, its metadata (its age) kept; how many are left."""
    from vcr.serializers import yamlserializer

    from harness.wire.cassette_file import read_cassette

    cassette = read_cassette(path)
    dropped = set(numbers)
    kept = [i for n, i in enumerate(cassette.interactions, 1) if n not in dropped]
    data: dict[str, Any] = {"interactions": kept, "version": 1}
    if cassette.metadata:
        data["metadata"] = cassette.metadata
    write_scanned(Path(path), yamlserializer.serialize(data))
    return len(kept)


def write_scanned(path: Path, text: str) -> None:
    """``text`` written to ``path`` atomically, if the scanner finds no secret in it
    (SecretsFound, and nothing written, if it does): how every cassette, and every
    report made from one, is written."""
    findings = scan_text(text, str(path), settings=configured())
    if findings:
        raise SecretsFound(findings)
    write_atomically(path, text)


def make_vcr(
    *,
    record_mode: str = "none",
    match_on: str = "body",
    cwd: str | Path | None = None,
    scrubber: Scrubber | None = None,
    max_age: Any = None,
    stopwatch: Stopwatch | None = None,
    unrecorded: Collection[tuple[str, int]] | None = None,
) -> Any:
    """A ``vcr.VCR`` configured for Anthropic sessions (see the module docstring).

    ``match_on``: ``body`` (method, path and JSON body) or ``order`` (method and path:
    the n-th request gets the n-th recorded answer). ``cwd``: the agent's working
    directory, written as ``<cwd>`` in request bodies. ``scrubber``: the recording's own
    (to read its ``failures``); by default a new one for ``cwd``. ``max_age``: written
    into the cassette's metadata (``7d``, ``12h`` …). ``stopwatch``: the one that timed
    the answers (``harness.cassette.timing``): each response keeps when its parts came.
    ``unrecorded``: for a session with a loopback proxy (``harness.cassette.proxy``), the
    (host, port) pairs whose requests vcrpy lets through unrecorded, read at each request
    (the hop from an agent to the proxy, which records what it forwards); vcrpy then
    patches httpx2 alone (the SDK's client and the proxy's): an agent on any other HTTP
    library reaches the cassette through the proxy, and vcrpy's patch of http.client,
    which puts every patch back while it sends, cannot let the proxy's forwarding in
    another thread through unrecorded.
    """
    import vcr
    from vcr.patch import PATCHER_NAMES

    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r}: choose one of {', '.join(RECORD_MODES)}")
    if match_on not in MATCHING:
        raise ValueError(f"match_on {match_on!r}: choose one of {', '.join(MATCHING)}")
    scrubber = scrubber or Scrubber(cwd)
    stamper = Stamper(fresh=record_mode == "rewrite", max_age=max_age, scrub=scrubber.text)

    def before_record_request(request: Any) -> Any:
        if unrecorded and (request.host, request.port) in unrecorded:
            return None
        stamper.saw(request)
        return scrubber.request(request)

    recorder = vcr.VCR(
        record_mode=VCR_MODE[record_mode],
        match_on=MATCHING[match_on],
        before_record_request=before_record_request,
        before_record_response=scrubber.response if stopwatch is None else lambda r: scrubber.response(stopwatch.stamp(r)),
        record_on_exception=False,
        drop_unused_requests=record_mode == "rewrite",
        skip_patchers=() if unrecorded is None else tuple(name for name in PATCHER_NAMES if name != "httpx2"),
    )
    recorder.register_matcher("harness_body", same_body)
    recorder.register_matcher("harness_path", same_api_path)
    recorder.register_persister(AtomicPersister(stamper))
    return recorder
