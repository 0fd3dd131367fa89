"""Browser test (issue 26): a draw by agreement through the page. Ann offers it on the match page,
Ben accepts it (through the API, as his own client would), and Ann's page shows the shared result;
then a proposal from Ben is accepted with the page's Accept button."""

from __future__ import annotations

import json

import pytest

from accounts.models import User
from games.models import Proposal
from games.services import agreements, lobby
from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_draw_by_agreement_through_the_page(page, make_user):
    sign_up(page, "ann")
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    page.goto(f"/matches/{match.id}")
    page.get_by_role("button", name="Offer a draw").click()
    page.locator("[data-proposal='draw']").wait_for()
    shoot(page, "agreements")
    [proposal] = Proposal.objects.filter(match=match)
    agreements.proposal_vote(match_id=match.id, user=ben, pid=proposal.pk, accept=True)
    page.reload()  # Ben's client is not this page: read the match again rather than wait for the stream
    result = page.locator("[data-result]")
    result.wait_for(timeout=20000)
    assert json.loads(result.get_attribute("data-result"))["reason"] == "draw"


def test_accepting_a_proposal_with_the_page(page, make_user):
    sign_up(page, "cat")
    cat, dan = User.objects.get(username="cat"), make_user("dan")
    match = lobby.match_create(user=cat, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=dan)
    agreements.proposal_create(match_id=match.id, user=dan, body={"kind": "cancel"})
    page.goto(f"/matches/{match.id}")
    item = page.locator("[data-proposal='cancel']")
    item.wait_for()
    item.get_by_role("button", name="Accept").click()
    page.locator("main.match[data-status='aborted']").wait_for(timeout=20000)
    assert Proposal.objects.get(match=match).status == "passed"
