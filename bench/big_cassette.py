"""A big recorded cassette loaded from disk and replayed: ``load_cassette`` and the
harness's ``CassetteTransport`` against the SDK's floor on the same response bytes.

The cassette is one streamed interaction written by vcrpy's own serializer, shaped as
the real API streams a long answer: text blocks of 20 kB in deltas of 64 characters,
the text not all ASCII (a curly quote, a dash, an accent), so that YAML holds it as a
quoted, folded, escaped scalar and Python's string of it takes two bytes a character.

CPU: the harness (load the file, replay the interaction through the SDK) over the floor
(the SDK reading the same body through a bare transport), interleaved in one process.
Memory: each in a fresh process, the peak resident memory it adds over the same process
before the work (``VmHWM``), over the file's size; beside it the memory floor of any
reader built on PyYAML: composing the file's YAML and nothing else.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import httpx2
from vcr.serializers import yamlserializer

from harness.cassette.index import CassetteTransport
from harness.wire import sse
from harness.wire.cassette_file import load_cassette
from harness.wire.chunks import WireBody

from .big_stream import REQUEST, SSE_HEADERS, interaction
from .timing import interleaved, ratio

BLOCK_CHARS = 20_000
DELTA_CHARS = 64
SAMPLE = "The agent’s answer — naïve, café-grade prose, "
PROBE = """
import sys
import anthropic, httpx2, yaml
from bench.big_cassette import read_stream
from harness.cassette.index import CassetteTransport
from harness.wire import plain_yaml
from harness.wire.cassette_file import load_cassette
from harness.wire.chunks import WireBody

def peak_mb():
    return int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024

what, cassette, body = sys.argv[1:4]
before = peak_mb()
if what == "floor":
    data = open(body, "rb").read()
    read_stream(httpx2.MockTransport(lambda r: httpx2.Response(200, headers={"content-type": "text/event-stream"},
                                                               stream=WireBody(data))))
elif what == "compose":
    with open(cassette, "rb") as stream:
        yaml.compose(stream, Loader=plain_yaml.LOADER)
else:
    read_stream(CassetteTransport(load_cassette(cassette), match_on="order"))
print(peak_mb() - before)
"""


def stream_body(megabytes: float) -> bytes:
    """The SSE body of one long answer: ``megabytes`` MB of text, in blocks and deltas."""
    events: list[dict[str, Any]] = [sse.message_events({"text": ""}, message_id="msg_big", model=REQUEST["model"])[0]]
    total, index = 0, 0
    while total < megabytes * 1_000_000:
        text = (f"{index:08d} " + SAMPLE * (BLOCK_CHARS // len(SAMPLE) + 1))[:BLOCK_CHARS]
        events.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
        events += [
            {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text[i : i + DELTA_CHARS]}}
            for i in range(0, len(text), DELTA_CHARS)
        ]
        events.append({"type": "content_block_stop", "index": index})
        total, index = total + len(text.encode()), index + 1
    events += [{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": total // 4}}, {"type": "message_stop"}]
    return sse.encode_events(events)


def read_stream(transport: httpx2.BaseTransport) -> int:
    """One streamed request through the SDK, every event read; the text's length."""
    client = anthropic.Anthropic(api_key="bench", max_retries=0, http_client=httpx2.Client(transport=transport))
    with client.messages.stream(**REQUEST) as stream:
        for _ in stream:
            pass
        return sum(len(block.text) for block in stream.get_final_message().content)


def write_cassette(folder: Path, file_megabytes: float) -> tuple[Path, Path]:
    """A cassette of about ``file_megabytes`` MB on disk, and its response body alone."""
    body = stream_body(file_megabytes * 0.3)  # the YAML of such a stream is about 3.3 times its text
    cassette, raw = folder / "big_cassette.yaml", folder / "big_cassette.body"
    cassette.write_text(yamlserializer.serialize({"interactions": [interaction(body)], "version": 1}), encoding="utf-8")
    raw.write_bytes(body)
    return cassette, raw


def measure(folder: Path, file_megabytes: float, rounds: int) -> dict[str, Any]:
    """CPU against the floor, interleaved, and each contender's peak memory in a fresh process."""
    cassette, raw = write_cassette(folder, file_megabytes)
    body = raw.read_bytes()

    def floor() -> None:
        read_stream(httpx2.MockTransport(lambda r: httpx2.Response(200, headers=SSE_HEADERS, stream=WireBody(body))))

    def harness() -> None:
        transport = CassetteTransport(load_cassette(cassette), match_on="order")
        read_stream(transport)
        assert not transport.mismatches

    samples = interleaved({"floor": floor, "harness": harness}, rounds=rounds, batch=1, warmup=False)
    size_mb = cassette.stat().st_size / 1_000_000
    memory = {what: _peak_mb(what, cassette, raw) for what in ("floor", "compose", "harness")}
    return {
        "file_mb": round(size_mb, 1),
        "body_mb": round(len(body) / 1_000_000, 1),
        "ms": {name: round(min(s.cpu) * 1000, 1) for name, s in samples.items()},
        "harness_over_floor": ratio(samples["harness"], samples["floor"]),
        "peak_mb": {what: round(mb, 1) for what, mb in memory.items()},
        "memory_over_file": round(memory["harness"] / size_mb, 2),
        "compose_memory_over_file": round(memory["compose"] / size_mb, 2),
    }


def _peak_mb(what: str, cassette: Path, raw: Path) -> float:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", PROBE, what, str(cassette), str(raw)], cwd=root,
                          capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip()))
