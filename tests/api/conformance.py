"""Checks HTTP answers against the served OpenAPI document with openapi-core (a validator no one here wrote).

`Conformance` wraps DRF's test client: every answer it gets is validated (status, content type,
headers and body) against ``GET /api/v1/schema``; a request can be validated too (the moves we
send). Mismatches are collected, not raised, so that one run lists them all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from rest_framework.test import APIClient

HOST = "http://testserver"


@cache
def served_document() -> dict[str, Any]:
    response = APIClient().get("/api/v1/schema/", {"format": "json"})
    assert response.status_code == 200, response.content[:300]
    return json.loads(response.content)


def generated_document() -> dict[str, Any]:
    """What ``GET schema`` serves, without a request (for test collection)."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    return json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))


@cache
def openapi() -> OpenAPI:
    problem_json: dict[str, Callable[[bytes], Any]] = {"application/problem+json": json.loads}
    return OpenAPI.from_dict(served_document(), config=Config(extra_media_type_deserializers=problem_json))


def _errors(exc: Exception) -> str:
    parts = [f"{type(exc).__name__}: {exc}"]
    for inner in getattr(exc, "schema_errors", ()) or ():
        parts.append(f"  at {list(inner.absolute_path)}: {inner.message[:300]}")
    cause = exc.__cause__
    if cause is not None:
        parts.append(f"  cause: {type(cause).__name__}: {str(cause)[:300]}")
        for inner in getattr(cause, "schema_errors", ()) or ():
            parts.append(f"    at {list(inner.absolute_path)}: {inner.message[:300]}")
    return "\n".join(parts)


@dataclass
class Conformance:
    """Every answer through `call` is checked; ``problems`` lists what did not validate."""

    problems: list[str] = field(default_factory=list)
    seen: dict[tuple[str, str, int, str], int] = field(default_factory=dict)  # (method, path, status, type)

    def check_request(self, method: str, path: str, body: Any, query: dict[str, Any] | None = None) -> None:
        request = MockRequest(
            HOST,
            method.lower(),
            path,
            args=query,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": "Token checked-by-the-server"},
            content_type="application/json",
        )
        try:
            openapi().validate_request(request)
        except Exception as exc:
            self.problems.append(f"request {method} {path} {json.dumps(body)[:300]}\n{_errors(exc)}")

    def check(self, method: str, path: str, response: Any, query: dict[str, Any] | None = None) -> None:
        content_type = response.headers.get("Content-Type", "").split(";")[0]
        key = (method.upper(), _template(path), response.status_code, content_type)
        self.seen[key] = self.seen.get(key, 0) + 1
        request = MockRequest(HOST, method.lower(), path, args=query)
        headers = {k: v for k, v in response.headers.items()}
        mock = MockResponse(
            response.content, status_code=response.status_code, headers=headers, content_type=content_type
        )
        try:
            openapi().validate_response(request, mock)
        except Exception as exc:
            self.problems.append(
                f"response {method} {path} -> {response.status_code} {content_type}: "
                f"{response.content[:300]!r}\n{_errors(exc)}"
            )

    def call(
        self,
        client: APIClient,
        method: str,
        path: str,
        body: Any = None,
        query: dict[str, Any] | None = None,
        **extra: Any,
    ) -> Any:
        send = getattr(client, method.lower())
        if method.lower() == "get":
            response = send(path, query or {}, **extra)
        else:
            response = send(path, body, format="json", **extra) if body is not None else send(path, **extra)
        self.check(method, path, response, query)
        return response


def _template(path: str) -> str:
    parts = path.split("/")
    if len(parts) > 4 and parts[3] == "matches":
        parts[4] = "{match_id}"
    if len(parts) > 4 and parts[3] == "users":
        parts[4] = "{username}"
    if len(parts) > 4 and parts[3] == "games":
        parts[4] = "{game}"
    return "/".join(parts)
