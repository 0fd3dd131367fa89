"""Schemathesis hooks for .ci/fuzz: every error Tabula answers is an RFC 9457 problem document."""

from __future__ import annotations

import json
from typing import Any

import schemathesis

MEMBERS = {"type", "title", "status", "detail", "code"}


def _header(response: Any, name: str) -> str:
    value = response.headers.get(name) or response.headers.get(name.lower()) or ""
    return value[0] if isinstance(value, list) and value else str(value)


@schemathesis.check
def problem_documents(ctx: Any, response: Any, case: Any) -> None:
    """A 4xx or 5xx is application/problem+json with type, title, status, detail and a stable code."""
    if response.status_code < 400:
        return
    content_type = _header(response, "Content-Type")
    if not content_type.startswith("application/problem+json"):
        raise AssertionError(f"{response.status_code} answered with {content_type!r}, not a problem document")
    body = json.loads(response.content)
    missing = MEMBERS - set(body)
    if missing:
        raise AssertionError(f"problem document without {sorted(missing)}")
    if body["status"] != response.status_code:
        raise AssertionError(f"problem status {body['status']} != HTTP {response.status_code}")
