"""Chat per match (docs/api.md, *Table talk*): persistent, numbered per match and channel.

Who reads what is decided in one place, `Reader.sees`:

- ``table``: the seated players and staff while the match is live; everyone who may see the match
  after it ends. A whisper (``to``: a seat) is its author's, that seat's and staff's only, always.
- ``spectators``: whoever may watch and is not seated, while the match is live (no coaching); after
  the end, everyone.
- ``sealed``: its author alone until the match ends, then everyone.

Then each reader's own filters: the authors they block (circles, the ``messages`` concern) and their
``chat`` preference (``all``, ``friends``: their friends' messages and their own, ``off``: their
own). A hidden message keeps its place, its text gone for everyone but staff.

A message is not a record: posting never changes the match's ``version``. Each new table message
or whisper puts one ``chat`` entry in a recipient's inbox, unless one is already unread there
(`ChatCursor.notified`, cleared by ``PUT chat/read``): chat reaches streams, webhooks and the e-mail
digest without flooding them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts import usernames
from accounts.models import User
from circles import selectors as circles
from core.errors import ApplicationError, Conflict, Forbidden, InvalidRequest, NotFound
from games import selectors as games
from games.models import Match, Seat
from notify import fanout
from notify.inbox import notify
from talk import moderation
from talk.models import ChatCounter, ChatCursor, ChatMessage, ChatReport

TYPES = ("chat",)  # unread messages in a match: one entry until read
CHANNELS = ("table", "spectators", "sealed")
PREFERENCES = ("all", "friends", "off")  # the user preference `chat`
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")  # C0 but tab and newline; bidi overrides


class Muted(ApplicationError):
    """A moderator muted the caller (``until``: when they may chat again)."""

    code, status, title = "muted", 403, gettext_noop("Muted")


@dataclass
class Reader:
    """One reader of one match's chat."""

    user: User | None
    seat: int | None
    staff: bool
    ended: bool
    blocked: set[int] = field(default_factory=set)
    preference: str = "all"
    friends: set[int] = field(default_factory=set)

    @property
    def user_id(self) -> int | None:
        return None if self.user is None else self.user.pk

    def may_read(self, channel: str) -> bool:
        """Whether the channel is open to this reader at all (a sealed message: its author's)."""
        if self.ended or channel == "sealed":
            return True
        if channel == "table":
            return self.seat is not None or self.staff
        return self.seat is None  # spectators: never the players while live

    def sees(self, message: ChatMessage) -> bool:
        own = self.user_id is not None and message.author_id == self.user_id
        if message.to_seat is not None:
            if not (own or self.staff or (self.seat is not None and self.seat == message.to_seat)):
                return False
        elif message.channel == "sealed":
            if not (own or self.ended):
                return False
        elif not self.may_read(message.channel):
            return False
        if own or self.user is None:
            return True
        if message.author_id in self.blocked:
            return False
        if self.preference == "off":
            return False
        return self.preference != "friends" or message.author_id in self.friends


def reader_for(match: Match, user: User | None) -> Reader:
    if user is None or not user.is_authenticated:
        return Reader(None, None, False, not match.is_live)
    seat = Seat.objects.filter(match=match, user=user).values_list("index", flat=True).first()
    preference = (user.preferences or {}).get("chat", "all")
    reader = Reader(
        user,
        seat,
        user.is_staff,
        not match.is_live,
        blocked=circles.blocked_ids(user.pk, "messages"),
        preference=preference if preference in PREFERENCES else "all",
    )
    if reader.preference == "friends":
        reader.friends = circles.friend_ids(user.pk)
    return reader


def message_json(message: ChatMessage, reader: Reader) -> dict[str, Any]:
    author = message.author
    hidden = message.hidden_at is not None
    out: dict[str, Any] = {
        "seq": message.seq,
        "channel": message.channel,
        "seat": message.seat,
        "author": usernames.DELETED if author is None or author.deleted_at is not None else author.username,
        "text": "" if hidden and not reader.staff else message.text,
        "at": message.at.isoformat(),
        "to": message.to_seat,
        "hidden": hidden,
    }
    if reader.staff:
        out["flagged"] = message.flagged
        out["hidden_reason"] = message.hidden_reason
    return out


def _channel(channel: Any) -> str:
    if channel not in CHANNELS:
        raise InvalidRequest(
            _("Unknown channel."), errors={"channel": [_('Must be "table", "spectators" or "sealed".')]}
        )
    return str(channel)


def _text(text: Any, limit: int, *, name: str = "text", allow_empty: bool = False) -> str:
    if not isinstance(text, str):
        raise InvalidRequest(
            _("%(field)s must be a string.") % {"field": name}, errors={name: [_("Must be a string.")]}
        )
    text = text.strip()
    if not allow_empty and not text:
        raise InvalidRequest(_("%(field)s is empty.") % {"field": name}, errors={name: [_("May not be empty.")]})
    if len(text) > limit:
        raise InvalidRequest(
            _("%(field)s is too long.") % {"field": name},
            errors={
                name: [
                    ngettext("At most %(limit)s character.", "At most %(limit)s characters.", limit) % {"limit": limit}
                ]
            },
        )
    if _CONTROL.search(text):
        raise InvalidRequest(
            _("%(field)s holds control characters.") % {"field": name}, errors={name: [_("No control characters.")]}
        )
    return text


# --- reading ---------------------------------------------------------------------------------------


@dataclass
class Page:
    messages: list[dict[str, Any]]
    last_seq: int  # the last message looked at (the next page starts after it)
    more: bool
    read: int | None  # how far the caller has read this channel (None: anonymous)


def chat_list(
    *, match_id: str, user: User | None, channel: Any, after: int, limit: int, code: str | None = None
) -> Page:
    match = games.match_get_for(match_id, user, code)
    channel = _channel(channel)
    reader = reader_for(match, user)
    if not reader.may_read(channel):
        if channel == "table":
            raise Forbidden(_("The table's chat is its players' until the match ends."))
        raise Forbidden(_("Players do not see the spectators' chat while the match is live."))
    rows = ChatMessage.objects.filter(match=match, channel=channel, seq__gt=after).select_related("author")
    if channel == "sealed" and not reader.ended:
        rows = rows.filter(author_id=reader.user_id) if reader.user_id else rows.none()
    batch = list(rows.order_by("seq")[: limit + 1])
    more = len(batch) > limit
    batch = batch[:limit]
    read = None
    if reader.user is not None:
        read = (
            ChatCursor.objects.filter(user=reader.user, match=match, channel=channel)
            .values_list("read", flat=True)
            .first()
        ) or 0
    return Page(
        [message_json(m, reader) for m in batch if reader.sees(m)],
        batch[-1].seq if batch else after,
        more,
        read,
    )


def stream_page(match_id: str, user_id: int, after: int, limit: int) -> tuple[int, list[tuple[int, dict[str, Any]]]]:
    """The match stream's chat (``after``: the match's chat number ``n``): the last number looked at,
    and (n, message) of those ``user_id`` may read, after ``after``, at most ``limit`` looked at."""
    match = Match.objects.filter(id=match_id).first()
    user = User.objects.filter(pk=user_id).first()
    if match is None:
        return after, []
    reader = reader_for(match, user)
    rows = list(ChatMessage.objects.filter(match=match, n__gt=after).select_related("author").order_by("n")[:limit])
    last = rows[-1].n if rows else after
    return last, [(m.n, {**message_json(m, reader), "type": "chat"}) for m in rows if reader.sees(m)]


def chat_end(match_id: str) -> int:
    """The match's last chat number (where a stream opened without a cursor starts)."""
    return ChatCounter.objects.filter(match_id=match_id).values_list("n", flat=True).first() or 0


# --- writing ---------------------------------------------------------------------------------------


def _may_post(match: Match, reader: Reader, channel: str, to: int | None) -> None:
    if reader.user is None:
        raise Forbidden(_("Sign in to chat."))
    if to is not None:
        if channel != "table":
            raise InvalidRequest(
                _("Only the table's chat has whispers."), errors={"to": [_("Only on the table channel.")]}
            )
        if reader.seat is None:
            raise Forbidden(_("Only seated players whisper."))
        if isinstance(to, bool) or not isinstance(to, int) or not 0 <= to < match.players or to == reader.seat:
            raise InvalidRequest(_("No such seat to whisper to."), errors={"to": [_("Another seat of this match.")]})
        if match.rated and match.players >= 3:
            raise Conflict(
                "whispers_not_allowed",
                _("No whispers in a rated match of three or more: they would be a collusion channel."),
            )
    if channel == "table" and reader.seat is None and not reader.staff:
        raise Forbidden(_("Only the seated players (and staff) talk at the table."))
    if channel == "spectators" and reader.seat is not None and not reader.ended:
        raise Forbidden(_("Players do not talk in the spectators' chat while the match is live."))
    if channel == "sealed":
        if reader.seat is None:
            raise Forbidden(_("Only seated players seal messages."))
        if reader.ended:
            raise Conflict("match_over", _("The match is over: sealed messages are open now."))


def _counter(match: Match) -> ChatCounter:
    ChatCounter.objects.bulk_create([ChatCounter(match=match)], ignore_conflicts=True)
    return ChatCounter.objects.select_for_update().get(match=match)


@transaction.atomic
def chat_post(*, match_id: str, user: User, channel: Any, text: Any, to: Any = None) -> dict[str, Any]:
    match = games.match_get_for(match_id, user)
    channel = _channel(channel)
    text = _text(text, settings.TABULA_CHAT_MAX_LENGTH)
    reader = reader_for(match, user)
    _may_post(match, reader, channel, to)
    until = moderation.muted_until(user, match)
    if until is not None:
        raise Muted(_("You may not chat until %(until)s.") % {"until": until.isoformat()}, until=until.isoformat())
    counter = _counter(match)
    counter.n += 1
    seq = getattr(counter, channel) + 1
    setattr(counter, channel, seq)
    counter.save()
    message = ChatMessage.objects.create(
        match=match,
        channel=channel,
        seq=seq,
        n=counter.n,
        seat=reader.seat,
        author=user,
        to_seat=to,
        text=text,
        at=timezone.now(),
        flagged=moderation.flags(text),
    )
    match_key = f"{fanout.MATCH_CHANNEL}{match.id}"
    transaction.on_commit(lambda: fanout.publish(match_key, "chat"))
    if channel == "table":
        _notify_unread(match, message)
    return message_json(message, reader)


def _locked_cursor(user: User, match: Match, channel: str) -> ChatCursor:
    """The user's cursor on the channel, made if missing, locked until the transaction ends."""
    ChatCursor.objects.bulk_create([ChatCursor(user=user, match=match, channel=channel)], ignore_conflicts=True)
    return ChatCursor.objects.select_for_update().get(user=user, match=match, channel=channel)


def _notify_unread(match: Match, message: ChatMessage) -> None:
    """One ``chat`` entry per recipient and match until they read the chat: to the seats the message
    is for, unless they block its author or their preference keeps it from them."""
    seats = Seat.objects.filter(match=match, user__isnull=False).select_related("user").order_by("user_id")
    for seat in seats:
        user = seat.user
        assert user is not None
        if user.pk == message.author_id or not user.is_active:
            continue
        if message.to_seat is not None and seat.index != message.to_seat:
            continue
        reader = reader_for(match, user)
        if not reader.sees(message):
            continue
        cursor = _locked_cursor(user, match, "table")
        if cursor.notified:
            continue
        cursor.notified = True
        cursor.save(update_fields=["notified"])
        payload = {
            "match": match.id,
            "game": match.game,
            "channel": "table",
            "seq": message.seq,
            "by": message.author.username if message.author else usernames.DELETED,
            "whisper": message.to_seat is not None,
        }
        notify(user, "chat", payload, match)


@transaction.atomic
def chat_read(*, match_id: str, user: User, channel: Any, seq: Any) -> None:
    """The caller has read ``channel`` up to ``seq``: their unread ``chat`` entry for the match is done."""
    match = games.match_get_for(match_id, user)
    channel = _channel(channel)
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 2**31:
        raise InvalidRequest(_("seq must be a number."), errors={"seq": [_("A whole number, 0 or more.")]})
    cursor = _locked_cursor(user, match, channel)
    cursor.read = max(cursor.read, seq)
    cursor.notified = False
    cursor.save(update_fields=["read", "notified"])


def _message(match: Match, channel: Any, seq: int, reader: Reader) -> ChatMessage:
    message = (
        ChatMessage.objects.filter(match=match, channel=_channel(channel), seq=seq).select_related("author").first()
    )
    if message is None or not reader.sees(message):
        raise NotFound(_("No message %(seq)s in this match's %(channel)s chat.") % {"seq": seq, "channel": channel})
    return message


@transaction.atomic
def chat_report(*, match_id: str, user: User, channel: Any, seq: int, reason: Any) -> None:
    """Report a message one can read, for staff (once per reporter)."""
    match = games.match_get_for(match_id, user)
    reason = _text(reason, 200, name="reason")
    message = _message(match, channel, seq, reader_for(match, user))
    ChatReport.objects.get_or_create(message=message, reporter=user, defaults={"reason": reason})


def chat_hide(*, match_id: str, user: User, channel: Any, seq: int, reason: Any, hidden: bool) -> dict[str, Any]:
    """Staff: hide a message (or show it again), with a reason."""
    moderation.require_staff(user)
    match = games.match_get_for(match_id, user)
    reason = _text(reason, 200, name="reason")
    reader = reader_for(match, user)
    message = _message(match, channel, seq, reader)
    return message_json(moderation.set_hidden(by=user, message=message, hidden=hidden, reason=reason), reader)


def export(match: Match) -> list[dict[str, Any]]:
    """A finished match's chat for its export: every channel, merged in order; no whisper, and a
    hidden message without its text (the export is anyone's who may see the match)."""
    everyone = Reader(None, None, False, True)
    rows = ChatMessage.objects.filter(match=match, to_seat__isnull=True).select_related("author").order_by("n")
    return [message_json(m, everyone) for m in rows]


def queue_json(user: User) -> list[dict[str, Any]]:
    """The staff's moderation queue, each message with its match and its open reports."""
    staff = Reader(user, None, True, True)
    out = []
    for message in moderation.queue(user):
        reports = list(message.reports.filter(resolved=False).values_list("reason", flat=True))
        out.append({**message_json(message, staff), "match": message.match_id, "reports": reports})
    return out


# --- the stream poll and the e-mail digest ------------------------------------------------------------


class _Wake:
    """`notify.registry.Source`: new messages wake their match's streams (the embedded default's poll)."""

    def last(self) -> int:
        return ChatMessage.objects.order_by("-pk").values_list("pk", flat=True).first() or 0

    def after(self, row_id: int, limit: int) -> list[tuple[int, str]]:
        rows = ChatMessage.objects.filter(pk__gt=row_id).order_by("pk").values_list("pk", "match_id")[:limit]
        return [(pk, f"m:{match_id}") for pk, match_id in rows]


WAKE = _Wake()


def digest_lines(user: Any) -> list[str]:
    """The e-mail digest's lines for unread chat: one per match with an unread ``chat`` entry."""
    base = settings.TABULA_PUBLIC_URL.rstrip("/")
    rows = (
        ChatCursor.objects.filter(user=user, notified=True).values_list("match_id", "match__game").order_by("match_id")
    )
    return [
        "- " + _("unread messages in %(game)s:") % {"game": game} + f" {base}/matches/{match_id}"
        for match_id, game in rows
    ]
