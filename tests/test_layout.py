"""The layout of docs/architecture.md, read from the imports of the source: each failure
names the module, the line and the import that breaks a rule. Every import counts,
deferred ones and those under ``TYPE_CHECKING`` too."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 300
DATA_TABLES: frozenset[str] = frozenset()  # modules that may be longer because they are one table
MAY_IMPORT = {  # a package of harness → the harness packages it may import (itself always)
    "wire": set(),
    "oracle": {"wire"},
    "agents": {"wire"},
    "cassette.redaction": {"wire"},
    "library": set(),
    "scenario.format": {"wire", "library"},
    "scenario.fake_api": {"wire", "oracle", "scenario.format"},
    "scenario.checks": {"wire", "oracle", "agents", "scenario.format", "scenario.fake_api"},
    "serve": {"wire", "oracle", "scenario.format", "scenario.fake_api", "scenario.checks"},
    "report": {"wire"},
    "strategies": {"wire", "oracle", "scenario.format"},
    "scenario.run": {"wire", "oracle", "agents", "scenario.format", "scenario.fake_api", "scenario.checks", "serve"},
    "cassette": {"wire", "oracle", "agents", "cassette.redaction", "scenario.format", "scenario.fake_api",
                 "scenario.checks", "scenario.run", "serve"},
    "scenario.frontends": {"wire", "oracle", "agents", "cassette", "cassette.redaction", "scenario.format",
                           "scenario.fake_api", "scenario.checks", "scenario.run", "serve", "report", "strategies",
                           "library"},
    "library.properties": {"wire", "oracle", "agents", "cassette", "cassette.redaction", "scenario.format",
                           "scenario.fake_api", "scenario.checks", "scenario.run", "serve", "report", "strategies",
                           "library", "scenario.frontends"},
}
"""The top-level modules (``harness``, ``cli``, ``pytest_plugin``) are the front doors: they
may import any package. ``harness.scenario`` itself is a folder of five packages."""
MINI_AGENT_HOME = "harness.agents.mini_agent"


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    line: int
    target: str  # the imported module, dotted

    def __str__(self) -> str:
        return f"{self.module} (line {self.line}) imports {self.target}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, known: set[str]) -> list[Import]:
    """Every import in ``path``; ``from a import b`` counts as ``a.b`` when that is a module."""
    return imports_of_text(path.read_text(encoding="utf-8"), path, known)


def imports_of_text(source: str, path: Path, known: set[str]) -> list[Import]:
    """Every import in ``source`` (the text of ``path``), dynamic ones too: a call of
    ``import_module`` or ``__import__`` with a literal module name."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _dynamic_import(node):
            found.append(Import(name, node.lineno, node.args[0].value))  # type: ignore[attr-defined]
        if isinstance(node, ast.Import):
            found += [Import(name, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            subs = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
            found += [Import(name, node.lineno, t) for t in subs] or [Import(name, node.lineno, target)]
    return found


def _dynamic_import(call: ast.Call) -> bool:
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return called in ("import_module", "__import__") and bool(call.args) and isinstance(call.args[0], ast.Constant) \
        and isinstance(call.args[0].value, str)


def sources(top: str) -> list[Path]:
    return sorted((ROOT / top).rglob("*.py"))


KNOWN = {module_name(p) for top in ("harness", "mini_agent") for p in sources(top)}
HARNESS = {p: imports_of(p, KNOWN) for p in sources("harness")}
ALL_HARNESS_IMPORTS = [i for found in HARNESS.values() for i in found]


def is_harness(target: str) -> bool:
    return target == "harness" or target.startswith("harness.")


def test_no_import_cycles_among_harness_modules() -> None:
    graph: dict[str, set[str]] = {}
    lines: dict[tuple[str, str], int] = {}
    for i in ALL_HARNESS_IMPORTS:
        if i.target in KNOWN and is_harness(i.target) and i.target != i.module and i.target != "harness":
            graph.setdefault(i.module, set()).add(i.target)
            lines.setdefault((i.module, i.target), i.line)
    cycles = _cycles(graph)
    described = [" → ".join(f"{a} (line {lines[a, b]})" for a, b in zip(c, c[1:] + c[:1])) + f" → {c[0]}" for c in cycles]
    assert not described, "import cycles:\n" + "\n".join(described)


def test_the_packages_depend_on_each_other_in_one_direction() -> None:
    """Between packages too: if wire → oracle is allowed, oracle → wire is not."""
    graph: dict[str, set[str]] = {}
    lines: dict[tuple[str, str], Import] = {}
    for i in ALL_HARNESS_IMPORTS:
        source, target = _package(i.module), _package(i.target) if is_harness(i.target) else None
        if source and target and source != target:
            graph.setdefault(source, set()).add(target)
            lines.setdefault((source, target), i)
    cycles = _cycles(graph)
    described = ["; ".join(str(lines[a, b]) for a, b in zip(c, c[1:] + c[:1])) for c in cycles]
    assert not described, "package cycles:\n" + "\n".join(described)


def _package(module: str) -> str | None:
    """The package of ``MAY_IMPORT`` a harness module is in (``scenario.run``), the most
    specific one; None for the top-level modules."""
    inside = [name for name in MAY_IMPORT if module == f"harness.{name}" or module.startswith(f"harness.{name}.")]
    return max(inside, key=len) if inside else None


SUBPACKAGES = {module_name(p) for p in sources("harness") if p.name == "__init__.py" and p.parent != ROOT / "harness"}


def test_every_package_has_its_rules() -> None:
    """A new package says what it may import (``scenario`` is only a folder of packages)."""
    folders = {"harness.scenario"}
    missing = sorted(name for name in SUBPACKAGES - folders if _package(name) is None)
    assert not missing, f"packages with no line in MAY_IMPORT: {missing}"


def test_mini_agent_is_imported_only_by_its_adapter() -> None:
    offending = [str(i) for i in ALL_HARNESS_IMPORTS if i.target.split(".")[0] == "mini_agent" and i.module != MINI_AGENT_HOME]
    assert not offending, f"only {MINI_AGENT_HOME} may import mini_agent:\n" + "\n".join(offending)


def test_mini_agent_never_imports_harness() -> None:
    offending = [str(i) for p in sources("mini_agent") for i in imports_of(p, KNOWN) if is_harness(i.target)]
    assert not offending, "mini_agent must not import harness:\n" + "\n".join(offending)


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_each_package_imports_only_what_is_below_it(package: str) -> None:
    allowed = MAY_IMPORT[package] | {package}
    offending = [
        str(i)
        for i in ALL_HARNESS_IMPORTS
        if _package(i.module) == package and is_harness(i.target) and i.target != "harness"
        and _package(i.target) not in allowed
    ]
    assert not offending, f"harness.{package} may import only {sorted(allowed)}:\n" + "\n".join(offending)


def test_the_allowed_imports_go_one_way() -> None:
    """The table itself has no cycle: what a package may import may not import it back."""
    assert _cycles({name: set(allowed) for name, allowed in MAY_IMPORT.items()}) == []


def test_a_dynamic_import_counts_as_an_import(tmp_path: Path) -> None:
    """``importlib.import_module("harness.x")`` is found like ``import harness.x``."""
    module = ROOT / "harness" / "wire" / "_probe_dynamic.py"
    source = 'import importlib\n\nserver = importlib.import_module("harness.serve.server")\n'
    found = imports_of_text(source, module, KNOWN)
    assert Import("harness.wire._probe_dynamic", 3, "harness.serve.server") in found


def test_harness_is_in_packages_and_no_module_is_over_the_limit() -> None:
    too_long = [
        f"{module_name(p)}: {n} lines"
        for top in ("harness", "mini_agent")
        for p in sources(top)
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES and module_name(p) not in DATA_TABLES
    ]
    assert not too_long, f"modules over {MAX_LINES} lines:\n" + "\n".join(too_long)
    flat = sorted(module_name(p) for p in sources("harness") if p.parent == ROOT / "harness")
    assert flat == ["harness", "harness.__main__", "harness.cli", "harness.pytest_plugin"], flat


def test_the_checker_catches_a_cycle_and_names_it() -> None:
    """The cycle finder itself, on a made-up graph: it must be able to fail."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, each from its
    smallest name, following the edges."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(_walk(sorted(component), graph))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _walk(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """The component as a path of edges from its smallest member, as far as it goes."""
    members, path = set(component), [component[0]]
    while True:
        step = next((w for w in sorted(graph.get(path[-1], ())) if w in members and w not in path), None)
        if step is None:
            return path
        path.append(step)


def test_every_name_the_top_package_exports_is_there() -> None:
    import harness

    missing = [name for name in harness.__all__ if getattr(harness, name, None) is None]
    assert not missing, missing
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        harness.nope  # noqa: B018
