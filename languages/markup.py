"""The rules pages as HTML (issue 33): ``languages/rules/<game>.<lang>.md`` through Python-Markdown.

The Markdown stays plain, so a third-party client can render it with any library: the only
extensions to the syntax are definition lists (the glossary) and pictures whose address has the
``tabula:`` scheme, ``![red 7](tabula:enka-card/red/7)``. Here those pictures become the same
markup the web client's components render (``games/ekko.js`` and ``games/enka.js`` ``Card``, the
Ecos element badge of ``rules.js``), so the board's stylesheet draws them; the alt text, written in
the page's language, is their accessible name. A picture of a kind or component we do not know is
its alt text.

The page's shape is a convention rather than markup, for the same reason: its H1 is the game's
name, the paragraph after it the tagline (``p.lead``), each H2 opens a ``<section>`` labelled by
it, and the last section is the glossary (``section.glossary``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from functools import cache

import markdown  # type: ignore[import-untyped]
from markdown.extensions import Extension  # type: ignore[import-untyped]
from markdown.extensions.toc import slugify_unicode  # type: ignore[import-untyped]
from markdown.treeprocessors import Treeprocessor  # type: ignore[import-untyped]

import languages

SCHEME = "tabula:"
GAME = re.compile(r"[a-z][a-z0-9_-]*")

ENKA_COLOURS = ("red", "yellow", "green", "blue")
ENKA_RANKS = (*(str(n) for n in range(10)), "stop", "back", "take2", "take5")
ENKA_WILDS = ("wild", "wild-take4", "take5")
# The faces games/enka.js draws (its SYMBOLS: signs, no letters, so no word goes untranslated).
ENKA_FACES = {"stop": "⊘", "back": "⇄", "take2": "+2", "take5": "+5", "wild": "✱", "wild-take4": "+4"}
# rules.js's ECOS_ELEMENTS.
ECOS_SYMBOLS = {
    "sun": "☀",
    "water": "≈",
    "grass": "♣",
    "animal": "A",
    "earth": "E",
    "air": "~",
    "fire": "F",
    "wild": "✱",
}


def _span(cls: str, **attrs: str) -> etree.Element:
    element = etree.Element("span", {"class": cls})
    for name, value in attrs.items():
        element.set(name.replace("_", "-"), value)
    return element


def _child(parent: etree.Element, cls: str, text: str, hidden: bool = False) -> None:
    child = etree.SubElement(parent, "span", {"class": cls})
    if hidden:
        child.set("aria-hidden", "true")
    child.text = text


def ekko_card(parts: list[str], alt: str) -> etree.Element | None:
    """games/ekko.js ``Card`` (small): the number padded to two digits, the parity arrow, and a
    hue shared with the card's mirror; the multiples of 11 are gold (``.eleven``)."""
    if len(parts) != 1 or not parts[0].isdigit() or not 1 <= int(parts[0]) <= 98:
        return None
    n = int(parts[0])
    padded = f"{n:02d}"
    eleven = n % 11 == 0
    card = _span(f"ekko-card{' eleven' if eleven else ''} small", role="img", aria_label=alt, title=alt)
    if not eleven:
        mirror = int(padded[::-1])
        card.set("style", f"--hue:{min(n, mirror) * 137 % 360}")
    _child(card, "num", padded)
    _child(card, "par", "▲" if n % 2 else "▼", hidden=True)
    return card


def enka_card(parts: list[str], alt: str) -> etree.Element | None:
    """games/enka.js ``Card`` (small): a colour class (``wild`` for the colourless cards), the
    face in the corner and in the middle."""
    if len(parts) == 1 and parts[0] in ENKA_WILDS:
        colour, rank = "wild", parts[0]
    elif len(parts) == 2 and parts[0] in ENKA_COLOURS and parts[1] in ENKA_RANKS:
        colour, rank = parts
    else:
        return None
    face = ENKA_FACES.get(rank, rank)
    card = _span(f"enka-card {colour} small", role="img", aria_label=alt, title=alt)
    _child(card, "corner", face, hidden=True)
    _child(card, "face", face, hidden=True)
    return card


def ecos_element(parts: list[str], alt: str) -> etree.Element | None:
    """rules.js's element badge: the symbol, then the element's name in the page's language."""
    if len(parts) != 1 or parts[0] not in ECOS_SYMBOLS:
        return None
    badge = _span("ecos-element", title=alt)
    badge.text = f"{ECOS_SYMBOLS[parts[0]]} {alt}"
    return badge


PICTURES: dict[str, Callable[[list[str], str], etree.Element | None]] = {
    "ekko-card": ekko_card,
    "enka-card": enka_card,
    "ecos-element": ecos_element,
}


def picture(src: str, alt: str) -> etree.Element | None:
    """The component for ``tabula:<kind>/<part>/…``; None for a kind or part we do not draw."""
    kind, _, rest = src.removeprefix(SCHEME).partition("/")
    draw = PICTURES.get(kind)
    return draw(rest.split("/"), alt) if draw and rest else None


class Pictures(Treeprocessor):
    """Each ``tabula:`` image becomes its component, or its alt text."""

    def run(self, root: etree.Element) -> None:
        for parent in list(root.iter()):
            for index, img in reversed(list(enumerate(parent))):
                if img.tag != "img" or not img.get("src", "").startswith(SCHEME):
                    continue
                alt = img.get("alt", "")
                component = picture(img.get("src", ""), alt)
                if component is not None:
                    component.tail = img.tail
                    parent[index] = component
                    continue
                # Text in ElementTree lives in the previous sibling's tail, or the parent's text.
                words = alt + (img.tail or "")
                if index:
                    before = parent[index - 1]
                    before.tail = (before.tail or "") + words
                else:
                    parent.text = (parent.text or "") + words
                parent.remove(img)


class Sections(Treeprocessor):
    """The page's shape: the tagline is ``p.lead``, each H2 opens a section labelled by it, and
    the last section is the glossary."""

    def run(self, root: etree.Element) -> None:
        children = list(root)
        for child in children:
            root.remove(child)
        section: etree.Element | None = None
        after_title = False
        for child in children:
            if child.tag == "h2":
                section = etree.SubElement(root, "section")
                section.tail = "\n"
                if child.get("id"):
                    section.set("aria-labelledby", child.get("id", ""))
                section.text = "\n"
            elif child.tag == "p" and after_title and section is None:
                child.set("class", "lead")
            after_title = child.tag == "h1"
            (section if section is not None else root).append(child)
        if section is not None:
            section.set("class", "glossary")


class RulesPage(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        # After the inline patterns (20) have made the <img>s; the sections after the heading ids (toc, 5).
        md.treeprocessors.register(Pictures(md), "tabula-pictures", 15)
        md.treeprocessors.register(Sections(md), "tabula-sections", 4)


def render(text: str) -> str:
    """One page of Markdown as an HTML fragment (a new parser each time: it is not thread-safe)."""
    md = markdown.Markdown(
        extensions=["tables", "def_list", "toc", RulesPage()],
        extension_configs={"toc": {"slugify": slugify_unicode}},
        output_format="html",
    )
    return str(md.convert(text))


@cache
def rules_html(game: str, language: str) -> str:
    """A game's rules page in ``language`` as an HTML fragment (FileNotFoundError when there is none)."""
    if not GAME.fullmatch(game):
        raise FileNotFoundError(game)
    return render(languages.rules_markdown(game, language))
