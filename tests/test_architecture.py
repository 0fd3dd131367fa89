"""The project's modules import each other without a cycle, and ``rules`` imports the standard
library only (the layers themselves are import-linter contracts in ``pyproject.toml``, run by
``make check``)."""

from __future__ import annotations

import sys

import grimp

PACKAGES = (
    "rules",
    "core",
    "accounts",
    "notify",
    "circles",
    "games",
    "talk",
    "tournaments",
    "api",
    "web",
    "config",
    "front",
)
# Type-checking only: typeshed's private stub module of the standard library (`rules.kit`).
STUBS = frozenset({"_typeshed"})


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    modules = sorted(m for m in graph.modules if m.split(".")[0] in PACKAGES)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.find_modules_directly_imported_by(node)):
            if nxt.split(".")[0] not in PACKAGES:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    return found


def test_no_import_cycles_among_project_modules() -> None:
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("games.a", "games.b", "games.c"):
        graph.add_module(module)
    graph.add_import(importer="games.a", imported="games.b")
    graph.add_import(importer="games.b", imported="games.a")
    graph.add_import(importer="games.b", imported="games.c")
    assert _cycles(graph) == [["games.a", "games.b"]]


def _foreign_imports(graph: grimp.ImportGraph, package: str = "rules") -> list[tuple[str, str]]:
    """(importer, imported) for each import by a module of ``package`` of anything but the standard
    library and ``package`` itself."""
    allowed = sys.stdlib_module_names | STUBS | {package}
    return sorted(
        (module, imported)
        for module in graph.modules
        if module.split(".")[0] == package
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.split(".")[0] not in allowed
    )


def test_rules_import_the_standard_library_only() -> None:
    graph = grimp.build_graph(*PACKAGES, include_external_packages=True)
    assert any(m.startswith("rules.") for m in graph.modules)
    assert _foreign_imports(graph) == []


def test_the_rules_check_catches_a_planted_import() -> None:
    """The check above can fail: a rules module importing a framework, or another project package."""
    graph = grimp.build_graph(*PACKAGES, include_external_packages=True)
    graph.add_import(importer="rules.kit", imported="django")
    graph.add_import(importer="rules.bots", imported="games.models")
    graph.add_import(importer="rules.rng", imported="secrets")  # the standard library: allowed here
    assert _foreign_imports(graph) == [("rules.bots", "games.models"), ("rules.kit", "django")]
