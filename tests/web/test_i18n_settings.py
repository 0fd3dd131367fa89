"""The account's language (issue 33), in a real browser: chosen in the settings, it is the account's
(``GET me`` says so) and the page reloads in it; a refused change says why and leaves the page as it
was; sign-up tells the account the language its page was shown in. Then the account-side pages in
the pseudo-locale (``?lang=pseudo``): the settings with every panel filled, the tournaments list and
a running tournament's page, the feed and the invitations show no word outside ⟦…⟧ but data.
"""

from __future__ import annotations

import json
import re

import pytest

from accounts.models import User
from accounts.services import token_create
from circles import services as circles
from games.services import lobby
from tests.web.conftest import sign_up
from tests.web.test_i18n_pseudo import DATA, ENDONYMS, UNWRAPPED, report, settle
from tournaments import services as tournaments

pytestmark = pytest.mark.django_db(transaction=True)


# A time zone's IANA name first: the settings list them all, and a day's or a month's abbreviation
# inside one (America/Thule, Africa/Monrovia) would otherwise be taken away and leave the rest.
ZONE = re.compile(r"\b[A-Z][A-Za-z_-]+(/[A-Za-z0-9_+-]+)+")


def unwrapped(page, data: tuple[str, ...]) -> list[str]:
    """The words on the page that no catalogue gave, as "kind at where: text" lines."""
    names = re.compile(r"\b(" + "|".join(re.escape(d) for d in (*data, *ENDONYMS)) + r")\b")
    allowed = [ZONE, names, *(re.compile(p) for p in DATA)]
    out = []
    for item in page.evaluate(UNWRAPPED):
        rest = item["text"]
        for pattern in allowed:
            rest = pattern.sub(" ", rest)
        if re.search(r"[^\W\d_]", rest):
            out.append(f"{item['kind']} at {item['where']}: {item['text']!r}")
    return sorted(set(out))


def _me(page) -> dict:
    """`GET /api/v1/me` with the page's own token, as any client would call it."""
    token = page.evaluate("localStorage.getItem('tabula.token')")
    answer = page.request.get("/api/v1/me", headers={"Authorization": f"Token {token}"})
    assert answer.ok, answer.status
    return answer.json()


def test_choosing_polish_in_the_settings_is_the_accounts_and_the_pages(page):
    sign_up(page, "ann")
    assert _me(page)["language"] == "en"
    page.get_by_role("link", name="Settings").click()
    choice = page.locator("select[name='language']")
    assert choice.input_value() == "en"
    assert sorted(choice.locator("option").all_inner_texts()) == ["English", "Español", "Polski"]
    choice.select_option("pl")
    page.locator("html[lang='pl']").wait_for(state="attached")
    page.get_by_role("heading", name="Ustawienia", level=1).wait_for()
    page.get_by_role("heading", name="Gdzie trafiają powiadomienia").wait_for()
    assert page.locator("select[name='language']").input_value() == "pl"
    assert page.evaluate("localStorage.getItem('tabula.lang')") == "pl"
    assert _me(page)["language"] == "pl"
    assert User.objects.get(username="ann").language == "pl"


def test_a_refused_change_of_language_says_why_and_keeps_the_page(page, console):
    sign_up(page, "ben")
    console.allowed.add(400)
    problem = {"type": "about:blank", "title": "Invalid request", "status": 400, "code": "invalid", "detail": "No."}

    def refuse(route):
        if route.request.method == "PATCH":
            route.fulfill(status=400, content_type="application/problem+json", body=json.dumps(problem))
        else:
            route.continue_()

    page.route("**/api/v1/me", refuse)
    page.goto("/settings")
    page.locator("select[name='language']").select_option("es")
    page.locator("section[aria-labelledby='language-h'] [role='alert']").wait_for()
    assert page.locator("html").get_attribute("lang") == "en"
    page.get_by_role("heading", name="Settings", level=1).wait_for()
    assert page.evaluate("localStorage.getItem('tabula.lang')") is None
    assert User.objects.get(username="ben").language == "en"


def test_sign_up_tells_the_account_the_pages_language(page):
    page.goto("/signup?lang=es")
    page.locator("html[lang='es']").wait_for(state="attached")
    page.locator("#username").fill("cleo")
    page.locator("#password").fill("a-long-passphrase-9")
    with page.expect_request(lambda r: r.url.endswith("/api/v1/auth/register")) as sent:
        page.locator("form button[type='submit']").click()
    assert sent.value.post_data_json["language"] == "es"
    page.get_by_role("heading", name="Mis partidas").wait_for()
    assert User.objects.get(username="cleo").language == "es"


def test_the_account_pages_speak_through_the_catalogues(page, make_user):
    sign_up(page, "ann")
    ann, ben, cat = User.objects.get(username="ann"), make_user("ben"), make_user("cat")
    ann.email = "ann@example.org"
    ann.preferences = {
        "timezone": "Europe/Warsaw",
        "quiet_hours": {"start": "22:00", "end": "07:30"},
        "email_digest": "daily",
        "email_digest_hour": 8,
    }
    ann.save(update_fields=["email", "preferences"])
    token_create(ann, label="my script")
    circles.block(ann, "cat", "messages")
    circles.follow(ann, "ben")
    circles.follow(ben, "ann")  # friends: "(friends)" beside ben
    invited = lobby.match_create(user=ben, game="enka", players=2, private=True)
    lobby.invitation_create(match_id=invited.id, by=ben, username="ann")
    cup = tournaments.tournament_create(
        user=ann,
        data={
            "name": "Cup",
            "game": "enka",
            "format": "swiss",
            "table_size": 2,
            "max_players": 3,
            "rounds": 2,
            "time_control": {"per_move_s": 86400},
            "entry": "open",
        },
    )
    for user in (ann, ben, cat):  # full: it starts, round 1 is one table and a bye
        tournaments.join(tournament_id=cup.id, user=user)
    open_one = tournaments.tournament_create(
        user=ben,
        data={"name": "Open", "game": "ecos", "format": "round_robin", "table_size": 2, "max_players": 4},
    )
    tournaments.join(tournament_id=open_one.id, user=ben)
    data = ("ann", "ben", "cat", "Cup", "Open", "my script")  # names people gave: data, not interface
    failures = {}
    for name, (path, ready) in {
        "settings": ("/settings", "[data-quiet]"),
        "tournaments": ("/tournaments", "[data-tournament]"),
        "a running tournament": (f"/tournaments/{cup.id}", "[data-round='1'] [data-table]"),
        "an open tournament": (f"/tournaments/{open_one.id}", "[data-standing]"),
        "feed": ("/feed", "#people-h"),
        "invitations": ("/invitations", f"[data-invitation='{invited.id}']"),
    }.items():
        settle(page, path, ready)
        found = unwrapped(page, data)
        if found:
            failures[f"{name} ({path})"] = found
    assert not failures, "Words outside the catalogues (?lang=pseudo):\n" + report(failures)
    # The settings page showed what the check is for: every panel, each with its words wrapped.
    settle(page, "/settings", "[data-quiet]")
    panels = ("[data-token]", "[data-blocked='cat']", "select[name='email_digest_hour']", "[data-channel='chat:push']")
    for shown in panels:
        assert page.locator(shown).count() >= 1, shown
    assert page.locator("[data-quiet]").inner_text().startswith("⟦")
