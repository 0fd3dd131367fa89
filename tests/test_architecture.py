"""The project's modules import each other without a cycle (the layers themselves are import-linter
contracts in ``pyproject.toml``, run by ``make test``)."""

from __future__ import annotations

import grimp

PACKAGES = ("rules", "core", "games", "accounts", "api", "config", "web", "front")


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
