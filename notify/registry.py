"""What `notify` knows of the apps that publish through it, told by them at start-up.

`notify` imports no app above it. An app that writes inbox entries and has matches to stream
registers here once (`games` does, in ``GamesConfig.ready``): the entry types it writes (webhooks
may subscribe to them) and a `Matches`, what the match streams, the stream poll and the e-mail
digest read of its matches. Others register entry types only (`circles`), or also a `Source` of
stream wake-ups and `Digest` lines (`talk`: chat messages).
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


class Source(Protocol):
    """Rows besides records and inbox entries that wake streams (`talk`'s chat messages): on the
    embedded default the stream poll reads them by primary key, as it reads records."""

    def last(self) -> int:
        """The highest row id (where the poll starts)."""
        ...

    def after(self, row_id: int, limit: int) -> list[tuple[int, str]]:
        """(row id, stream key) of the rows after ``row_id``, by id, at most ``limit``; a key is
        ``m:<match id>`` or ``u:<user id>``."""
        ...


class Digest(Protocol):
    """More lines for the e-mail digest (`talk`: unread chat, a nudge)."""

    def __call__(self, user: Any) -> list[str]:
        """What waits for ``user`` besides their turns: one line each (none: nothing to add)."""
        ...


_types: list[str] = list(OWN_TYPES)
_matches: list[Matches] = []
_sources: dict[str, Source] = {}
_digests: dict[str, Digest] = {}


def publish(types: Iterable[str], matches: Matches) -> None:
    """Register a publisher: the inbox entry types it writes and its matches (once per process)."""
    _types.extend(t for t in types if t not in _types)
    _matches[:] = [matches]


def publish_types(types: Iterable[str]) -> None:
    """Register inbox entry types written by an app that streams no matches (`circles`, `talk`)."""
    _types.extend(t for t in types if t not in _types)


def wake_on(name: str, source: Source) -> None:
    """Register a `Source` of stream wake-ups under ``name`` (once per process; again replaces it)."""
    _sources[name] = source


def sources() -> dict[str, Source]:
    return dict(_sources)


def digest_with(name: str, digest: Digest) -> None:
    """Register more lines for the e-mail digest under ``name``."""
    _digests[name] = digest


def digest_lines(user: Any) -> list[str]:
    return [line for digest in _digests.values() for line in digest(user)]


def types() -> tuple[str, ...]:
    """Every inbox entry type: the publishers' and notify's own."""
    return tuple(_types)


def matches() -> Matches:
    """The registered `Matches`; `games` registers it when Django starts."""
    if not _matches:
        raise RuntimeError("no app has registered its matches with notify (is 'games' in INSTALLED_APPS?)")
    return _matches[0]
