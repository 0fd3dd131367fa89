"""The catalogues of Ekö and Ecos (issue 33): complete in every language, and in step with the engines and the client.

Everything the engines can say (refusal reasons, move types, effect kinds, Ecos' 96 cards) is read
from the engine source or its card table, and every key the client's describers use is read from
the JavaScript, so a new reason, move, effect, card or label without words fails here.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import languages
from rules.ecos.cards import CARDS

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("eko", "ecos")
ENGINE_FILES = {"eko": [ROOT / "rules" / "eko.py"], "ecos": sorted((ROOT / "rules" / "ecos").glob("*.py"))}
WEB = ROOT / "web" / "static" / "web"
CLIENT = {
    "eko": [WEB / "games" / "eko.js", WEB / "games" / "hex.js"],
    "ecos": [WEB / "games" / "ecos.js", WEB / "games" / "hex.js"],
}
# Keys used outside the describers: by the API (`reason.*`, rendered from a problem's params),
# by the lobby, the match page and the replay (`game.*`, `option.*`, `group.*`, `result.*`, `effect.*`).
ELSEWHERE = ("reason.", "game.", "option.", "group.", "result.", "effect.")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _raw(game: str, lang: str) -> dict[str, object]:
    with (languages.CATALOGUES / game / f"{lang}.json").open(encoding="utf-8") as f:
        data = json.load(f)
    assert isinstance(data, dict)
    return data


def _placeholders(message: object) -> set[str]:
    forms = message.values() if isinstance(message, dict) else [message]
    return {name for form in forms for name in PLACEHOLDER.findall(str(form))}


def _trees(game: str) -> list[ast.Module]:
    return [ast.parse(p.read_text(encoding="utf-8")) for p in ENGINE_FILES[game]]


def _returned_strings(trees: list[ast.Module], name: str) -> set[str]:
    """The string constants a function or method named ``name`` returns."""
    out: set[str] = set()
    for tree in trees:
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and fn.name == name:
                for node in ast.walk(fn):
                    value = node.value if isinstance(node, ast.Return) else None
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        out.add(value.value)
    return out


def _values(expr: ast.expr, trees: list[ast.Module]) -> set[str]:
    """Every string an expression assigned to a reason variable can hold."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _values(expr.body, trees) | _values(expr.orelse, trees)
    if isinstance(expr, ast.Call):
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name:
            return _returned_strings(trees, name)
    return set()


def _raise_sites(game: str) -> list[tuple[set[str], set[str]]]:
    """Each `IllegalMove(reason, …, **params)` in the engine: the reasons it can raise (a variable's
    possible values included) and the names of the params it passes."""
    trees = _trees(game)
    sites = []
    for tree in trees:
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                if node.func.id != "IllegalMove" or not node.args:
                    continue
                params = {kw.arg for kw in node.keywords if kw.arg}
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    sites.append(({first.value}, params))
                    continue
                assert isinstance(first, ast.Name), ast.dump(first)
                found: set[str] = set()
                for a in ast.walk(fn):
                    if isinstance(a, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == first.id for t in a.targets
                    ):
                        found |= _values(a.value, trees)
                assert found, f"cannot tell which reasons {first.id} holds in {fn.name}"
                sites.append((found, params))
    return sites


def _raised_reasons(game: str) -> set[str]:
    return {r for reasons, _ in _raise_sites(game) for r in reasons}


def _move_types(game: str) -> set[str]:
    """The `TYPE` of every move class (`TYPE: ClassVar[str] = "move"`)."""
    out = set()
    for tree in _trees(game):
        for node in ast.walk(tree):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "TYPE":
                assert isinstance(node.value, ast.Constant)
                out.add(node.value.value)
    return out


# Effect kinds the engines compute rather than write at the `emit` call.
COMPUTED_KINDS = {
    "eko": set(),
    "ecos": {
        "draft_picked",
        "active_picked",
        "draft_pick",
        "active_pick",
        "tile_added",
        "tile_flipped",
        "tile_converted",
        "mountain_added",
        "forest_added",
        "forest_removed",
        "animal_added",
        "animal_moved",
        "animal_removed",
    },
}


def _effect_kinds(game: str) -> set[str]:
    out = set(COMPUTED_KINDS[game])
    for tree in _trees(game):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    out.add(first.value)
    return out


KEY = r"[a-z][a-z0-9_]*(?:\.[a-z0-9_\-]+)+"


def _client_keys(game: str) -> tuple[set[str], set[str]]:
    """Literal keys and template-literal prefixes the client's describers of ``game`` use.

    A quoted string counts as a key when its first segment is one of the catalogue's namespaces,
    which separates `"move.construct.emperor"` (in a ternary) from CSS classes and move fields.
    """
    namespaces = {k.split(".")[0] for k in _raw(game, "en")}
    literals: set[str] = set()
    prefixes: set[str] = set()
    for path in CLIENT[game]:
        source = path.read_text(encoding="utf-8")
        for key in re.findall(rf'"({KEY})"', source):
            if key.split(".")[0] in namespaces:
                literals.add(key)
        prefixes.update(re.findall(r"`([a-z][a-z0-9_.]*\.)\$\{", source))
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
    for lang in ("pl", "es"):
        other = _raw(game, lang)
        wrong = {k: (_placeholders(v), _placeholders(other[k])) for k, v in english.items() if k in other}
        assert {k: v for k, v in wrong.items() if v[0] != v[1]} == {}
        # Every plural form carries the same placeholders as the others.
        for key, message in other.items():
            if isinstance(message, dict):
                forms = {frozenset(PLACEHOLDER.findall(f)) for f in message.values()}
                assert len(forms) == 1, (lang, key, message)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", languages.CODES)
def test_plural_messages_carry_the_languages_categories(game: str, lang: str) -> None:
    wanted = set(languages.plural_categories(lang))
    plurals = {k: v for k, v in _raw(game, lang).items() if isinstance(v, dict)}
    assert plurals, "a count is shown somewhere, so some message is plural"
    for key, message in plurals.items():
        assert set(message) == wanted, (key, sorted(message))
        assert "{count}" in message["other"], key
        assert all(isinstance(form, str) and form.strip() for form in message.values()), key


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ("pl", "es"))
def test_no_message_is_left_in_english(game: str, lang: str) -> None:
    english, other = _raw(game, "en"), _raw(game, lang)
    same = [
        k
        for k, v in other.items()
        if isinstance(v, str) and v == english[k] and re.search(r"[a-z]{4,}", PLACEHOLDER.sub("", v))
    ]
    # Words that are the same in the three languages (names, loanwords, shared terms).
    allowed = {
        "game.name",
        "expect.kamikaze",
        "effect.kamikaze_struck",
        "terrain.capital",
        "element.animal",
        "phase.draft",
        "option.cards.draft",
        "card.brn-15.name",
        "card.brn-46.name",
        "card.blu-35.name",
        "card.brn-28.name",
        "seat.dial",
    }
    assert [k for k in same if k not in allowed] == []


# --- in step with the engines ---------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_reason_the_engine_raises_has_words(game: str) -> None:
    reasons = _raised_reasons(game)
    # Reasons computed in a variable are found too (Ecos' answer checks return them).
    if game == "ecos":
        assert {"bad_move_source", "element_mismatch", "not_in_pack", "not_in_hand"} <= reasons
    else:
        assert {"too_weak", "emperor_must_come_first"} <= reasons
    for lang in languages.CODES:
        catalogue = _raw(game, lang)
        assert sorted(r for r in reasons if f"reason.{r}" not in catalogue) == [], lang
    # …and no reason the engine never raises.
    assert {k[len("reason.") :] for k in _raw(game, "en") if k.startswith("reason.")} == reasons


@pytest.mark.parametrize("game", GAMES)
def test_every_move_type_and_effect_kind_has_words(game: str) -> None:
    types = _move_types(game)
    kinds = _effect_kinds(game)
    assert len(types) >= 6 and len(kinds) >= 15
    for lang in languages.CODES:
        catalogue = _raw(game, lang)
        assert sorted(t for t in types if f"move.{t}" not in catalogue or f"group.{t}" not in catalogue) == []
        assert sorted(k for k in kinds if f"effect.{k}" not in catalogue) == []


def test_every_ecos_card_has_a_name_and_an_effect_text_in_every_language() -> None:
    assert len(CARDS) == 96
    for lang in languages.CODES:
        catalogue = _raw("ecos", lang)
        for card in CARDS:
            for part in ("name", "text"):
                message = catalogue.get(f"card.{card}.{part}")
                assert isinstance(message, str) and message.strip(), (lang, card, part)
        assert {k.split(".")[1] for k in catalogue if k.startswith("card.")} == set(CARDS)


def test_english_card_names_are_the_engines() -> None:
    english = _raw("ecos", "en")
    assert {c: english[f"card.{c}.name"] for c in CARDS} == {c: card.name for c, card in CARDS.items()}


def test_card_names_read_as_checked_by_hand() -> None:
    # The Spanish seed has the rules, not the card list (the engine's 96 cards are Tabula's own),
    # so these are our translations, checked against the card's theme by hand.
    spanish, polish = _raw("ecos", "es"), _raw("ecos", "pl")
    assert spanish["card.blu-01.name"] == "Sendas de elefantes"
    assert spanish["card.brn-28.name"] == "Oasis"
    assert spanish["card.brn-50.name"] == "Incendio forestal"
    assert polish["card.blu-14.name"] == "Okręty pustyni"
    assert (
        spanish["card.blu-18.text"]
        == "Retira 2 antílopes o conejos junto a un león. Gana 4 PV por cada animal retirado."
    )


def test_the_spanish_and_polish_words_follow_the_seeds() -> None:
    # Ecos' seed (Spanish) calls the draw's player the "Heraldo"; Ekö's (Polish) says wieś, wieża,
    # zamek, cesarz and pałac.
    assert _raw("ecos", "es")["board.harbinger"] == "Heraldo: {name}"
    eko_pl = _raw("eko", "pl")
    assert [eko_pl[f"building.{b}"] for b in ("camp", "tower", "castle")] == ["wieś", "wieża", "zamek"]
    assert eko_pl["piece.emperor"] == "cesarz"
    assert eko_pl["table.palace"] == "(pałac)"


# --- the params of a refusal ----------------------------------------------------------------


def test_a_polish_reason_is_filled_with_its_params() -> None:
    assert languages.text("ecos", "pl", "reason.wrong_card_count", count=3) == (
        "Wybierz 3 karty albo jedną kartę na ruch."
    )
    assert languages.text("ecos", "pl", "reason.wrong_card_count", count=5) == (
        "Wybierz 5 kart albo jedną kartę na ruch."
    )
    assert languages.text("ecos", "es", "reason.slot_filled", token=1) == (
        "La respuesta a la ficha 1 no es legal: ese espacio ya tiene un cubo."
    )


def test_the_engines_refusals_carry_the_params_their_words_need() -> None:
    import rules.eko as eko
    from rules.base import IllegalMove

    state, _ = eko.setup(eko.parse_config({"layout": "standard"}, 2), 7)
    # During the Emperor swap a reinforcement is out of phase.
    with pytest.raises(IllegalMove) as refused:
        eko.apply(state, 0, eko.Reinforce(stack="0,0", count=1, include_emperor=False))
    error = refused.value
    assert error.reason == "wrong_phase"
    assert error.params == {"move": "reinforce", "phase": "emperor_swap"}
    json.dumps(error.params)
    english = languages.text("eko", "en", f"reason.{error.reason}", **error.params)
    assert english == "No reinforce during emperor_swap."
    assert english.rstrip(".").lower() == str(error).lower()
    polish = languages.text("eko", "pl", f"reason.{error.reason}", **error.params)
    assert polish == "Ruch reinforce jest niedozwolony w fazie emperor_swap."


@pytest.mark.parametrize("game", GAMES)
def test_every_reason_message_uses_only_params_the_engine_passes(game: str) -> None:
    # A reason raised from several places gets only the params every one of them passes.
    passed: dict[str, set[str]] = {}
    for reasons, params in _raise_sites(game):
        for reason in reasons:
            passed[reason] = passed[reason] & params if reason in passed else set(params)
    for key, message in _raw(game, "en").items():
        if key.startswith("reason."):
            assert _placeholders(message) <= passed[key[len("reason.") :]], key
    # The params are what the message shows: a reason whose sites all pass params has placeholders.
    assert any(_placeholders(m) for k, m in _raw(game, "en").items() if k.startswith("reason."))


# --- in step with the client ----------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_key_the_client_uses_exists(game: str) -> None:
    literals, prefixes = _client_keys(game)
    assert len(literals) > 20 and prefixes
    for lang in languages.CODES:
        catalogue = _raw(game, lang)
        assert sorted(k for k in literals if k not in catalogue) == [], lang
        assert sorted(p for p in prefixes if not any(k.startswith(p) for k in catalogue)) == [], lang


@pytest.mark.parametrize("game", GAMES)
def test_every_key_is_used_by_a_client_or_the_api(game: str) -> None:
    literals, prefixes = _client_keys(game)
    unused = [
        k
        for k in _raw(game, "en")
        if k not in literals and not k.startswith(ELSEWHERE) and not any(k.startswith(p) for p in prefixes)
    ]
    assert unused == []


def test_the_describers_call_the_catalogue_only_inside_functions() -> None:
    # Catalogues load before the first render, not at import: a top-level call would read nothing.
    for path in (WEB / "games" / "eko.js", WEB / "games" / "ecos.js", WEB / "games" / "hex.js"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(("const ", "let ", "export const ")) and "=>" not in line:
                assert "gameT(" not in line and "T()(" not in line, (path.name, line)
