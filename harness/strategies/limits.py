"""Hypothesis strategies for rate limits: any ``Limits`` a fake API may enforce, kept to
waits a careful client takes (no bucket asks for more than about a minute)."""

from __future__ import annotations

from hypothesis import strategies as st

from harness.scenario.format.limits import Acceleration, Limits


@st.composite
def rate_limits(draw: st.DrawFn) -> Limits:
    """Buckets from tight to loose, filled over a second or a minute, output charged either
    way, now and then an acceleration limit."""
    acceleration = draw(st.none() | st.builds(Acceleration, st.sampled_from([5.0, 10.0]), st.sampled_from([1.5, 2.0]),
                                              st.integers(1, 3)))
    return Limits(
        requests_per_minute=draw(st.sampled_from([1, 2, 6, 30, 4000])),
        input_tokens_per_minute=draw(st.sampled_from([2_000, 20_000, 2_000_000])),
        output_tokens_per_minute=draw(st.sampled_from([8_000, 400_000])),
        bucket_seconds=draw(st.sampled_from([1.0, 60.0])),
        output_counted=draw(st.sampled_from(["max_tokens", "generated"])),
        cache_reads_counted=draw(st.booleans()),
        acceleration=acceleration,
    )
