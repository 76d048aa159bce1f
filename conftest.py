"""Loads the harness pytest plugin for this repository (installed copies get it
through the ``pytest11`` entry point)."""

pytest_plugins = ["harness.pytest_plugin"]
