"""vcrpy as the harness uses it: the recorder, the file format, and the
pytest-recording-compatible replay path.

``make_vcr(record_mode, match_on, cwd, scrubber)`` is a ``vcr.VCR`` that scrubs every
request and response before it is kept (``harness.cassette.scrub``), matches bodies with
placeholder tags ignored (``harness.cassette.matching.same_body``), never saves after an
exception, and saves through ``AtomicPersister``: serialise, scan for secrets with the
same rules, then ``harness.wire.files.write_atomically`` (a temporary file in the
cassette's folder, fsync, ``os.replace``; stale temporaries of killed writers swept
first). A crash or Ctrl+C leaves the previous cassette (or no file), never a truncated
one; a cassette the scanner flags is not written at all.

Errors::

    ValueError
     ├── SecretsFound     the serialised cassette still looks like it holds a secret
     └── RedactionError   (harness.cassette.redaction.redact) a body that cannot be
                          redacted safely; the scrubber keeps it in ``failures``
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.cassette.matching import same_body
from harness.cassette.redaction.config import configured
from harness.cassette.scan import Finding, scan_text
from harness.cassette.scrub import Scrubber
from harness.cassette.modes import MATCHING, RECORD_MODES
from harness.wire.errors import HarnessError
from harness.wire.files import write_atomically

__all__ = ["MATCHING", "RECORD_MODES", "AtomicPersister", "SecretsFound", "make_vcr", "write_atomically"]



class SecretsFound(HarnessError, ValueError):
    """A cassette that would have been written with something that looks like a secret."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        lines = "\n".join(f"  {f}" for f in findings[:20])
        more = f"\n  … and {len(findings) - 20} more" if len(findings) > 20 else ""
        super().__init__(f"not written: the cassette still looks like it holds secrets:\n{lines}{more}")


class AtomicPersister:
    """vcrpy's filesystem persister, but the save is scanned and atomic."""

    @staticmethod
    def load_cassette(cassette_path: Any, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    @staticmethod
    def save_cassette(cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize

        text = serialize(cassette_dict, serializer)
        findings = scan_text(text, str(cassette_path), settings=configured())
        if findings:
            raise SecretsFound(findings)
        write_atomically(Path(cassette_path), text)


def make_vcr(
    *,
    record_mode: str = "none",
    match_on: str = "body",
    cwd: str | Path | None = None,
    scrubber: Scrubber | None = None,
) -> Any:
    """A ``vcr.VCR`` configured for Anthropic sessions (see the module docstring).

    ``match_on``: ``body`` (method, path and JSON body) or ``order`` (method and path:
    the n-th request gets the n-th recorded answer). ``cwd``: the agent's working
    directory, written as ``<cwd>`` in request bodies. ``scrubber``: the recording's own
    (to read its ``failures``); by default a new one for ``cwd``. In ``all`` mode the
    cassette is recorded from scratch (vcrpy would otherwise keep old interactions
    nobody asked for).
    """
    import vcr

    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r}: choose one of {', '.join(RECORD_MODES)}")
    if match_on not in MATCHING:
        raise ValueError(f"match_on {match_on!r}: choose one of {', '.join(MATCHING)}")
    scrubber = scrubber or Scrubber(cwd)
    recorder = vcr.VCR(
        record_mode=record_mode,
        match_on=MATCHING[match_on],
        before_record_request=scrubber.request,
        before_record_response=scrubber.response,
        record_on_exception=False,
        drop_unused_requests=record_mode == "all",
    )
    recorder.register_matcher("harness_body", same_body)
    recorder.register_persister(AtomicPersister)
    return recorder
