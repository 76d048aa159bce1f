"""Benchmarks: the harness against the SDK's own parsing, vcrpy, and its own targets (``python -m bench``)."""
