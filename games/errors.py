"""The errors of play (the generic ones they extend are `core.errors`).

Engine refusals (`rules.base.RulesError`) are mapped in ``api/exceptions.py``; these are the
platform's own. No message names another seat's hidden cards.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext_lazy

from core.errors import ApplicationError


class NotSeated(ApplicationError):
    code, status, title = "not_seated", 403, gettext_noop("Not seated")


class StaleVersion(ApplicationError):
    code, status, title = "version_conflict", 409, gettext_noop("Version conflict")

    def __init__(self, current: int) -> None:
        super().__init__(
            _("The match is at version %(version)s; re-read the state and resend with that expected_version.")
            % {"version": current},
            current_version=current,
        )


class MatchOver(ApplicationError):
    code, status, title = "match_over", 409, gettext_noop("Match over")


class QuotaExceeded(ApplicationError):
    """A per-user cap (open matches, live matches with bots); the ``limit`` member says how many."""

    code, status, title = "quota_exceeded", 409, gettext_noop("Quota exceeded")


# A status inside a sentence: the English word is the status code itself; other languages inflect it
# to agree with the noun it describes (a match, a proposal), hence one context each.
_MATCH_STATUS = {
    "open": pgettext_lazy("match status", "open"),
    "active": pgettext_lazy("match status", "active"),
    "finished": pgettext_lazy("match status", "finished"),
    "aborted": pgettext_lazy("match status", "aborted"),
}
_PROPOSAL_STATUS = {
    "open": pgettext_lazy("proposal status", "open"),
    "passed": pgettext_lazy("proposal status", "passed"),
    "rejected": pgettext_lazy("proposal status", "rejected"),
    "expired": pgettext_lazy("proposal status", "expired"),
    "withdrawn": pgettext_lazy("proposal status", "withdrawn"),
}


def match_status(status: str) -> str:
    """A match's status as a word of the request's language (an unknown one as its code)."""
    return str(_MATCH_STATUS.get(status, status))


def proposal_status(status: str) -> str:
    return str(_PROPOSAL_STATUS.get(status, status))


def match_is(status: str) -> str:
    """``The match is finished.``: the detail of `MatchOver` and of a match that is no longer live."""
    return _("The match is %(status)s.") % {"status": match_status(status)}
