"""Ecos: First Continent — simultaneous element draws, card tableaux and one shared hex map (2–6 players).

Rules summary (the rules as implemented: docs/rules/ecos.md Part B; seats are 0-based, the page's pK is seat K−1):
- Setup (§B3): start map of 4 tiles; 7 cubes, dial 0, score 0 per seat; a random Harbinger; the
  40-token bag (2 wild). Cards are preset hands (3 active, 9 in hand) or a draft (§B3.2: pick 1 of
  5 blue passing left, then 1 of 9 brown passing right, then `choose_active` 3), or both
  (`preset_seats`). Two players (§B3.1): 18 cards and 5 active each, picks of 2, 2 tokens a draw.
- Draw (§B4): the server draws a token; the simultaneous `respond` prompt asks every seat to place
  a cube on a matching empty slot of a tableau card (moving a cube when it has none) or to turn its
  dial. Seats with no legal placement rotate automatically. Answers stay hidden until every seat
  has answered, then resolve seat by seat from the Harbinger.
- Dial (§B5): position 2 offers a card (`dial_gain_card`), position 3 a reward (`dial_reward`).
- ECO (§B6): filling a card's last slot returns its cubes, runs its effects top to bottom
  (§B8, the data-driven effect language of `cards.json`, interpreted by `effects.py`) and uses one
  leaf; the last leaf discards it. After an earlier seat's ECO in the same draw, `eco_confirm`
  lets a seat retract its cube and rotate instead.
- Gaining a card (§B7): two deck cards (keep one, the other goes face up) or one face-up card.
- End (§B4.3, §B9): a wild ends the round; at its end a seat with score ≥ target (80, or 60)
  ends the game: the single top score wins, a tie draws one more token per tiebreak.
  Our bounds [D]: the game also ends after round 50 (reason `round_limit`), a tie still standing
  after 20 tiebreak draws is shared, and a complete simultaneous answer may be replaced 3 times.
- Resignation: the seat stays, is never awaited and gets every default at once; ranked last.
Invariants (`invariant_violations`): each of the 96 cards is in exactly one place; the bag plus the
tokens drawn this round are the 40 tokens; 66 cubes, 45 land and 30 water tiles, 15 mountains,
25 forests and 102 animals are conserved; every map token keeps its capacity and habitat.

The package: `model.py` (constants and values: state, config, moves, view), `engine.py` (options,
setup, queries, transitions, invariants, the bot heuristic), `effects.py` (the effect interpreter),
`codec.py` (the view, the move and state codecs, `determinize`), `board.py` and `cards.py` (the
map and the card data). This module holds only the record.
"""

from __future__ import annotations

from rules.base import Rules
from rules.ecos.cards import CARD_IDS, CARDS, PLACEMENT_OPS
from rules.ecos.codec import codec, determinize, dump_state, parse_state, view
from rules.ecos.engine import (
    OPTIONS,
    apply,
    awaiting,
    heuristic,
    invariant_violations,
    legal_moves,
    outcome,
    parse_config,
    resign,
    setup,
    timeout,
)
from rules.ecos.model import GAME, PLAYERS, REPLACE_LIMIT, ROUND_LIMIT, TIEBREAK_LIMIT, Config, Move, State

# --- 1. constants ---------------------------------------------------------------------------


def _max_moves() -> int:
    """A hard bound on records (every match ends), from the limits of `model.py` (docs/rules/ecos.md §B9)."""
    per_card = max(
        sum(s.count if s.op in PLACEMENT_OPS else 2 * s.count if s.op == "gain_card" else 0 for s in CARDS[c].effects)
        for c in CARD_IDS
    )
    per_answer = 1 + per_card + 1 + 3  # eco_confirm, effects, retraction → rotation → gain (source + keep)
    worst = 0
    for n in PLAYERS:
        tokens = 2 if n == 2 else 1
        draws = 40 // tokens  # a round ends at the first wild
        per_draw = n * (tokens + REPLACE_LIMIT + tokens * per_answer)
        draft = 12 * n * (2 + REPLACE_LIMIT) + n * (5 + REPLACE_LIMIT)
        worst = max(worst, draft + (ROUND_LIMIT * draws + TIEBREAK_LIMIT) * per_draw + n)
    return worst


# --- 8. the record --------------------------------------------------------------------------

RULES: Rules[State, Move, Config] = Rules(
    name=GAME,
    title="Ecos: First Continent",
    version=1,
    seats=PLAYERS,
    max_moves=_max_moves(),
    options=OPTIONS,
    moves=codec.specs,
    parse_config=parse_config,
    setup=setup,
    awaiting=awaiting,
    legal_moves=legal_moves,
    view=view,
    outcome=outcome,
    apply=apply,
    timeout=timeout,
    resign=resign,
    parse_move=codec.parse,
    dump_move=codec.dump,
    parse_state=parse_state,
    dump_state=dump_state,
    invariant_violations=invariant_violations,
    determinize=determinize,
    heuristic=heuristic,
)
