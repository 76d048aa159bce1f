"""The repository's root: pytest puts it on sys.path, so the tests import ``examples`` and
``tests`` modules (the harness plugin comes through the ``pytest11`` entry point of the
installed package, here and in every project that installs it)."""
