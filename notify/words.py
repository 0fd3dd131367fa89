"""What the notices say where a person reads text (issue 33): the push title and the chat line of a
webhook, by inbox entry type. The entries themselves hold codes; these are said in the recipient's
language (`languages.speaking`) by the channel that sends them."""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language, gettext, gettext_noop

import languages

TITLES = {
    "your_turn": gettext_noop("Your turn"),
    "clock_low": gettext_noop("Your clock is running low"),
    "timed_out": gettext_noop("Your clock ran out"),
    "match_started": gettext_noop("A match started"),
    "match_finished": gettext_noop("A match is over"),
    "invited": gettext_noop("You are invited to a match"),
    "nudged": gettext_noop("A player is waiting for you"),
    "chat": gettext_noop("New messages at the table"),
    "proposal": gettext_noop("A proposal waits for your answer"),
    "proposal_result": gettext_noop("A proposal was decided"),
    "bot_took_over": gettext_noop("A bot took your seat"),
    "followed": gettext_noop("Someone follows you"),
    "tournament_started": gettext_noop("A tournament of yours started"),
    "tournament_paired": gettext_noop("Your next tournament match is ready"),
    "tournament_finished": gettext_noop("A tournament of yours is over"),
    "test": gettext_noop("A test message"),
}


def title(type: str) -> str:
    """The entry type's title in the active language ("Tabula" for a type without one)."""
    return gettext(TITLES[type]) if type in TITLES else "Tabula"


def game_name(game: Any) -> str:
    """A game's name as its catalogue spells it in the active language (the code if it has none)."""
    if not isinstance(game, str) or not game:
        return ""
    language = languages.normalize(get_language()) or languages.DEFAULT
    return languages.text(game, language, "game.name") or game
