"""The web client in three languages (issue 33), in a real browser.

The pseudo-locale (``?lang=pseudo``) shows every message of the catalogues accented and wrapped in
⟦…⟧, so a word on screen outside the brackets was written into the code instead of a catalogue. The
check walks the text nodes of each page (those of visible elements), and the labels people hear or
read (aria-label, title, placeholder, alt): every letter must sit inside ⟦…⟧ unless it is data,
such as a username the test made, a language's own name in the switch, or a date (the pseudo-locale
formats dates and numbers as English does). Then Polish and Spanish: the language is the page's
(``<html lang>``), dates follow it, the switch remembers the choice and tells the account, and an
account's language is followed on sign-in. With TABULA_SCREENSHOTS=1 (``make screenshots``) one
game page is photographed in each language: docs/screenshots/i18n-{en,pl,es}.png.
"""

from __future__ import annotations

import os
import re

import pytest

from accounts.models import User
from games.models import Match
from games.services import play
from tests.notifications.test_leaks import _random_match
from tests.web.conftest import SCREENSHOTS, sign_up

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = ("ekko", "enka", "eko", "ecos")

# Every text node with letters outside ⟦…⟧, and every such label, with where it was found. Brackets
# are counted across nodes in document order: a message with a link inside ("{link} to play.") is
# split over several nodes, all of them inside the one pair of brackets.
UNWRAPPED = r"""
() => {
  const found = [];
  const shown = (el) => {
    if (!el) return false;
    const box = el.closest("option") ? el.closest("select") : el;
    return box.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  };
  const where = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 3; e = e.parentElement) {
      const tag = e.tagName.toLowerCase();
      parts.unshift(e.id ? `${tag}#${e.id}` : e.classList.length ? `${tag}.${[...e.classList].join(".")}` : tag);
    }
    return parts.join(" > ");
  };
  let depth = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (el.closest("script, style, noscript, template")) continue;
    let outside = "";
    for (const ch of node.data) {
      if (ch === "\u27e6") depth += 1;
      else if (ch === "\u27e7") depth = Math.max(0, depth - 1);
      else if (depth === 0) outside += ch;
      else outside += " ";
    }
    if (shown(el) && /\p{L}/u.test(outside)) found.push({ text: outside.trim(), where: where(el), kind: "text" });
  }
  for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt], [aria-valuetext]")) {
    if (!shown(el) && !el.closest("option")) continue;
    for (const name of ["aria-label", "title", "placeholder", "alt", "aria-valuetext"]) {
      const value = el.getAttribute(name);
      if (!value) continue;
      let outside = "";
      let d = 0;
      for (const ch of value) {
        if (ch === "\u27e6") d += 1;
        else if (ch === "\u27e7") d = Math.max(0, d - 1);
        else outside += d === 0 ? ch : " ";
      }
      if (/\p{L}/u.test(outside)) found.push({ text: outside.trim(), where: where(el), kind: name });
    }
  }
  return found;
}
"""

MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Wed|Thu|Fri|Sat|Sun"
# What Intl writes in the pseudo-locale (English rules): dates, times, relative times, lists.
DATA = [
    r"\b[A-Z][A-Za-z_-]+(/[A-Za-z0-9_+-]+)+",  # a time zone's IANA name (Europe/Warsaw), before the days
    rf"\b({MONTHS})\.? \d{{1,2}}(, \d{{4}})?",
    rf"\b({DAYS})\b,?",
    r"\b\d{1,2}:\d{2}(:\d{2})?\s?(AM|PM)\b",
    r"\b(AM|PM)\b",
    r"\b(in )?\d+ (second|minute|hour|day|week|month|year)s?( ago)?\b",
    r"\b(yesterday|today|tomorrow|now)\b",
    r"https?://\S+",
    r"\bUTC\b",
    r"\band\b",  # Intl.ListFormat's conjunction between wrapped items
]
# A language's own name in the switch is the same in every language.
ENDONYMS = ("English", "Polski", "Español")


def unwrapped(page, data: tuple[str, ...]) -> list[str]:
    """The words on the page that no catalogue gave, as "kind at where: text" lines."""
    allowed = [re.compile(p) for p in DATA]
    allowed.append(re.compile(r"\b(" + "|".join(re.escape(d) for d in (*data, *ENDONYMS)) + r")\b"))
    out = []
    for item in page.evaluate(UNWRAPPED):
        rest = item["text"]
        for pattern in allowed:
            rest = pattern.sub(" ", rest)
        if re.search(r"[^\W\d_]", rest):
            out.append(f"{item['kind']} at {item['where']}: {item['text']!r}")
    return sorted(set(out))


def settle(page, path: str, ready: str) -> None:
    """Open `path` in the pseudo-locale and wait for its content (and whatever loads after it)."""
    joiner = "&" if "?" in path else "?"
    page.goto(f"{path}{joiner}lang=pseudo")
    page.locator("html[lang='en']").wait_for(state="attached")
    page.locator(ready).first.wait_for()
    page.wait_for_function("() => !document.body.innerText.includes('Löádíñg')")
    page.wait_for_timeout(600)  # lists and panels that load after the first paint


def report(failures: dict[str, list[str]], most: int = 40) -> str:
    out = []
    for where, lines in failures.items():
        more = f"\n  …and {len(lines) - most} more" if len(lines) > most else ""
        out.append(f"{where}:\n  " + "\n  ".join(lines[:most]) + more)
    return "\n".join(out)


def active_match(game: str, users) -> Match:
    """A match in progress between `users` (some random moves in, nobody resigned)."""
    match = _random_match(game, users, moves=4)
    assert match.status == Match.Status.ACTIVE, (game, match.status)
    return match


def test_every_shell_page_speaks_through_the_catalogues(new_page, make_user):
    visitor = new_page()  # a browser without an account: the welcome page and the forms
    failures = {}
    for name, (path, ready) in {
        "welcome (signed out)": ("/", "main h1"),
        "sign in": ("/signin", "form"),
        "sign up": ("/signup", "form"),
    }.items():
        settle(visitor, path, ready)
        found = unwrapped(visitor, ())
        if found:
            failures[f"{name} ({path})"] = found
    page = new_page()
    sign_up(page, "ann")
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    active_match("enka", [ann, ben])  # something in "My games" and on the profile
    pages = {
        "home (my games)": ("/", "#waiting-h"),
        "lobby": ("/lobby", "form.create"),
        "profile": ("/users/ben", "#ratings-h"),
        "leaderboards": ("/leaderboards", "main h1"),
        "tournaments": ("/tournaments", "main h1"),
        "settings": ("/settings", "main h1"),
        "rules index": ("/rules", "main h1"),
        "rules of Ecos": ("/rules/ecos", "main h1"),
        "away": ("/away", "[data-away-status]"),
    }
    for name, (path, ready) in pages.items():
        settle(page, path, ready)
        found = unwrapped(page, ("ann", "ben"))
        if found:
            failures[f"{name} ({path})"] = found
    assert not failures, "Words outside the catalogues (?lang=pseudo):\n" + report(failures)


def test_every_match_page_and_a_replay_speak_through_the_catalogues(page, make_user):
    sign_up(page, "ann")
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    pages = {}
    ids = []
    for game in GAMES:
        match = active_match(game, [ann, ben])
        ids.append(match.id)
        pages[f"{game} match"] = (f"/matches/{match.id}", "[data-panel='moves'] h2")
    over = _random_match("enka", [ann, ben], moves=12)
    play.match_resign(match_id=over.id, user=ben)
    over = Match.objects.get(id=over.id)
    ids.append(over.id)
    pages["enka replay"] = (f"/matches/{over.id}?at={over.version}", f"[data-replay][data-at='{over.version}']")
    failures = {}
    for name, (path, ready) in pages.items():
        settle(page, path, ready)
        if "replay" not in name:
            page.locator("[data-chat-toggle]").click()  # the chat panel's words too
            page.locator("ol.messages").wait_for()
        found = unwrapped(page, ("ann", "ben", *ids))
        if found:
            failures[f"{name} ({path})"] = found
    assert not failures, "Words outside the catalogues (?lang=pseudo):\n" + report(failures)


def test_the_pseudo_check_finds_a_hard_coded_word(page):
    """The check itself: a word put on the page without a catalogue is reported, data is not."""
    page.goto("/lobby?lang=pseudo")
    page.locator("form.create, main h1").first.wait_for()
    page.evaluate(
        """() => {
        const p = document.createElement("p");
        p.textContent = "Hard-coded words, ann, 12:05 PM, Dec 4, 2026";
        const q = document.createElement("button");
        q.setAttribute("aria-label", "Unlabelled");
        q.textContent = "⟦Wráppéd⟧ ♣ 12";
        document.querySelector("main").append(p, q);
    }"""
    )
    found = unwrapped(page, ("ann",))
    assert any("Hard-coded words" in f for f in found), found
    assert any(f.startswith("aria-label") and "Unlabelled" in f for f in found), found
    assert not any("Wráppéd" in f for f in found), found


POLISH_MONTHS = ("sty", "lut", "mar", "kwi", "maj", "cze", "lip", "sie", "wrz", "paź", "lis", "gru")
SPANISH_MONTHS = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic")


def test_polish_and_spanish_pages_with_their_own_dates(page, make_user):
    sign_up(page, "ann")
    joined = User.objects.get(username="ann").date_joined
    page.goto("/?lang=pl")
    page.locator("html[lang='pl']").wait_for(state="attached")
    page.get_by_role("heading", name="Moje partie").wait_for()
    assert page.get_by_role("link", name="Poczekalnia").count() == 1
    assert page.locator("select[data-language]").input_value() == "pl"
    assert page.locator("select[data-language]").get_attribute("aria-label") == "Język"

    page.goto("/users/ann?lang=pl")
    since = page.locator("main p.muted").first
    since.wait_for()
    text = since.inner_text()
    month = POLISH_MONTHS[joined.month - 1]
    assert text.startswith("Konto od") and f"{month} {joined.year}" in text, text
    assert not re.search(r"\b(AM|PM)\b", text), text  # a 24-hour clock

    page.goto("/users/ann?lang=es")
    page.locator("html[lang='es']").wait_for(state="attached")
    since = page.locator("main p.muted").first
    since.wait_for()
    text = since.inner_text()
    assert text.startswith("Miembro desde el") and SPANISH_MONTHS[joined.month - 1] in text, text

    page.goto("/users/ann?lang=en")
    since = page.locator("main p.muted").first
    since.wait_for()
    assert joined.strftime("%b") in since.inner_text()


def test_the_switch_remembers_the_choice_and_tells_the_account(page):
    sign_up(page, "ann")
    assert page.locator("html").get_attribute("lang") == "en"
    page.locator("select[data-language]").select_option("es")
    page.locator("html[lang='es']").wait_for(state="attached")
    page.get_by_role("heading", name="Mis partidas").wait_for()
    assert page.evaluate("localStorage.getItem('tabula.lang')") == "es"
    assert User.objects.get(username="ann").language == "es"
    page.goto("/lobby")  # no ?lang: the stored choice
    page.get_by_role("heading", name="Sala").wait_for()
    assert page.locator("html").get_attribute("lang") == "es"


def test_signing_in_follows_the_accounts_language(page, make_user):
    lola = make_user("lola", "a-long-passphrase-9")
    lola.language = "pl"
    lola.save(update_fields=["language"])
    page.goto("/signin")
    page.get_by_label("Username").fill("lola")
    page.get_by_label("Password").fill("a-long-passphrase-9")
    page.get_by_role("button", name="Sign in").click()
    page.locator("html[lang='pl']").wait_for(state="attached")
    page.get_by_role("heading", name="Moje partie").wait_for()


# Whether the boxes `selector` finds share one line: each starts above where every other ends.
ONE_LINE = """
(selector) => {
  const boxes = [...document.querySelectorAll(selector)].map((e) => e.getBoundingClientRect()).filter((b) => b.height);
  return Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom));
}
"""


def test_a_game_page_in_each_language(page, make_user):
    """One Ecos match in progress, in each language (and docs/screenshots/i18n-<language>.png)."""
    sign_up(page, "ann")
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    match = active_match("ecos", [ann, ben])
    for language, moves in (("en", "Moves"), ("pl", "Ruchy"), ("es", "Jugadas")):
        page.goto(f"/matches/{match.id}?lang={language}")
        page.locator(f"html[lang='{language}']").wait_for(state="attached")
        page.locator("[data-panel='moves'] h2", has_text=moves).wait_for()
        page.locator(".board svg").first.wait_for()
        page.wait_for_timeout(500)
        # Nothing wider than the window, and the header's links on one line: a longer Polish or
        # Spanish word wraps inside its box instead.
        wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert wide <= 0, f"{language}: the page is {wide}px wider than the window"
        one_line = page.evaluate(ONE_LINE, ".top nav > *")
        assert one_line, f"{language}: the header's links take more than one line"
        if os.environ.get("TABULA_SCREENSHOTS") == "1":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"i18n-{language}.png"), full_page=False)
