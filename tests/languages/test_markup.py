"""The rules pages (issue 33): every page renders in every language, its pictures are the board's
components, and the Polish and Spanish pages keep the English page's shape and pictures."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

import languages
from languages import markup

REQUIRED = ("ekko", "enka")
GAMES = sorted({p.name.split(".")[0] for p in languages.RULES.glob("*.en.md")} | set(REQUIRED))
PAGES = [(game, code) for game in GAMES for code in languages.CODES]
TRANSLATIONS = [(game, code) for game in GAMES for code in languages.CODES if code != languages.DEFAULT]
PICTURE = re.compile(r"!\[[^\]]*\]\((tabula:[^)\s]+)\)")


class Tags(HTMLParser):
    """The start tags of a fragment with their attributes, and the text inside each class."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.texts: dict[str, list[str]] = {}
        self.open: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.tags.append((tag, attributes))
        self.open.append(attributes.get("class", "").split())

    def handle_endtag(self, tag: str) -> None:
        if self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        for classes in self.open:
            for cls in classes:
                self.texts.setdefault(cls, []).append(data)


def parse(fragment: str) -> Tags:
    tags = Tags()
    tags.feed(fragment)
    return tags


def test_ekko_and_enka_have_their_pages_in_every_language():
    for game in REQUIRED:
        for code in languages.CODES:
            assert (languages.RULES / f"{game}.{code}.md").exists(), (game, code)


@pytest.mark.parametrize(("game", "code"), PAGES)
def test_every_page_renders(game, code):
    page = markup.rules_html(game, code)
    tags = parse(page)
    names = [tag for tag, _ in tags.tags]
    assert names.count("h1") == 1 and names.count("h2") >= 4, names
    assert 'class="lead"' in page
    sections = [a for tag, a in tags.tags if tag == "section"]
    assert sections[-1].get("class") == "glossary"
    ids = {a["id"] for tag, a in tags.tags if tag == "h2"}
    assert {s["aria-labelledby"] for s in sections} == ids
    assert "tabula:" not in page  # every picture became a component
    assert markup.rules_html(game, code) is page  # cached


def test_pictures_are_the_boards_components():
    page = markup.render(
        "![card 37](tabula:ekko-card/37) ![card 5](tabula:ekko-card/5) ![card 44](tabula:ekko-card/44) "
        "![red 7](tabula:enka-card/red/7) ![green STOP](tabula:enka-card/green/stop) "
        "![TAKE 4](tabula:enka-card/wild-take4) ![sun](tabula:ecos-element/sun)"
    )
    tags = parse(page)
    classes = [a.get("class", "") for _, a in tags.tags]
    assert tags.texts["num"] == ["37", "05", "44"]
    assert tags.texts["par"] == ["▲", "▲", "▼"]
    ekko = [a for _, a in tags.tags if "ekko-card" in a.get("class", "")]
    # A card and its mirror share a hue (games/ekko.js pairHue); the multiples of 11 are gold instead.
    assert ekko[0]["style"] == f"--hue:{37 * 137 % 360}" and ekko[1]["style"] == f"--hue:{5 * 137 % 360}"
    assert "eleven" in ekko[2]["class"] and "style" not in ekko[2]
    assert ekko[0]["aria-label"] == "card 37" and ekko[0]["role"] == "img"
    assert "enka-card red small" in classes and "enka-card green small" in classes and "enka-card wild small" in classes
    assert tags.texts["face"] == ["7", "⊘", "+4"]
    assert "ecos-element" in classes and tags.texts["ecos-element"] == ["☀ sun"]


def test_a_mirror_shares_its_cards_hue():
    card, mirror = (parse(markup.render(f"![x](tabula:ekko-card/{n})")).tags[1][1] for n in (37, 73))
    assert card["style"] == mirror["style"]


@pytest.mark.parametrize(
    "src",
    [
        "tabula:chess-piece/king",
        "tabula:ekko-card/99",
        "tabula:ekko-card/x",
        "tabula:ekko-card",
        "tabula:enka-card/purple/7",
        "tabula:enka-card/red/11",
        "tabula:ecos-element/ice",
    ],
)
def test_an_unknown_picture_is_its_alt_text(src):
    page = markup.render(f"Before ![the alt words]({src}) after.")
    assert page == "<p>Before the alt words after.</p>"


def test_an_unknown_picture_first_in_its_paragraph():
    assert markup.render("![alt](tabula:nothing/1) then ![37](tabula:ekko-card/37)").startswith("<p>alt then <span")


def test_a_picture_in_a_definition_term():
    page = markup.render("![card 44](tabula:ekko-card/44) Multiples of 11\n:   Play again.\n")
    assert re.search(r'<dt><span [^>]*class="ekko-card eleven small".*</span> Multiples of 11</dt>', page), page


@pytest.mark.parametrize("language", ["de", "", "english", "xx-YY"])
def test_an_unknown_language_raises(language):
    with pytest.raises(FileNotFoundError):
        markup.rules_html("ekko", language)


@pytest.mark.parametrize("game", ["chess", "../ekko", "ekko.en", "EKKO/.."])
def test_an_unknown_game_raises(game):
    with pytest.raises(FileNotFoundError):
        markup.rules_html(game, "en")


def test_a_language_tag_reads_its_language():
    assert markup.rules_html("ekko", "pl-PL") == markup.rules_html("ekko", "pl")


@pytest.mark.parametrize("game", GAMES)
def test_the_polish_and_spanish_pages_are_in_their_languages(game):
    polish, english = markup.rules_html(game, "pl"), markup.rules_html(game, "en")
    assert polish != english
    assert re.search("[ąćęłńóśźż]", polish), game
    assert re.search("[áéíóúñ¿¡]", markup.rules_html(game, "es")), game


@pytest.mark.parametrize(("game", "code"), TRANSLATIONS)
def test_a_translation_keeps_the_english_pages_shape_and_pictures(game, code):
    english, translated = languages.rules_markdown(game, "en"), languages.rules_markdown(game, code)
    assert translated != english

    def h2(text: str) -> int:
        return len(re.findall(r"^## ", text, flags=re.MULTILINE))

    def terms(text: str) -> int:
        return len(re.findall(r"^:   ", text, flags=re.MULTILINE))

    assert h2(translated) == h2(english), (game, code)
    assert terms(translated) == terms(english), (game, code)
    assert PICTURE.findall(translated) == PICTURE.findall(english), (game, code)
    rendered = parse(markup.rules_html(game, code))
    assert sum(tag == "h2" for tag, _ in rendered.tags) == h2(english)
