"""Every request example in the served document is one the server accepts: each is sent here."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from api import schema
from games.models import Match
from games.services import lobby
from rules import RULES
from talk import chat
from tests.api.conformance import Conformance, generated_document

pytestmark = pytest.mark.django_db
API = "/api/v1"


METHODS: dict[str, str] = {}  # operationId -> its HTTP method


def _examples() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(operationId, path, example name, body) of every request example in the document."""
    out = []
    for path, item in generated_document()["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "requestBody" not in op:
                continue
            METHODS[op["operationId"]] = method
            for media in op["requestBody"]["content"].values():
                for name, example in media.get("examples", {}).items():
                    out.append((op["operationId"], path, name, example["value"]))
    return out


EXAMPLES = _examples()


def test_the_document_has_request_examples_and_a_move_example_per_game():
    ops = {op for op, *_ in EXAMPLES}
    assert {"auth_register", "auth_token", "matches_create", "matches_join", "matches_moves_create"} <= ops
    moves = {name for op, _, name, _ in EXAMPLES if op == "matches_moves_create"}
    assert moves == set(RULES)


@pytest.mark.parametrize(("operation", "path", "name", "body"), EXAMPLES, ids=[f"{o}-{n}" for o, _, n, _ in EXAMPLES])
def test_each_request_example_is_accepted(operation, path, name, body, make_user, api, monkeypatch):
    conf = Conformance()
    ann, ben = make_user("ann-ex"), make_user("ben-ex")
    url = API + path.removeprefix(API)
    if operation == "auth_token":
        conf.call(api(), "post", f"{API}/auth/register", {"username": body["username"], "password": body["password"]})
    if operation == "matches_invitations_create":
        make_user(body["username"])
    if operation.startswith(("matches_chat", "moderation_")):
        ann.is_staff = True  # hiding a message, muting someone: staff
        ann.save()
    if operation == "moderation_mutes_create":
        make_user(body["username"])
    if operation in ("me_block", "me_follow"):
        url = url.replace("{username}", ben.username)
    if operation in (
        "matches_join",
        "matches_bots_add",
        "matches_moves_create",
        "matches_invitations_create",
        "matches_proposals_create",
        "matches_chat_post",
        "matches_chat_read",
        "matches_chat_report",
        "matches_chat_hide",
        "matches_notes_write",
        "matches_nudges_create",
    ):
        if operation == "matches_moves_create":
            monkeypatch.setattr(lobby.secrets, "randbits", lambda bits: schema.EXAMPLE_SEED)
        owner = ben if operation == "matches_join" else ann
        match = lobby.match_create(user=owner, game=name if name in RULES else "ekko", players=2)
        if operation in ("matches_moves_create", "matches_proposals_create", "matches_nudges_create"):
            lobby.match_join(match_id=match.id, user=ben)
        if operation == "matches_nudges_create":  # ben, at seat 1, has been awaited for a day
            day_ago = (timezone.now() - timedelta(days=1)).isoformat()
            Match.objects.filter(id=match.id).update(awaiting=[1], awaited_since={"1": day_ago})
        if operation in ("matches_chat_report", "matches_chat_hide"):
            chat.chat_post(match_id=match.id, user=ann, channel="table", text="hello")
            url = url.replace("{channel}", "table").replace("{seq}", "1")
        url = url.replace("{match_id}", match.id)
    if operation == "invites_lookup":
        body = {"code": lobby.match_create(user=ben, game="ekko", players=2).invite_code}
    caller = None if operation.startswith("auth_") else ann
    if operation == "matches_moves_create":
        caller = [ann, ben][schema.move_example(name)[0]]
    method = METHODS[operation]
    conf.check_request(method, url, body)
    response = conf.call(api(caller), method, url, body)
    assert response.status_code < 300, response.content
    assert not conf.problems, conf.problems
