"""Problem documents speak the caller's language (issue 33): ``title`` and ``detail`` are Polish or
Spanish when asked for, with ``Content-Language`` and ``Vary: Accept-Language``; ``type``, ``code``
and the names in ``errors`` never change; without the header the English text is what it always was.

The catalogues themselves (languages/locale/) are checked too: every msgid translated, nothing fuzzy, and the
compiled .mo files at least as new as their .po sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings

pytestmark = pytest.mark.django_db

#: What each language says for the three refusals below (title, detail).
EXPECTED = {
    "en": {
        "not_found": ("Not found", "No match 'nosuchmatch'."),
        "conflict": ("Conflict", "Cannot join: the match is active, not open."),
        "invalid": ("Invalid request", "Unknown game 'chess'; see GET /api/v1/games."),
        "field": "Unknown game.",
    },
    "pl": {
        "not_found": ("Nie znaleziono", "Nie ma partii 'nosuchmatch'."),
        "conflict": ("Konflikt", "Nie można dołączyć: partia jest w toku, a nie otwarta."),
        "invalid": ("Nieprawidłowe żądanie", "Nieznana gra 'chess'; zobacz GET /api/v1/games."),
        "field": "Nieznana gra.",
    },
    "es": {
        "not_found": ("No encontrado", "No existe la partida 'nosuchmatch'."),
        "conflict": ("Conflicto", "No puedes unirte: la partida está en curso, no abierta."),
        "invalid": ("Solicitud no válida", "Juego desconocido: 'chess'; consulta GET /api/v1/games."),
        "field": "Juego desconocido.",
    },
}


def _headers(language: str | None) -> dict[str, str]:
    return {} if language is None else {"Accept-Language": language}


def _member(make_user, name: str, language: str):
    user = make_user(name)
    user.language = language  # a member's answers speak their stored language
    user.save(update_fields=["language"])
    return user


def _refusals(language: str | None, make_user, api) -> dict[str, object]:
    """The three refusals, asked for in ``language`` (None: no Accept-Language, an English member)."""
    stored = language or "en"
    alice, bob, carol = (_member(make_user, n, stored) for n in ("alice", "bob", "carol"))
    headers = _headers(language)
    not_found = api().get("/api/v1/matches/nosuchmatch", headers=headers)
    created = api(alice).post("/api/v1/matches", {"game": "toy", "players": 2}, format="json")
    mid = created.json()["id"]
    assert api(bob).post(f"/api/v1/matches/{mid}/join", {}, format="json").status_code == 200
    conflict = api(carol).post(f"/api/v1/matches/{mid}/join", {}, format="json", headers=headers)
    invalid = api(alice).post("/api/v1/matches", {"game": "chess", "players": 2}, format="json", headers=headers)
    return {"not_found": not_found, "conflict": conflict, "invalid": invalid}


@pytest.mark.parametrize("language", ["pl", "es"])
def test_problems_speak_the_asked_language(language, toy_game, make_user, api):
    answers = _refusals(language, make_user, api)
    expected = EXPECTED[language]
    for name, status in (("not_found", 404), ("conflict", 409), ("invalid", 400)):
        response = answers[name]
        body = response.json()
        assert response.status_code == status, body
        assert (body["title"], body["detail"]) == expected[name]
        assert response["Content-Language"] == language
        assert "accept-language" in response["Vary"].lower()
    assert answers["invalid"].json()["errors"] == {"game": [expected["field"]]}


def test_without_a_header_the_english_is_unchanged(toy_game, make_user, api):
    answers = _refusals(None, make_user, api)
    for name in ("not_found", "conflict", "invalid"):
        body = answers[name].json()
        assert (body["title"], body["detail"]) == EXPECTED["en"][name]
        assert answers[name]["Content-Language"] == "en"
    assert answers["invalid"].json()["errors"] == {"game": ["Unknown game."]}


def test_codes_types_and_field_names_never_change_with_the_language(toy_game, make_user, api):
    seen: dict[str, set[tuple[str, str, int, tuple[str, ...]]]] = {}
    for i, language in enumerate((None, "pl", "es")):
        alice, bob, carol = (_member(make_user, f"{n}{i}", language or "en") for n in ("alice", "bob", "carol"))
        headers = _headers(language)
        created = api(alice).post("/api/v1/matches", {"game": "toy", "players": 2}, format="json").json()["id"]
        api(bob).post(f"/api/v1/matches/{created}/join", {}, format="json")
        answers = {
            "not_found": api().get("/api/v1/matches/nosuchmatch", headers=headers),
            "conflict": api(carol).post(f"/api/v1/matches/{created}/join", {}, format="json", headers=headers),
            "invalid": api(alice).post(
                "/api/v1/matches", {"game": "chess", "players": 2}, format="json", headers=headers
            ),
        }
        for name, response in answers.items():
            body = response.json()
            machine = (body["type"], body["code"], body["status"], tuple(sorted(body.get("errors", {}))))
            seen.setdefault(name, set()).add(machine)
    assert {name: len(kinds) for name, kinds in seen.items()} == {"not_found": 1, "conflict": 1, "invalid": 1}
    assert {next(iter(kinds))[1] for kinds in seen.values()} == {"not_found", "match_not_open", "invalid_request"}


@pytest.mark.parametrize(
    ("language", "detail"),
    [
        ("pl", "Parametry zapytania nie mogą zawierać NUL ani niesparowanych surogatów."),
        ("es", "Los parámetros de la consulta no pueden contener NUL ni sustitutos sin pareja."),
        (None, "Query parameters may not contain NUL or unpaired surrogates."),
    ],
)
def test_a_refusal_before_the_locale_middleware_speaks_the_accept_language(language, detail, api):
    """api.limits refuses a NUL in the query string before LocaleMiddleware has run: it looks the
    language up itself, and says so in the same headers."""
    response = api().get("/api/v1/games?q=%00", headers=_headers(language))
    body = response.json()
    assert (response.status_code, body["code"], body["detail"]) == (400, "malformed_request", detail)
    assert response["Content-Language"] == (language or "en")
    assert "accept-language" in response["Vary"].lower()


# --- the catalogues ---------------------------------------------------------------------------------

LOCALE = Path(settings.LOCALE_PATHS[0])


@pytest.mark.parametrize("language", ["pl", "es"])
def test_every_msgid_is_translated_and_none_is_fuzzy(language):
    po = LOCALE / language / "LC_MESSAGES" / "django.po"
    with po.open("rb") as handle:
        catalogue = read_po(handle, locale=language)
    messages = [m for m in catalogue if m.id]
    assert len(messages) > 100  # the platform's sentences, not an empty file
    untranslated = [m.id for m in messages if not m.string or (isinstance(m.string, tuple) and not all(m.string))]
    fuzzy = [m.id for m in messages if m.fuzzy]
    assert untranslated == []
    assert fuzzy == []
    assert "fuzzy" not in po.read_text(encoding="utf-8").split("\n\n", 1)[0]  # nor the header


def test_polish_has_its_three_plural_forms():
    po = LOCALE / "pl" / "LC_MESSAGES" / "django.po"
    with po.open("rb") as handle:
        catalogue = read_po(handle, locale="pl")
    assert catalogue.num_plurals == 3
    plurals = [m for m in catalogue if isinstance(m.id, tuple) and m.id[0]]
    assert plurals, "no plural message in the Polish catalogue"
    assert all(len(m.string) == 3 for m in plurals)


@pytest.mark.parametrize("language", ["pl", "es"])
def test_the_compiled_catalogue_says_what_its_source_says(language):
    """The .mo Django reads holds every translation of the .po (a clone's file times say nothing,
    so the two are compared by content): `make messages` compiles them after each change."""
    from babel.messages.mofile import read_mo
    from babel.messages.pofile import read_po

    folder = LOCALE / language / "LC_MESSAGES"
    po, mo = folder / "django.po", folder / "django.mo"
    assert mo.exists(), f"{mo} is missing: run make messages"
    with po.open("rb") as source, mo.open("rb") as compiled:

        def plain(value):
            return tuple(value) if isinstance(value, list | tuple) else value

        wanted = {plain(m.id): plain(m.string) for m in read_po(source) if m.id and not m.fuzzy}
        have = {plain(m.id): plain(m.string) for m in read_mo(compiled) if m.id}
    assert have == wanted, "the .mo differs from the .po: run make messages"
