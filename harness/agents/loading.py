"""Naming an agent: ``MODULE:FACTORY`` (``examples.careful_agent:make_agent``), or a file
and a name (``agents/mine.py:build``), as ``--agent``, ``--harness-agent`` and the
``harness_agent`` ini key take it. The current folder is searched too, after what is
installed or on ``PYTHONPATH``."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import sysconfig
import traceback
from pathlib import Path
from typing import Any, Callable, Iterator

from harness.wire.errors import HarnessError

DEFAULT_AGENT = "harness.agents.mini_agent:factory"
FORM = "MODULE:FACTORY, e.g. examples.careful_agent:make_agent or path/to/agent.py:make_agent"


class AgentSpecError(HarnessError, ValueError):
    """An agent name that does not lead to a callable factory; the message says why."""


def load_factory(spec: str) -> Callable[..., Any]:
    """The factory that ``spec`` names."""
    module_name, colon, attribute = spec.rpartition(":")
    dotted = module_name.endswith(".py") or all(part.isidentifier() for part in module_name.split("."))
    if not colon or not module_name or not attribute.isidentifier() or not dotted:  # ``..:x`` names no module
        raise AgentSpecError(f"agent {spec!r}: expected {FORM}")
    module = _module(spec, module_name)
    factory = getattr(module, attribute, None)
    if factory is None:
        public = sorted(name for name, value in vars(module).items() if callable(value) and not name.startswith("_"))
        raise AgentSpecError(f"agent {spec!r}: {module_name} has no {attribute!r}; callables there: {', '.join(public) or 'none'}")
    if not callable(factory):
        raise AgentSpecError(f"agent {spec!r}: {attribute} is a {type(factory).__name__}, not a factory")
    return factory


def _module(spec: str, name: str) -> Any:
    if name.endswith(".py"):
        path = Path(name)
        if not path.is_file():
            raise AgentSpecError(f"agent {spec!r}: no such file {path}")
        folder = str(path.resolve().parent)
        if folder not in sys.path:  # its own modules import as they would under `python path/to/agent.py`
            sys.path.append(folder)
        loaded = importlib.util.spec_from_file_location(f"harness_agent_{path.stem}", path)
        assert loaded is not None and loaded.loader is not None
        module = importlib.util.module_from_spec(loaded)
        sys.modules[loaded.name] = module
        with _importing(spec):
            loaded.loader.exec_module(module)
        return module
    here = str(Path.cwd())
    if here not in sys.path:
        sys.path.append(here)  # last: what is installed, or on PYTHONPATH, comes first
    with _importing(spec, name):
        return importlib.import_module(name)


@contextlib.contextmanager
def _importing(spec: str, name: str | None = None) -> Iterator[None]:
    """An agent's module that cannot be imported is a clear error: the module ``name``
    itself missing, or what its code raised (a syntax error, a missing dependency, an
    exception at import time) with its file and line."""
    try:
        yield
    except ModuleNotFoundError as error:
        if name and error.name and name.startswith(error.name):
            raise AgentSpecError(
                f"agent {spec!r}: no module named {error.name!r} (run from the folder that holds it, or put that "
                f"folder on PYTHONPATH)"
            ) from None
        raise AgentSpecError(f"agent {spec!r}: importing it failed: {_where(error)}") from None
    except Exception as error:  # noqa: BLE001 -- the agent's own code, whatever it raised
        raise AgentSpecError(f"agent {spec!r}: importing it failed: {_where(error)}") from None


def _where(error: BaseException) -> str:
    """The error and the place in the agent's code it came from."""
    if isinstance(error, SyntaxError):
        return f"{type(error).__name__}: {error.msg} ({error.filename}, line {error.lineno})"
    stdlib = sysconfig.get_paths()["stdlib"]
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if not f.filename.startswith((stdlib, "<"))] or frames
    place = f" ({own[-1].filename}, line {own[-1].lineno})" if own else ""
    return f"{type(error).__name__}: {error}{place}"
