"""The catalogues of EKKO and Enka (issue 33): complete in every language, and in step with the engines and the client.

What the engines can say (refusal reasons, move types, effect kinds, draw and skip causes) is read
from the engine source with `ast`, and every key the client's describers use is read from the
JavaScript, so a new reason, move, effect or board label without words fails here.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import languages
from rules import ekko, enka
from rules.base import IllegalMove, RaceLost

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("ekko", "enka")
ENGINES = {"ekko": ROOT / "rules" / "ekko.py", "enka": ROOT / "rules" / "enka.py"}
CLIENT = {g: ROOT / "web" / "static" / "web" / "games" / f"{g}.js" for g in GAMES}
# The constructors of a refusal: Enka raises through its `_illegal` helper.
REFUSALS = {"IllegalMove", "_illegal"}
# Keys a client other than the describers needs: the API renders `reason.*` from a problem's params,
# the match page and the replay read `group.*`, `result.*`, `effect.*`, the lobby `game.*`, and a
# third-party client describes moves, events and components (`term.*`, `color.*`, `special.*`…).
ELSEWHERE = (
    "reason.",
    "move.",
    "event.",
    "game.",
    "group.",
    "result.",
    "effect.",
    "term.",
    "phase.",
    "special.",
    "color.",
    "direction.",
    "option.",  # the lobby's create form (app.js) reads them through a computed key
)
PLACEHOLDER = re.compile(r"\{(\w+)\}")
KEY = r"[a-z][a-z0-9_]*(?:\.[a-z0-9_\-]+)+"


def _raw(game: str, lang: str) -> dict[str, object]:
    with (languages.CATALOGUES / game / f"{lang}.json").open(encoding="utf-8") as f:
        data = json.load(f)
    assert isinstance(data, dict)
    return data


def _placeholders(message: object) -> set[str]:
    forms = message.values() if isinstance(message, dict) else [message]
    return {name for form in forms for name in PLACEHOLDER.findall(str(form))}


def _tree(game: str) -> ast.Module:
    return ast.parse(ENGINES[game].read_text(encoding="utf-8"))


def _strings(expr: ast.expr | None) -> set[str]:
    """The string constants an expression can evaluate to (a constant or a conditional of them)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _strings(expr.body) | _strings(expr.orelse)
    return set()


def _returned(tree: ast.Module, name: str) -> set[str]:
    out: set[str] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == name:
            for node in ast.walk(fn):
                if isinstance(node, ast.Return):
                    out |= _strings(node.value)
    return out


def _values_of(tree: ast.Module, fn: ast.FunctionDef, variable: str) -> set[str]:
    """Every string ``variable`` can hold in ``fn``: its assignments, constants or calls' returns."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == variable for t in node.targets):
            value = node.value
            out |= _strings(value)
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                out |= _returned(tree, value.func.id)
    return out


def _reasons_of(tree: ast.Module, fn: ast.FunctionDef, first: ast.expr) -> set[str]:
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return {first.value}
    assert isinstance(first, ast.JoinedStr), ast.dump(first)
    # f"must_play_{direction}": one reason per value the variable can take.
    found = {""}
    for part in first.values:
        if isinstance(part, ast.Constant):
            found = {f + str(part.value) for f in found}
        else:
            assert isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name)
            values = _values_of(tree, fn, part.value.id)
            assert values, f"cannot tell which values {part.value.id} holds in {fn.name}"
            found = {f + v for f in found for v in values}
    return found


def _raise_sites(game: str) -> list[tuple[set[str], set[str]]]:
    """Each refusal the engine builds: the reasons it can carry and the names of its params.

    Refusals are `IllegalMove` (or Enka's `_illegal`), and a `RaceLost` that names a reason."""
    tree = _tree(game)
    sites = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or fn.name == "_illegal":
            continue
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id in REFUSALS and node.args:
                params = {kw.arg for kw in node.keywords if kw.arg}
                sites.append((_reasons_of(tree, fn, node.args[0]), params))
            elif node.func.id == "RaceLost":
                keywords = {kw.arg: kw.value for kw in node.keywords}
                if "reason" in keywords:
                    given = keywords.get("params")
                    names = {str(k.value) for k in given.keys if isinstance(k, ast.Constant)} if given else set()
                    assert isinstance(given, ast.Dict) or given is None
                    sites.append((_strings(keywords["reason"]), names))
    return sites


def _raised_reasons(game: str) -> set[str]:
    return {r for reasons, _ in _raise_sites(game) for r in reasons}


def _move_types(game: str) -> set[str]:
    out = set()
    for node in ast.walk(_tree(game)):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "TYPE":
            out |= _strings(node.value)
    return out


def _effect_kinds(game: str) -> set[str]:
    """Kinds named at an `emit` call or an `Effect(...)` the engine builds itself."""
    out = set()
    for node in ast.walk(_tree(game)):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == "emit") or (
            isinstance(func, ast.Name) and func.id == "Effect"
        ):
            out |= _strings(node.args[0])
    return out


def _causes(game: str, kind: str) -> set[str]:
    """The constant ``cause`` values of the `kind` effects the engine emits."""
    out = set()
    for node in ast.walk(_tree(game)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit"):
            continue
        if len(node.args) < 2 or _strings(node.args[0]) != {kind} or not isinstance(node.args[1], ast.Dict):
            continue
        for k, v in zip(node.args[1].keys, node.args[1].values, strict=True):
            if isinstance(k, ast.Constant) and k.value == "cause":
                out |= _strings(v)
    return out


def _draw_causes(game: str) -> set[str]:
    """The causes the engine passes to its draw helpers (`_draw`/`_take`, last argument)."""
    out = set()
    for node in ast.walk(_tree(game)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_draw", "_take"):
            out |= _strings(node.args[-1]) if node.args else set()
    return out


def _client_keys(game: str) -> tuple[set[str], set[str]]:
    """Literal keys and template-literal prefixes the describers of ``game`` use."""
    namespaces = {k.split(".")[0] for k in _raw(game, "en")}
    source = CLIENT[game].read_text(encoding="utf-8")
    literals = {k for k in re.findall(rf'"({KEY})"', source) if k.split(".")[0] in namespaces}
    prefixes = set(re.findall(r"`([a-z][a-z0-9_.]*\.)\$\{", source))
    return literals, {p for p in prefixes if p.split(".")[0] in namespaces}


# --- completeness ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_language_has_the_same_keys(game: str) -> None:
    english = set(_raw(game, "en"))
    assert len(english) > 100
    for lang in ("pl", "es"):
        other = set(_raw(game, lang))
        assert other == english, (lang, sorted(english - other), sorted(other - english))


@pytest.mark.parametrize("game", GAMES)
def test_every_key_has_the_same_placeholders_in_every_language(game: str) -> None:
    english = _raw(game, "en")
    for lang in languages.CODES:
        other = _raw(game, lang)
        wrong = {
            k: sorted(_placeholders(other[k]))
            for k, v in english.items()
            if _placeholders(v) != _placeholders(other[k])
        }
        assert wrong == {}, lang
        for key, message in other.items():
            if isinstance(message, dict):  # every plural form says the same things
                forms = {frozenset(PLACEHOLDER.findall(f)) for f in message.values()}
                assert len(forms) == 1, (lang, key, message)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", languages.CODES)
def test_plural_messages_carry_the_languages_categories(game: str, lang: str) -> None:
    wanted = set(languages.plural_categories(lang))
    english = _raw(game, "en")
    catalogue = _raw(game, lang)
    plurals = {k: v for k, v in catalogue.items() if isinstance(v, dict)}
    assert len(plurals) >= 5, "counts are shown: cards in hand, in the pile, drawn"
    # A message is plural in every language or in none.
    assert set(plurals) == {k for k, v in english.items() if isinstance(v, dict)}
    for key, message in plurals.items():
        assert set(message) == wanted, (key, sorted(message))
        assert all(isinstance(form, str) and form.strip() for form in message.values()), key


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ("pl", "es"))
def test_no_message_is_left_in_english(game: str, lang: str) -> None:
    english, other = _raw(game, "en"), _raw(game, lang)
    same = [
        k
        for k, v in other.items()
        if isinstance(v, str) and v == english[k] and re.search(r"[a-zA-Z]{3,}", PLACEHOLDER.sub("", v))
    ]
    # The games' names, and Spanish "total", which is the English word.
    allowed = {"game.name", "board.col.total", "board.total"}
    assert [k for k in same if k not in allowed] == []


# --- in step with the engines ---------------------------------------------------------------


def test_the_reasons_are_read_from_the_engines() -> None:
    # The parser finds the computed reasons too (EKKO's must_play_{direction}, Enka's `_illegal`).
    assert {"must_play_higher", "must_play_lower", "not_the_mirror", "race_lost"} <= _raised_reasons("ekko")
    assert {"jump_in_on_wild", "color_required", "wrong_phase"} <= _raised_reasons("enka")


@pytest.mark.parametrize("game", GAMES)
def test_every_reason_the_engine_raises_has_words_and_no_other(game: str) -> None:
    reasons = _raised_reasons(game)
    for lang in languages.CODES:
        catalogue = _raw(game, lang)
        assert sorted(r for r in reasons if f"reason.{r}" not in catalogue) == [], lang
    assert {k.removeprefix("reason.") for k in _raw(game, "en") if k.startswith("reason.")} == reasons


@pytest.mark.parametrize("game", GAMES)
def test_every_reason_message_uses_only_params_every_site_passes(game: str) -> None:
    passed: dict[str, set[str]] = {}
    for reasons, params in _raise_sites(game):
        for reason in reasons:
            passed[reason] = passed[reason] & params if reason in passed else set(params)
    for key, message in _raw(game, "en").items():
        if key.startswith("reason."):
            assert _placeholders(message) <= passed[key.removeprefix("reason.")], key


@pytest.mark.parametrize("game", GAMES)
def test_every_move_type_has_words(game: str) -> None:
    types = _move_types(game)
    assert types == (
        {"play", "draw", "mirror", "pass"} if game == "ekko" else {"play", "draw", "play_drawn", "keep", "jump_in"}
    )
    for lang in languages.CODES:
        catalogue = _raw(game, lang)
        assert sorted(t for t in types if f"move.{t}" not in catalogue or f"group.{t}" not in catalogue) == []


@pytest.mark.parametrize("game", GAMES)
def test_every_effect_kind_and_cause_has_words(game: str) -> None:
    kinds = _effect_kinds(game)
    assert len(kinds) >= 12
    english = _raw(game, "en")
    for kind in kinds:
        assert f"effect.{kind}" in english, kind
        assert f"event.{kind}" in english or any(k.startswith(f"event.{kind}.") for k in english), kind
    draws = _draw_causes(game)
    skips = _causes(game, "skipped")
    assert draws and skips
    assert sorted(c for c in draws if f"event.drew.{c}" not in english) == []
    assert sorted(c for c in skips if f"event.skipped.{c}" not in english) == []


def test_enka_names_every_card_colour_and_special() -> None:
    for lang in languages.CODES:
        catalogue = _raw("enka", lang)
        for colour in enka.COLORS:
            assert f"color.{colour}" in catalogue and f"card.color.{colour}" in catalogue
        for rank in ("stop", "back", "take2", "take5"):
            assert f"card.rank.{rank}" in catalogue and f"special.{rank}" in catalogue
        for wild in enka.WILDS:
            assert f"card.{wild}" in catalogue
    polish = _raw("enka", "pl")
    assert polish["card.wild-take4"] == "WEŹ 4 I WYBIERZ KOLOR"  # the words of the Polish rules page
    assert _raw("enka", "es")["card.rank.back"] == "CAMBIO DE SENTIDO {color}"


# --- the params of a refusal ----------------------------------------------------------------


def _ekko_state(hands: list[list[int]], start: int, **options: object) -> ekko.State:
    setup = {"dealer": 0, "hands": hands, "start": start}
    return ekko.setup(ekko.parse_config({**options, "setup": setup}, len(hands)), 7)[0]


def _refusal(call) -> IllegalMove:
    with pytest.raises(IllegalMove) as refused:
        call()
    json.dumps(refused.value.params)  # what travels in a problem document
    return refused.value


def test_a_polish_reason_is_polish_and_names_the_card() -> None:
    polish = languages.text("ekko", "pl", "reason.card_not_in_hand", card=37)
    english = languages.text("ekko", "en", "reason.card_not_in_hand", card=37)
    assert polish is not None and "37" in polish and polish != english
    assert "ręce" in polish  # "…nie ma w twojej ręce"
    assert "37" in (languages.text("ekko", "es", "reason.card_not_in_hand", card=37) or "")


def test_ekkos_refusals_carry_the_values_their_words_show() -> None:
    # Seat 1 holds 40 and 12; 37 is odd, so the next card must be higher.
    state = _ekko_state([[73, 20], [40, 12]], 37)
    assert state.current == 1
    cases = [
        (lambda: ekko.apply(state, 1, ekko.Play(20)), "card_not_in_hand", {"card": 20}),
        (lambda: ekko.apply(state, 1, ekko.Play(12)), "must_play_higher", {"top": 37}),
        (lambda: ekko.apply(state, 0, ekko.Mirror(50, 37, "others_draw")), "card_not_in_hand", {"card": 50}),
        (lambda: ekko.apply(state, 1, ekko.Mirror(73, 37, "others_draw")), "card_not_in_hand", {"card": 73}),
    ]
    for call, reason, params in cases:
        error = _refusal(call)
        assert (error.reason, error.params) == (reason, params)
        english = languages.text("ekko", "en", f"reason.{error.reason}", **error.params)
        assert english is not None and english.rstrip(".").lower() == error.message.lower()
    with pytest.raises(RaceLost) as lost:
        ekko.apply(state, 0, ekko.Mirror(73, 38, "others_draw"))
    said = languages.text("ekko", "en", f"reason.{lost.value.reason}", **lost.value.params)
    assert said is not None and said.rstrip(".") == lost.value.message


def test_a_mirror_refusal_shows_only_public_numbers_and_the_movers_card() -> None:
    state = _ekko_state([[20, 12], [40, 50]], 37)
    error = _refusal(lambda: ekko.apply(state, 0, ekko.Mirror(20, 37, "discard", 12)))
    assert error.reason == "not_the_mirror" and error.params == {"top": 37, "mirror": 73, "card": 20}
    english = languages.text("ekko", "en", "reason.not_the_mirror", **error.params)
    assert english == "The mirror of 37 is 73, not 20."
    assert languages.text("ekko", "es", "reason.not_the_mirror", **error.params) == "El espejo de 37 es 73, no 20."


def test_enkas_refusals_carry_the_movers_card() -> None:
    setup = {"dealer": 0, "hands": [["red-3", "blue-9"], ["green-1", "green-2"]], "start": "red-5"}
    state = enka.setup(enka.parse_config({"setup": setup}, 2), 1)[0]
    assert state.current == 1
    error = _refusal(lambda: enka.apply(state, 1, enka.Play("yellow-4")))
    assert (error.reason, error.params) == ("card_not_in_hand", {"card": "yellow-4"})
    error = _refusal(lambda: enka.apply(state, 1, enka.Play("green-1")))
    assert (error.reason, error.params) == ("card_does_not_match", {"card": "green-1"})
    english = languages.text("enka", "en", f"reason.{error.reason}", **error.params)
    assert english is not None and english.rstrip(".").lower() == error.message.lower()
    assert languages.text("enka", "pl", f"reason.{error.reason}") == (
        "Ta karta nie pasuje ani kolorem, ani do wierzchniej karty."
    )


@pytest.mark.parametrize(
    ("count", "polish", "spanish"),
    [(1, "1 karta", "1 carta"), (2, "2 karty", "2 cartas"), (5, "5 kart", "5 cartas"), (22, "22 karty", "22 cartas")],
)
def test_polish_and_spanish_plurals_pick_their_form(count: int, polish: str, spanish: str) -> None:
    assert languages.text("ekko", "pl", "board.draw_pile.label", count=count) == f"Stos do dobierania: {polish}"
    assert languages.text("ekko", "es", "board.draw_pile.label", count=count) == f"Mazo de robo: {spanish}"
    assert languages.text("enka", "pl", "term.cards", count=count) == polish
    drew = languages.text("enka", "pl", "event.drew.turn", player="ola", count=count)
    assert drew == f"ola dobiera {polish.replace('karta', 'kartę')}."


# --- in step with the client ----------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_key_the_client_uses_exists(game: str) -> None:
    literals, prefixes = _client_keys(game)
    assert len(literals) > 30 and len(prefixes) >= 3
    for lang in languages.CODES:
        catalogue = _raw(game, lang)
        assert sorted(k for k in literals if k not in catalogue) == [], lang
        assert sorted(p for p in prefixes if not any(k.startswith(p) for k in catalogue)) == [], lang


@pytest.mark.parametrize("game", GAMES)
def test_every_key_is_used_by_the_client_or_belongs_to_what_other_clients_need(game: str) -> None:
    literals, prefixes = _client_keys(game)
    unused = [
        k
        for k in _raw(game, "en")
        if k not in literals and not k.startswith(ELSEWHERE) and not any(k.startswith(p) for p in prefixes)
    ]
    assert unused == []


@pytest.mark.parametrize("game", GAMES)
def test_the_describers_speak_only_through_the_catalogue(game: str) -> None:
    source = CLIENT[game].read_text(encoding="utf-8")
    # Catalogues load before the first render, not at import: a top-level call would read nothing.
    for line in source.splitlines():
        if line.startswith(("const ", "let ", "export const ")) and "=>" not in line:
            assert "gameT(" not in line and "T()(" not in line, line
    # No English sentence is left in a template or a string the page shows.
    assert not re.search(r"`[A-Z][a-z]+ [a-z]+", source), "a hard-coded sentence in a template literal"
    assert not re.search(r'return "[A-Z][a-z]+ ', source), "a hard-coded sentence returned"
