"""The docs stay true to the repository: the layering block in docs/architecture.md is the
import-linter layers contract, nothing refers to a file outside the repository, and every relative
link in the Markdown pages points at a file (and heading) that exists."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"

# Spelled in pieces so that this file does not name them itself.
OUTSIDE = ("../" + "shared", "platform" + ".md")


# --- the layering block ---------------------------------------------------------------------------


def _layer(text: str) -> tuple[str, frozenset[str]]:
    """One layer as (separator, its packages): "web | api" is ("|", {"api", "web"}), "games" is ("", {…})."""
    text = text.strip().strip("()")  # import-linter's optional layer: "(name)"
    separator = "|" if "|" in text else ":" if ":" in text else ""
    names = [n.strip() for n in re.split(r"[|:]", text)] if separator else [text]
    return separator, frozenset(names)


def _root_layers_contract(pyproject: str) -> list[str] | None:
    """The layers of the import-linter contract whose layers are all root packages, if there is one."""
    config = tomllib.loads(pyproject)["tool"]["importlinter"]
    roots = set(config.get("root_packages") or [config.get("root_package")])
    for contract in config.get("contracts", []):
        if contract.get("type") != "layers" or contract.get("containers"):
            continue
        layers = contract["layers"]
        if layers and all(_layer(layer)[1] <= roots for layer in layers):
            return list(layers)
    return None


def _documented_layers() -> list[str]:
    found = re.findall(r"^```layers\n(.*?)^```", ARCHITECTURE.read_text(), flags=re.M | re.S)
    assert len(found) == 1, "docs/architecture.md must hold exactly one ```layers block"
    return [line for line in found[0].splitlines() if line.strip()]


def test_the_documented_layers_are_the_import_linter_contract():
    contract = _root_layers_contract((ROOT / "pyproject.toml").read_text())
    if contract is None:
        pytest.skip("pyproject.toml has no import-linter layers contract over root packages yet")
    assert [_layer(x) for x in _documented_layers()] == [_layer(x) for x in contract], (
        f"docs/architecture.md's ```layers block differs from the layers contract in pyproject.toml: {contract}"
    )


def test_the_contract_over_root_packages_is_the_one_compared():
    head = '[tool.importlinter]\nroot_packages = ["api", "games", "core"]\n'
    inner = '[[tool.importlinter.contracts]]\ntype = "layers"\nlayers = ["games.tasks", "games.services"]\n'
    roots = '[[tool.importlinter.contracts]]\ntype = "layers"\nlayers = ["api", "games | core"]\n'
    assert _root_layers_contract(head + inner + roots) == ["api", "games | core"]
    assert _root_layers_contract(head + inner) is None


def test_a_layer_reads_the_same_whatever_its_order_or_spacing():
    assert _layer("web | api") == _layer("api|web") != _layer("api : web")
    assert _layer("(games)") == ("", frozenset({"games"}))


# --- nothing outside the repository ---------------------------------------------------------------


def _tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no list of tracked files")
    files = []
    for name in out.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        head = path.read_bytes()[:8192]
        if b"\0" not in head:  # a binary file (an image, a font) is not read
            files.append(path)
    return files


def test_no_tracked_file_refers_to_a_file_outside_the_repository():
    offenders = []
    for path in _tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for needle in OUTSIDE:
            if needle in text:
                line = text[: text.index(needle)].count("\n") + 1
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {needle}")
    assert offenders == []


# --- links in the Markdown pages ------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _without_fences(markdown: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1", "", markdown, flags=re.M | re.S)


def _prose(markdown: str) -> str:
    """The page without fenced code blocks and code spans, where brackets are not links."""
    return re.sub(r"`[^`\n]*`", "", _without_fences(markdown))


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#{1,6}\s+(.*?)\s*#*$", _without_fences(markdown), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def _broken_links(page: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:…
            continue
        name, _, fragment = target.partition("#")
        linked = (page.parent / name).resolve() if name else page
        if not linked.exists():
            broken.append(f"{page.relative_to(root)}: {target} (no such file)")
        elif fragment and linked.suffix == ".md" and fragment not in _anchors(linked.read_text()):
            broken.append(f"{page.relative_to(root)}: {target} (no such heading)")
    return broken


def test_every_relative_link_in_the_docs_points_at_something_that_exists():
    assert len(_pages()) > 5
    assert [b for page in _pages() for b in _broken_links(page)] == []


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "there.md").write_text("# A heading\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-heading) [web](https://example.org/x) `[code](nowhere.md)`\n"
        "[gone](nowhere.md) [bad anchor](there.md#nothing)\n"
    )
    assert _broken_links(page, root=tmp_path) == [
        "page.md: nowhere.md (no such file)",
        "page.md: there.md#nothing (no such heading)",
    ]
