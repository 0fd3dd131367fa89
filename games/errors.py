"""The errors of play (the generic ones they extend are `core.errors`).

Engine refusals (`rules.base.RulesError`) are mapped in ``api/exceptions.py``; these are the
platform's own. No message names another seat's hidden cards.
"""

from __future__ import annotations

from core.errors import ApplicationError


class NotSeated(ApplicationError):
    code, status, title = "not_seated", 403, "Not seated"


class StaleVersion(ApplicationError):
    code, status, title = "version_conflict", 409, "Version conflict"

    def __init__(self, current: int) -> None:
        super().__init__(
            f"The match is at version {current}; re-read the state and resend with that expected_version.",
            current_version=current,
        )


class MatchOver(ApplicationError):
    code, status, title = "match_over", 409, "Match over"


class QuotaExceeded(ApplicationError):
    """A per-user cap (open matches, live matches with bots); the ``limit`` member says how many."""

    code, status, title = "quota_exceeded", 409, "Quota exceeded"
