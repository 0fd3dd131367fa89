"""Every request example in the served document is one the server accepts: each is sent here."""

from __future__ import annotations

from typing import Any

import pytest

from api import schema
from games.services import lobby
from rules import RULES
from tests.api.conformance import Conformance, generated_document

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _examples() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(operationId, path, example name, body) of every request example in the document."""
    out = []
    for path, item in generated_document()["paths"].items():
        for op in item.values():
            if not isinstance(op, dict) or "requestBody" not in op:
                continue
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
    if operation in (
        "matches_join",
        "matches_bots_add",
        "matches_moves_create",
        "matches_invitations_create",
        "matches_proposals_create",
    ):
        if operation == "matches_moves_create":
            monkeypatch.setattr(lobby.secrets, "randbits", lambda bits: schema.EXAMPLE_SEED)
        owner = ben if operation == "matches_join" else ann
        match = lobby.match_create(user=owner, game=name if name in RULES else "ekko", players=2)
        if operation in ("matches_moves_create", "matches_proposals_create"):
            lobby.match_join(match_id=match.id, user=ben)
        url = url.replace("{match_id}", match.id)
    if operation == "invites_lookup":
        body = {"code": lobby.match_create(user=ben, game="ekko", players=2).invite_code}
    caller = None if operation.startswith("auth_") else ann
    if operation == "matches_moves_create":
        caller = [ann, ben][schema.move_example(name)[0]]
    conf.check_request("post" if operation != "me_update" else "patch", url, body)
    response = conf.call(api(caller), "patch" if operation == "me_update" else "post", url, body)
    assert response.status_code < 300, response.content
    assert not conf.problems, conf.problems
