"""What `notify` knows of the apps that publish through it, told by them at start-up.

`notify` imports no app above it. An app that writes inbox entries and has matches to stream
registers here once (`games` does, in ``GamesConfig.ready``): the entry types it writes (webhooks
may subscribe to them) and a `Matches`, what the match streams, the stream poll and the e-mail
digest read of its matches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

OWN_TYPES = ("webhook_disabled",)  # notify.webhooks: one of the user's endpoints kept failing


class Matches(Protocol):
    """The matches a publisher streams; each method reads the database, none writes."""

    def events(self, match_id: str, user_id: int, after: int, limit: int) -> list[dict[str, Any]]:
        """The match's records after ``after`` as the user may see them (each with its ``seq`` and
        ``type``), at most ``limit``; none for a match that does not exist."""
        ...

    def last_record(self) -> int:
        """The highest record id (where the stream poll starts)."""
        ...

    def records_after(self, record_id: int, limit: int) -> list[tuple[int, str]]:
        """(record id, match id) of the records after ``record_id``, by id, at most ``limit``."""
        ...

    def turns(self, user: Any) -> list[dict[str, Any]]:
        """The matches in which ``user`` has something to do now (the e-mail digest lists them):
        each with ``match``, ``game`` and ``deadline``."""
        ...

    def recently_active(self, user: Any) -> bool:
        """Whether ``user`` played a move lately (no e-mail then)."""
        ...


_types: list[str] = list(OWN_TYPES)
_matches: list[Matches] = []


def publish(types: Iterable[str], matches: Matches) -> None:
    """Register a publisher: the inbox entry types it writes and its matches (once per process)."""
    _types.extend(t for t in types if t not in _types)
    _matches[:] = [matches]


def types() -> tuple[str, ...]:
    """Every inbox entry type: the publishers' and notify's own."""
    return tuple(_types)


def matches() -> Matches:
    """The registered `Matches`; `games` registers it when Django starts."""
    if not _matches:
        raise RuntimeError("no app has registered its matches with notify (is 'games' in INSTALLED_APPS?)")
    return _matches[0]
