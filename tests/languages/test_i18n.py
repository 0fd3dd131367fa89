"""Issue 33: what each person reads is in their language, and nothing a program reads changes.

A member's answers speak their stored language, a visitor's their Accept-Language; what is sent
without a request (the digest, a push title, a webhook line) speaks the recipient's. Codes, types,
``reason`` and ``params`` never change with the language, nor does a state's body or ETag.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail as outbox
from django.utils import timezone, translation

import languages
from accounts.models import User
from games.models import Match
from notify import mail, push, webhooks
from notify.models import Notification, Webhook

pytestmark = pytest.mark.django_db


def said(language: str, msgid: str) -> str:
    """The catalogue's words for ``msgid`` in ``language``, asserted to be a translation."""
    with translation.override(language):
        text = translation.gettext(msgid)
    assert text != msgid, f"{msgid!r} has no {language} translation"
    return text


def polish(make_user, name: str = "ola") -> User:
    user = make_user(name)
    user.language = "pl"
    user.email = f"{name}@example.com"
    user.save()
    return user


# --- the preference ---------------------------------------------------------------------------------


def test_sign_up_takes_the_browsers_language_unless_one_is_given(client):
    def register(name, headers=None, **extra):
        body = {"username": name, "password": "correct-horse-9", **extra}
        return client.post("/api/v1/auth/register", body, content_type="application/json", headers=headers or {})

    assert register("ola", {"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"}).status_code == 201
    assert register("eva", {"Accept-Language": "de-DE, es;q=0.8"}).status_code == 201
    assert register("kim", {"Accept-Language": "de-DE"}).status_code == 201
    assert register("ana", {"Accept-Language": "pl"}, language="es").status_code == 201
    got = dict(User.objects.filter(username__in=["ola", "eva", "kim", "ana"]).values_list("username", "language"))
    assert got == {"ola": "pl", "eva": "es", "kim": "en", "ana": "es"}
    refused = register("bob", language="de")
    assert refused.status_code == 400 and "language" in refused.json()["errors"]
    assert not User.objects.filter(username="bob").exists()


def test_patch_me_changes_the_language_and_refuses_others(make_user, api):
    ann = make_user("ann")
    client = api(ann)
    assert client.get("/api/v1/me").json()["language"] == "en"
    answer = client.patch("/api/v1/me", {"language": "pl"}, format="json")
    assert answer.status_code == 200 and answer.json()["language"] == "pl"
    assert answer["Content-Language"] == "pl"  # the answer to the change already speaks it
    refused = client.patch("/api/v1/me", {"language": "klingon"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_request"
    ann.refresh_from_db()
    assert ann.language == "pl"


# --- problem documents ------------------------------------------------------------------------------


def test_a_members_problems_speak_their_language_whatever_the_header(make_user, api):
    ola = polish(make_user)
    answer = api(ola).get("/api/v1/matches/nosuchmatch1", HTTP_ACCEPT_LANGUAGE="es")
    body = answer.json()
    assert answer.status_code == 404 and answer["Content-Language"] == "pl"
    assert body["code"] == "not_found" and body["type"].endswith("/not_found")
    assert body["title"] == said("pl", "Not found")


def test_a_visitors_problems_speak_accept_language(client):
    answers = {
        lang: client.get("/api/v1/matches/nosuchmatch1", headers={"Accept-Language": lang})
        for lang in ("en", "pl", "es")
    }
    for lang, answer in answers.items():
        assert answer.status_code == 404 and answer["Content-Language"] == lang
        assert "Accept-Language" in answer["Vary"]
    bodies = {lang: a.json() for lang, a in answers.items()}
    assert bodies["en"]["title"] == "Not found"
    assert bodies["pl"]["title"] == said("pl", "Not found") and bodies["es"]["title"] == said("es", "Not found")
    assert len({b["detail"] for b in bodies.values()}) == 3  # the detail is said three ways
    assert {b["code"] for b in bodies.values()} == {"not_found"} and {b["type"] for b in bodies.values()} == {
        bodies["en"]["type"]
    }


def _ekko(api, users, hands):
    setup = {"dealer": 0, "hands": hands, "start": 37}
    clients = [api(u) for u in users]
    made = clients[0].post(
        "/api/v1/matches", {"game": "ekko", "players": len(hands), "options": {"setup": setup}}, format="json"
    )
    assert made.status_code == 201, made.json()
    mid = made.json()["id"]
    for c in clients[1:]:
        assert c.post(f"/api/v1/matches/{mid}/join").status_code == 200
    return mid, clients


def test_an_illegal_move_keeps_its_reason_and_params_and_says_them_in_the_callers_language(make_user, api):
    ann, ola = make_user("ann"), polish(make_user)
    mid, (_, ola_client) = _ekko(api, [ann, ola], [[73, 20], [40, 50]])
    move = {"move": {"type": "play", "card": 20}, "expected_version": Match.objects.get(id=mid).version}
    refused = ola_client.post(f"/api/v1/matches/{mid}/moves", move, format="json")
    body = refused.json()
    assert refused.status_code == 422 and body["code"] == "illegal_move"
    assert body["reason"] == "card_not_in_hand" and body["params"] == {"card": 20}
    expected = languages.text("ekko", "pl", "reason.card_not_in_hand", card=20)
    assert expected and body["detail"].lower() == expected.lower() and "20" in body["detail"]
    english = languages.text("ekko", "en", "reason.card_not_in_hand", card=20)
    assert body["detail"].lower() != english.lower()
    assert body["title"] == said("pl", "Illegal move")


def test_a_state_is_the_same_in_every_language(make_user, api):
    ann, ola = make_user("ann"), make_user("ola")
    mid, (ann_client, _) = _ekko(api, [ann, ola], [[73, 20], [40, 50]])
    answers = [ann_client.get(f"/api/v1/matches/{mid}/state", HTTP_ACCEPT_LANGUAGE=lang) for lang in ("en", "pl", "es")]
    assert len({a.content for a in answers}) == 1
    assert len({a["ETag"] for a in answers}) == 1


# --- what is sent without a request -----------------------------------------------------------------


def _note(user, type="your_turn", game="enka"):
    seq = Notification.objects.filter(user=user).count() + 1
    return Notification.objects.create(user=user, seq=seq, type=type, match_id=None, payload={"game": game})


def test_a_push_title_speaks_the_recipients_language(make_user):
    ola, ann = polish(make_user), make_user("ann")
    assert push.payload(_note(ola))["title"] == said("pl", "Your turn")
    assert push.payload(_note(ann))["title"] == "Your turn"
    assert set(push.payload(_note(ola))) == {"type", "match", "n", "title"}  # still no game content


def test_a_webhook_line_speaks_the_owners_language(make_user):
    ola = polish(make_user)
    data = {"id": 3, "type": "your_turn", "match": "m1", "payload": {"game": "enka"}, "at": "x"}
    line = webhooks.body_for(Webhook(user=ola, url="https://x.example/", format="slack"), "your_turn", data, "x")
    assert said("pl", "Your turn") in line["text"] and "m1" in line["text"]
    standard = webhooks.body_for(Webhook(user=ola, url="https://x.example/"), "your_turn", data, "x")
    assert standard["type"] == "your_turn" and standard["data"] == data  # the machine body is not translated


def test_the_digest_speaks_the_recipients_language(make_user, settings):
    ola = polish(make_user)
    ola.preferences = {"timezone": "Europe/Warsaw"}
    ola.save()
    outbox.outbox.clear()
    deadline = timezone.now() + timedelta(days=1)
    waiting = [{"game": "enka", "match": f"m{i}", "deadline": deadline.isoformat()} for i in range(2)]
    mail.send_digest(ola, waiting, [])
    sent = outbox.outbox[-1]
    with translation.override("pl"):
        subject = translation.ngettext("Tabula: your turn in %(count)s game", "Tabula: your turn in %(count)s games", 2)
    assert sent.subject == subject % {"count": 2} and "Tabula" in sent.subject and "game" not in sent.subject
    assert said("pl", "Hello %(name)s,") % {"name": "ola"} in sent.body
    assert said("pl", "Stop these e-mails: %(link)s").split("%")[0] in sent.body
    assert sent.extra_headers["Content-Language"] == "pl"
    assert "(Europe/Warsaw)" in sent.body  # the deadline in the reader's own time zone


def test_the_digest_has_no_hard_coded_text_under_a_pseudo_locale(make_user, settings, tmp_path):
    """Every sentence of the mail comes from the catalogue: with a pseudo-translation of every
    message (each wrapped in ⟦…⟧), no line of the digest is left unwrapped but what is data."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from django.utils.translation import trans_real

    with (settings.LOCALE_PATHS[0] / "pl" / "LC_MESSAGES" / "django.po").open("rb") as source:
        catalog = read_po(source, locale="pl")
    catalog.locale = None
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            message.string = tuple(f"⟦{message.id[min(i, 1)]}⟧" for i in range(len(message.string)))
        else:
            message.string = f"⟦{message.id}⟧"
    folder = tmp_path / "pl" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "django.mo").open("wb") as out:
        write_mo(out, catalog)
    settings.LOCALE_PATHS = [tmp_path]
    trans_real._translations = {}
    trans_real._active = trans_real.Local()
    try:
        ola = polish(make_user)
        outbox.outbox.clear()
        waiting = [{"game": "enka", "match": "m1", "deadline": None}]
        mail.send_digest(ola, waiting, [])
        sent = outbox.outbox[-1]
    finally:
        trans_real._translations = {}
    assert sent.subject.startswith("⟦") and sent.subject.endswith("⟧")
    for line in sent.body.splitlines():
        if line.strip():
            assert line.startswith("⟦") and line.rstrip().endswith("⟧"), f"hard-coded mail text: {line!r}"


# --- the catalogues and the rules, as served ------------------------------------------------------


@pytest.mark.parametrize("game", ["ekko", "enka", "eko", "ecos"])
def test_each_game_serves_its_catalogue_in_three_languages(client, game):
    bodies = {}
    for lang in languages.CODES:
        answer = client.get(f"/api/v1/games/{game}/i18n/{lang}")
        assert answer.status_code == 200 and answer["Content-Language"] == lang
        bodies[lang] = answer.json()
        assert bodies[lang]["plural_categories"] == languages.plural_categories(lang)
    assert set(bodies["pl"]["messages"]) == set(bodies["en"]["messages"]) == set(bodies["es"]["messages"])
    assert bodies["pl"]["messages"] != bodies["en"]["messages"]
    assert client.get(f"/api/v1/games/{game}/i18n/de").json()["code"] == "not_found"
    assert client.get("/api/v1/games/chess/i18n/pl").status_code == 404


@pytest.mark.parametrize("game", ["ekko", "enka", "eko", "ecos"])
def test_each_game_serves_its_rules_as_markdown_and_html(client, game):
    english = client.get(f"/api/v1/games/{game}/rules")
    assert english.status_code == 200 and english["Content-Type"].startswith("text/markdown")
    assert english.content.decode().startswith("# ")
    polish_page = client.get(f"/api/v1/games/{game}/rules?lang=pl&format=html")
    assert polish_page.status_code == 200 and polish_page["Content-Type"].startswith("text/html")
    assert polish_page["Content-Language"] == "pl" and "<h2" in polish_page.content.decode()
    by_header = client.get(f"/api/v1/games/{game}/rules", headers={"Accept-Language": "es"})
    assert by_header["Content-Language"] == "es" and by_header.content != english.content
    for bad in ("?lang=de", "?format=pdf"):
        refused = client.get(f"/api/v1/games/{game}/rules{bad}")
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_request"


def test_every_catalogue_has_every_key_in_every_language_and_no_unused_key():
    from languages import coverage

    checked, usage = coverage.run()
    assert {g.name for g in checked} >= {"game ekko", "game enka", "game eko", "game ecos", "web ui", "web account"}
    problems = [f"{g.name}: {p}" for g in checked for p in g.problems] + usage
    assert problems == []


def test_the_coverage_check_finds_a_missing_key_an_unused_key_and_a_wrong_plural(tmp_path, monkeypatch):
    import json

    from languages import coverage

    for code, messages in {
        "en": {"a.b": "x {n}", "a.c": {"one": "1", "other": "n"}, "a.unused": "u"},
        "pl": {"a.b": "x", "a.c": {"one": "1", "other": "n"}},
        "es": {"a.b": "x {n}", "a.c": {"one": "1", "many": "m", "other": "n"}, "a.unused": "u", "a.extra": "e"},
    }.items():
        (tmp_path / f"ns.{code}.json").write_text(json.dumps(messages))
    (tmp_path / "page.js").write_text('t("a.b"); t(`a.c${x}`); t("a.gone");')
    group = coverage.check(coverage.Group("web ns", {c: tmp_path / f"ns.{c}.json" for c in languages.CODES}))
    assert "pl: no a.unused" in group.problems and "es: a.extra is not in English" in group.problems
    assert any(p.startswith("pl: a.b has placeholders") for p in group.problems)
    assert any(p.startswith("pl: a.c has plural forms") for p in group.problems)
    monkeypatch.setattr(coverage, "WEB", tmp_path)
    usage = coverage.web_usage({"ns": {"a.b", "a.c.one", "a.unused"}})
    assert usage == ["web: t('a.gone') has no message", "web ns: a.unused is never used"]
