"""Everything that changes a match, by concern; callers import the module they use.

- `lobby`: create a match, invite, join, leave, add bots, rematch, delete an account;
- `play`: the one path every game input takes (`play.apply_input`), moves and resignations;
- `deadlines`: the game timer and seat clocks that ran out;
- `operators`: what staff do to a match (abort it);
- `writes`: what they all write with: the match lock, the record append, the row's progress.

Each service is one transaction that locks the match row first. Services answer domain values;
the API renders them.
"""
