"""The OpenAPI document: valid, warning-free, typed per game, committed (docs/openapi.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from openapi_spec_validator import validate as validate_spec

from rules import RULES

pytestmark = pytest.mark.django_db


def _schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_schema_generates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").stat().st_size > 10_000


GOLDEN = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"


def test_schema_is_valid_for_openapi_spec_validator():
    validate_spec(json.loads(json.dumps(_schema(), default=str)))


def test_the_committed_document_is_the_served_one(tmp_path):
    """docs/openapi.yaml is what GET schema serves: an API change shows in review. `make openapi` rewrites it."""
    call_command("spectacular", "--file", str(tmp_path / "schema.yaml"))
    served = (tmp_path / "schema.yaml").read_text()
    assert served == GOLDEN.read_text(), "the API document changed: run `make openapi` and commit docs/openapi.yaml"


def test_every_game_has_typed_moves_view_result_and_state(toy_game):
    components = _schema()["components"]["schemas"]
    for game, rules in RULES.items():
        g = game.title()
        union = components[g + "Move"]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == {m.type for m in rules.moves}
        state = components[g + "State"]
        assert state["properties"]["game"] == {"type": "string", "enum": [game]}
        assert state["properties"]["legal_moves"]["items"] == {"$ref": f"#/components/schemas/{g}Move"}
        assert {g + "View", g + "Result"} <= set(components)
    take = components["ToyTakeMove"]
    assert take["properties"]["n"] == {"type": "integer", "maximum": 2, "minimum": 1}
    assert take["additionalProperties"] is False
    mapping = components["MatchState"]["discriminator"]["mapping"]
    assert mapping["ekko"] == "#/components/schemas/EkkoState"
    assert {"$ref": "#/components/schemas/EkkoMove"} in components["Move"]["anyOf"]


def test_every_error_is_a_problem_document_wherever_it_can_occur():
    paths = _schema()["paths"]
    moves = paths["/api/v1/matches/{match_id}/moves"]["post"]["responses"]
    for status in ("400", "401", "403", "404", "409", "413", "415", "422", "429", "503"):
        assert list(moves[status]["content"]) == ["application/problem+json"], status
    assert "Retry-After" in moves["429"]["headers"]
    for item in paths.values():
        for op in item.values():
            for status, response in op["responses"].items():
                if int(status) >= 400:
                    assert list(response["content"]) == ["application/problem+json"], (op["operationId"], status)
    assert "401" not in paths["/api/v1/auth/register"]["post"]["responses"]
    assert "401" in paths["/api/v1/games"]["get"]["responses"]  # a bad token is refused even there


def test_every_pinned_path_is_documented():
    paths = _schema()["paths"]
    for path in [
        "/api/v1/auth/register",
        "/api/v1/auth/token",
        "/api/v1/auth/logout",
        "/api/v1/me",
        "/api/v1/users/{username}",
        "/api/v1/games",
        "/api/v1/games/{game}",
        "/api/v1/matches",
        "/api/v1/matches/{match_id}",
        "/api/v1/matches/{match_id}/join",
        "/api/v1/matches/{match_id}/leave",
        "/api/v1/matches/{match_id}/resign",
        "/api/v1/matches/{match_id}/state",
        "/api/v1/matches/{match_id}/moves",
        "/api/v1/matches/{match_id}/events",
        "/api/v1/matches/{match_id}/export",
    ]:
        assert path in paths, path
    moves = paths["/api/v1/matches/{match_id}/moves"]["post"]
    assert {"201", "400", "403", "409", "422"} <= set(moves["responses"])
    assert "application/problem+json" in moves["responses"]["409"]["content"]


def test_the_api_root_links_to_everything(client):
    r = client.get("/api/v1/")
    assert r.status_code == 200 and client.get("/api/v1").status_code == 200
    links = r.json()["links"]
    assert {"games", "matches", "schema", "docs", "me", "web"} <= set(links)
    assert links["games"]["href"] == "http://testserver/api/v1/games"
    assert links["web"]["href"] == "http://testserver/"
    for link in links.values():
        assert client.get(link["href"]).status_code in (200, 401, 405), link  # 405: register and token are POST


PROBLEM_MEMBERS = {"type", "title", "status", "code"}


def _error_responses(schema):
    """(path, method, status, response) for every documented 4xx and 5xx response."""
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation.get("responses", {}).items():
                if status[0] in "45":
                    yield path, method, status, response


def test_every_documented_error_is_a_problem_document():
    schema = _schema()
    problem = schema["components"]["schemas"]["Problem"]
    assert PROBLEM_MEMBERS <= set(problem["required"]) <= set(problem["properties"])
    assert problem["properties"]["status"]["type"] == "integer"
    errors = list(_error_responses(schema))
    assert len(errors) > 20
    for path, method, status, response in errors:
        schemas = [c["schema"] for c in response.get("content", {}).values()]
        assert schemas and all(s == {"$ref": "#/components/schemas/Problem"} for s in schemas), (path, method, status)


def test_every_documented_error_has_the_problem_media_type():
    wrong = [
        (path, method, status, sorted(response.get("content", {})))
        for path, method, status, response in _error_responses(_schema())
        if set(response.get("content", {})) != {"application/problem+json"}
    ]
    assert wrong == []


def test_an_error_is_served_as_the_problem_document_the_schema_describes(client):
    r = client.get("/api/v1/games/no-such-game")
    assert r.status_code == 404
    assert r["Content-Type"] == "application/problem+json"
    body = r.json()
    assert set(body) >= PROBLEM_MEMBERS and body["status"] == 404 and body["code"] == "not_found"
    assert "404" in _schema()["paths"]["/api/v1/games/{game}"]["get"]["responses"]


def test_docs_and_schema_are_served_without_internet(client):
    assert client.get("/api/v1/schema/").status_code == 200
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200
    assert b"/static/drf_spectacular_sidecar/swagger-ui-dist/" in docs.content
    assert b"cdn.jsdelivr" not in docs.content
    redoc = client.get("/api/v1/redoc/")
    assert redoc.status_code == 200 and b"/static/drf_spectacular_sidecar/redoc/" in redoc.content
    assert b"https://" not in redoc.content  # no Google Fonts, no script from a CDN
    policy = redoc["Content-Security-Policy"]  # and ReDoc's own logo from cdn.redoc.ly is not fetched
    assert "img-src 'self' data: blob:" in policy and "default-src 'self'" in policy


def test_the_swagger_ui_assets_are_served_by_the_app(client):
    r = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert r.status_code == 200


#: Answer fields that are really optional: an option's bounds and choices, a problem's extension
#: members, the clock fields a time control was created without, the members one game's result
#: adds (another game's result has none).
SOMETIMES_ABSENT = {
    "ChatMessage": {"flagged", "hidden_reason"},  # staff only
    "Conditions": {"max_rating", "max_recent_timeouts", "min_rated_matches", "min_rating"},  # those set
    "GameOption": {"choices", "maximum", "minimum", "restricted"},
    "Result": {"rematch", "tiebreak_draws"},
    "Problem": {"current_version", "errors", "reason"},
    "Proposal": {"seat", "seconds", "to_seq", "until"},
    "TimeControl": {"away", "away_cap_s", "bank_s", "bot_after", "increment_s", "on_timeout", "per_move_s"},
}


def test_every_field_an_answer_always_carries_is_required():
    """Client code written the obvious way type-checks with no casts (issue 24): `Match.status`,
    `version`, `created_at`… were optional in the schema though always sent. The conformance tests
    (test_openapi_conformance.py) check real answers against these requirements."""
    schemas = _schema()["components"]["schemas"]
    games = ("Ekko", "Enka", "Eko", "Ecos")  # the engines' moves and views: their own shapes
    optional = {}
    for name, component in schemas.items():
        if name.endswith("Request") or name.startswith(games) or name == "MatchOptions":  # options: as sent
            continue
        if "properties" not in component:
            continue
        missing = set(component["properties"]) - set(component.get("required", [])) - SOMETIMES_ABSENT.get(name, set())
        if missing:
            optional[name] = sorted(missing)
    assert optional == {}
    match = schemas["Match"]
    assert {"status", "version", "created_at"} <= set(match["required"])
    assert match["properties"]["version"].get("readOnly") is True


def test_the_public_catalogue_declares_no_security():
    """So that a generated client reads it without a token (openapi-python-client asked for an
    AuthenticatedClient while `{}` sat beside the token schemes); the streams keep theirs."""
    paths = _schema()["paths"]
    for path in ("/api/v1/games", "/api/v1/games/{game}", "/api/v1/games/{game}/components"):
        assert paths[path]["get"]["security"] == [], path
    assert paths["/api/v1/matches"]["post"]["security"] != []


def test_a_nullable_enum_is_one_component():
    """Inline, Enka's nullable `color` made openapi-python-client define three identical classes."""
    schemas = _schema()["components"]["schemas"]
    inline = [
        f"{name}.{field}"
        for name, component in schemas.items()
        for field, prop in component.get("properties", {}).items()
        if "enum" in prop and None in prop["enum"]
    ]
    assert inline == []
    colours = [schemas[m]["properties"]["color"] for m in ("EnkaPlayMove", "EnkaDrawMove", "EnkaPlayDrawnMove")]
    assert all(c["oneOf"] == [{"$ref": "#/components/schemas/EnkaColor"}, {"type": "null"}] for c in colours)


def _open_objects(node: Any, path: str = "") -> list[str]:
    if isinstance(node, dict):
        here = [path] if node.get("additionalProperties") == {} else []
        return here + [p for k, v in node.items() for p in _open_objects(v, f"{path}/{k}")]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _open_objects(v, f"{path}[{i}]")]
    return []


def test_nothing_an_engine_sends_is_an_untyped_object():
    """Issue 24: `EkkoView.top`, Ecos's map, prompt and move parts, a match's options and result
    were objects of anything; each is now a closed object a generated client has a class for. A
    record's `data` stays open: its members depend on the record's type (docs/api.md, *Records*)."""
    assert _open_objects(_schema()["components"]["schemas"]) == ["/Event/properties/data"]
