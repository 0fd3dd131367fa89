"""Browser test (issue 32): axe-core on every page of the web client, signed out and signed in, on
each game's match page and its replay, at desktop and phone width: no serious or critical
violation. axe-core is pinned in web/package-lock.json (`make check` installs it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.conftest import PHONE, sign_up
from tests.web.test_games import create_against_bot

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now, one line each."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => {
            const r = await axe.run(document, { resultTypes: ["violations"] });
            return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
              where: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
        }"""
    )
    return [f"{v['id']} ({v['impact']}): {v['help']} at {v['where']}" for v in found if v["impact"] in SERIOUS]


def audit(page, path: str, ready: str) -> list[str]:
    page.goto(path)
    page.locator(ready).first.wait_for()
    return [f"{path}: {line}" for line in violations(page)]


@pytest.fixture
def axe_available():
    if not AXE.exists():
        pytest.skip("axe-core is not installed: `make check` (npm ci in web/) installs it")


def test_signed_out_pages_have_no_serious_violation(axe_available, page, console):
    found = []
    for path, ready in [
        ("/signin", "form"),
        ("/signup", "form"),
        ("/rules", "main h1"),
        ("/rules/ekko", "main h1"),
        ("/rules/enka", "main h1"),
        ("/rules/eko", "main h1"),
        ("/rules/ecos", "main h1"),
        ("/tournaments", "main h1"),
        ("/leaderboards/ekko", "form"),  # members only: the sign-in form
        ("/users/nobody", "form"),
    ]:
        seen = len(console.errors)
        found += audit(page, path, ready)
        found += [f"{path}: console: {e}" for e in console.errors[seen:]]
    assert found == [], "\n".join(found)


def test_signed_in_pages_and_every_game_have_no_serious_violation(axe_available, new_page):
    found = []
    for viewport in (None, PHONE):
        page = new_page(viewport) if viewport else new_page()
        name = "axe" if viewport is None else "axe-phone"
        sign_up(page, name)
        found += [line for line in violations(page)]  # the home page: My games
        for path, ready in [
            ("/lobby", "form"),
            ("/settings", "main h1"),
            ("/away", "main h1"),
            ("/tournaments", "main h1"),
            ("/feed", "main h1"),
            (f"/users/{name}", "main h1"),
            ("/leaderboards/ekko", "main h1"),
            ("/rules/enka", "main h1"),
        ]:
            found += audit(page, path, ready)
        for game in ("ekko", "enka", "eko", "ecos"):
            match_id = create_against_bot(page, game)
            page.locator("[data-panel='moves'] button[data-move]").first.wait_for()
            found += [f"/matches/{match_id} ({game}): {line}" for line in violations(page)]
            found += audit(page, f"/matches/{match_id}?at=4", "main[data-replay][data-at='4']")
    assert found == [], "\n".join(found)
