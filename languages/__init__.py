"""The languages Tabula speaks (issue 33): English, Polish and Spanish.

Two kinds of text, two tools. The platform's own sentences (problem documents, mails, push titles,
webhook lines) are gettext messages in ``languages/locale/`` under Django's i18n, chosen per request by
``LocaleMiddleware`` and, for what is sent without a request, by the recipient's stored language
(`speaking`). Each game's words (moves, effects, components, refusal reasons) are a catalogue of
its own, ``languages/catalogues/<game>/<lang>.json``, served to every client by ``GET
games/{game}/i18n/{lang}`` so that a log is rendered from codes alone; the web client reads the
same files. Their format: a key maps to a string with ``{name}`` placeholders, or to an object of
CLDR plural categories (``one``, ``few``, ``many``, ``other``…) chosen by the ``count`` parameter.
The rules pages are Markdown, ``languages/rules/<game>.<lang>.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from django.utils import translation

CODES: tuple[str, ...] = ("en", "pl", "es")
DEFAULT = "en"
NAMES = {"en": "English", "pl": "Polski", "es": "Español"}
HERE = Path(__file__).resolve().parent
CATALOGUES = HERE / "catalogues"
RULES = HERE / "rules"


def normalize(tag: object) -> str | None:
    """``"pl-PL"`` → ``"pl"``; None for anything not one of ours."""
    if not isinstance(tag, str):
        return None
    base = tag.strip().lower().replace("_", "-").split("-")[0]
    return base if base in CODES else None


def best(tags: Iterable[str]) -> str:
    """The first of ours among ``tags`` (in preference order), else English."""
    for tag in tags:
        code = normalize(tag)
        if code:
            return code
    return DEFAULT


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Render what is sent without a request (a mail, a push, a webhook line) in ``language``."""
    code = normalize(language) or DEFAULT
    with translation.override(code):
        yield code


@cache
def _plural(language: str) -> Any:
    return Locale.parse(language).plural_form


def plural_category(language: str, n: float) -> str:
    """CLDR's category of ``n`` in ``language``: ``1`` is ``one``; Polish ``3`` is ``few``, ``5`` ``many``."""
    return str(_plural(normalize(language) or DEFAULT)(n))


_ORDER = ("zero", "one", "two", "few", "many", "other")


def plural_categories(language: str) -> list[str]:
    """The CLDR plural categories ``language`` uses: English one/other, Polish one/few/many/other,
    Spanish one/many/other (``many`` for whole millions)."""
    tags = set(_plural(normalize(language) or DEFAULT).tags) | {"other"}
    return [c for c in _ORDER if c in tags]


@cache
def catalogue(game: str, language: str) -> Mapping[str, Any]:
    """A game's words in ``language`` (raises FileNotFoundError for a game or language we lack)."""
    if normalize(language) != language:
        raise FileNotFoundError(language)
    path = CATALOGUES / game / f"{language}.json"
    with path.open(encoding="utf-8") as source:
        data = json.load(source)
    assert isinstance(data, dict)
    return data


def games_with_catalogues() -> list[str]:
    return sorted(p.name for p in CATALOGUES.iterdir() if p.is_dir() and (p / f"{DEFAULT}.json").exists())


def fill(message: Any, language: str, params: Mapping[str, Any]) -> str | None:
    """One message with its parameters: a plural message takes its form by ``params["count"]``."""
    if isinstance(message, dict):
        count = params.get("count", 0)
        category = plural_category(language, count if isinstance(count, int | float) else 0)
        message = message.get(category, message.get("other"))
    if not isinstance(message, str):
        return None
    out = message
    for name, value in params.items():
        out = out.replace("{" + name + "}", str(value))
    return out


def text(game: str, language: str, key: str, **params: Any) -> str | None:
    """A game's message for ``key`` in ``language`` (English beneath it); None when no catalogue has it."""
    for code in dict.fromkeys((normalize(language) or DEFAULT, DEFAULT)):
        try:
            message = catalogue(game, code).get(key)
        except FileNotFoundError:
            continue
        filled = fill(message, code, params)
        if filled is not None:
            return filled
    return None


def rules_markdown(game: str, language: str) -> str:
    """A game's rules page in ``language`` (Markdown; raises FileNotFoundError when there is none)."""
    code = normalize(language)
    if code is None:
        raise FileNotFoundError(language)
    return (RULES / f"{game}.{code}.md").read_text(encoding="utf-8")
