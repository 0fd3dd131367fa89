"""The OpenAPI document: valid, warning-free, every game's moves as a oneOf with a discriminator."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

from games.engines import RULES

pytestmark = pytest.mark.django_db


def _schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_schema_generates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").stat().st_size > 10_000


def test_every_game_has_a_discriminated_move_union(toy_game):
    from api.schema import any_move_serializer

    any_move_serializer.cache_clear()
    components = _schema()["components"]["schemas"]
    for game, rules in RULES.items():
        name = game.title() + "MoveRequest"
        union = components[name]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == {m.type for m in rules.moves}
    take = components["ToyTakeMoveRequest"]
    assert take["properties"]["n"] == {"type": "integer", "maximum": 2, "minimum": 1}


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


@pytest.mark.xfail(
    strict=True,
    reason="server bug: the schema documents every error response as application/json, but the API sends "
    "application/problem+json (api/exceptions.py); the OpenAPI error responses need that media type",
)
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
    assert client.get("/api/v1/redoc/").status_code == 200


def test_the_swagger_ui_assets_are_served_by_the_app(client):
    r = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert r.status_code == 200
