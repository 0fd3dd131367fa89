"""Bot tournament: `strong` against `random` and against `greedy`, for every registered game.

    python bench/bots.py [--games N] [--game ekko] [--players P] [--iterations I] [--seconds S]

Each match seats one `strong` bot and gives every other seat the weaker level; the
strong seat rotates with the match number, and match ``k`` uses seed ``k`` (so a
run is reproducible as long as the wall-clock cap does not cut searches short).
Everything runs in-process through the engine (`rules.bots.play_match`): no
database, no Celery. Prints, per game and opponent, the strong seat's win rate
(a shared win counts as a fraction) next to the 1/players baseline, its mean
rank, and the median and 90th percentile seconds per strong decision.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import RULES
from rules.bots import STRONG_ITERATIONS, STRONG_SECONDS, play_match


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="matches per pairing (default 20)")
    parser.add_argument("--game", choices=sorted(RULES), action="append", help="only this game (repeatable)")
    parser.add_argument("--players", type=int, default=2, help="seats per match, clamped to the game's range")
    parser.add_argument("--iterations", type=int, default=STRONG_ITERATIONS, help="strong's iteration budget")
    parser.add_argument("--seconds", type=float, default=STRONG_SECONDS, help="strong's wall-clock cap (0: none)")
    parser.add_argument("--opponent", choices=("random", "greedy"), action="append", help="only this opponent")
    return parser.parse_args()


def _pairing(game: str, opponent: str, args: argparse.Namespace) -> None:
    """Play ``args.games`` matches of one strong seat against ``opponent`` seats and print one line."""
    rules = RULES[game]
    players = min(max(args.players, rules.seats.start), rules.seats.stop - 1)
    seconds = args.seconds or None
    wins = 0.0
    ranks: list[float] = []
    timings: list[float] = []
    records: list[int] = []
    started = time.perf_counter()
    for match in range(args.games):
        strong = match % players
        levels = [opponent] * players
        levels[strong] = "strong"
        record = play_match(rules, levels, match, iterations=args.iterations, seconds=seconds)
        outcome = record.outcome
        if strong in outcome.winners:
            wins += 1 / len(outcome.winners)
        ahead = 0
        for group in outcome.ranking:
            if strong in group:
                ranks.append(ahead + (len(group) + 1) / 2)
                break
            ahead += len(group)
        timings.extend(seconds for seat, _, seconds in record.decisions if seat == strong)
        records.append(record.records)
    elapsed = time.perf_counter() - started
    deciles = statistics.quantiles(timings, n=10) if len(timings) > 1 else timings * 9
    print(
        f"{game:5} {players}p strong vs {opponent:6}  win {wins / args.games:6.1%} (baseline {1 / players:5.1%})"
        f"  mean rank {statistics.fmean(ranks):.2f}  strong move median {statistics.median(timings):.3f}s"
        f" p90 {deciles[-1]:.3f}s  ({len(timings)} decisions, {statistics.fmean(records):.0f} records/match,"
        f" {elapsed:.0f}s)",
        flush=True,
    )


def main() -> None:
    """Run the tournament over the selected games."""
    args = _arguments()
    games = args.game or sorted(RULES)
    if not games:
        print("no engine is registered in rules.RULES")
        return
    print(
        f"{args.games} matches per pairing; strong: {args.iterations} iterations, "
        f"cap {args.seconds or 'none'} s per decision",
        flush=True,
    )
    for game in games:
        for opponent in args.opponent or ("random", "greedy"):
            _pairing(game, opponent, args)


if __name__ == "__main__":
    main()
