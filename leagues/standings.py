"""A division's standings from its games' results.

Pure Python (no Django): the caller turns each game into a ``GameResult``
(``leagues.pages`` does it for the site's games), and ``standings`` orders the
division's players. ``docs/LEAGUES.md`` ("Standings") writes the rules down;
``tests/leagues/test_standings.py`` checks them against a hand-worked example.

1. Points: 1 for a win; winners of a tie share it (two winners ½ each, three ⅓).
2. Then the sum of Marque score differences: in each finished game, the
   player's score minus each opponent's, added up (at a table of 2 simply
   the margin; at 3 or 4 the table's differences add up to zero).
3. Then head-to-head among the players still tied: in the finished games two
   of them played together, the one placed higher at that table takes 1,
   equal places ½ each.

A seat that resigned or timed out is a loss (never a winner, placed below the
players who finished, R-END-4) with the score the rules gave it. Running games
count nothing but are shown (``running``). Players tied on all three share a
rank (1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True)
class GameResult(Generic[P]):
    """One game of a division, as far as the standings need it."""

    players: tuple[P, ...]
    """The players in seat order."""
    scores: tuple[int, ...]
    """Each seat's Marque score, in seat order (a resigned seat: what the rules left it)."""
    winners: frozenset[P] = frozenset()
    """Who won; several when equal scores share the win; empty while running."""
    finished: bool = True
    """False while the game is still being played: it counts nothing yet."""
    forfeited: frozenset[P] = frozenset()
    """Seats that resigned or timed out: losses, placed below those who finished."""
    game: object = None
    """The caller's handle on the game (a ``Game``, an id), carried along untouched."""

    def __post_init__(self) -> None:
        if len(self.players) != len(self.scores):
            raise ValueError("one score per seat")
        if not self.winners <= set(self.players) or not self.forfeited <= set(self.players):
            raise ValueError("winners and forfeits sit at the table")
        if self.winners & self.forfeited:
            raise ValueError("a seat that resigned or timed out does not win")

    def place_key(self, player: P) -> tuple[bool, bool, int]:
        """Orders the seats of this game, best first when sorted in reverse."""
        score = self.scores[self.players.index(player)]
        return (player in self.winners, player not in self.forfeited, score)


@dataclass
class Row(Generic[P]):
    """One line of the standings table."""

    player: P
    rank: int = 0
    points: Fraction = Fraction(0)
    score_difference: int = 0
    played: int = 0
    """Finished games."""
    won: int = 0
    """Finished games won, a shared win included."""
    running: int = 0
    forfeits: int = 0
    """Finished games this player resigned or timed out of."""
    head_to_head: Fraction | None = None
    """The head-to-head points, set only when it was needed to break a tie."""
    games: list[object] = field(default_factory=list)

    @property
    def points_float(self) -> float:
        """The points as a number a template can format (½ → 0.5)."""
        return float(self.points)


def standings(players: Sequence[P], results: Iterable[GameResult[P]]) -> list[Row[P]]:
    """The division's rows, best first; every player listed, even without a game."""
    rows: dict[P, Row[P]] = {p: Row(player=p) for p in players}
    finished: list[GameResult[P]] = []
    for result in results:
        for p in result.players:
            if p not in rows:
                raise ValueError(f"{p!r} plays in the division's game but is not in the division")
            rows[p].games.append(result.game)
        if not result.finished:
            for p in result.players:
                rows[p].running += 1
            continue
        finished.append(result)
        share = Fraction(1, len(result.winners)) if result.winners else Fraction(0)
        total = sum(result.scores)
        k = len(result.players)
        for p, score in zip(result.players, result.scores, strict=True):
            row = rows[p]
            row.played += 1
            row.score_difference += k * score - total
            if p in result.winners:
                row.points += share
                row.won += 1
            if p in result.forfeited:
                row.forfeits += 1

    order = list(players)
    order.sort(key=lambda p: (rows[p].points, rows[p].score_difference), reverse=True)
    ranked: list[P] = []
    i = 0
    while i < len(order):
        j = i
        key = (rows[order[i]].points, rows[order[i]].score_difference)
        while j < len(order) and (rows[order[j]].points, rows[order[j]].score_difference) == key:
            j += 1
        group = order[i:j]
        if len(group) > 1:
            h2h = _head_to_head(group, finished)
            for p in group:
                rows[p].head_to_head = h2h[p]
            group.sort(key=lambda p: h2h[p], reverse=True)
        ranked.extend(group)
        i = j

    result_rows = [rows[p] for p in ranked]
    for n, row in enumerate(result_rows):
        previous = result_rows[n - 1] if n else None
        if previous is not None and _tie_key(previous) == _tie_key(row):
            row.rank = previous.rank
        else:
            row.rank = n + 1
    return result_rows


def _tie_key(row: Row[P]) -> tuple[Fraction, int, Fraction | None]:
    return (row.points, row.score_difference, row.head_to_head)


def _head_to_head(group: list[P], finished: list[GameResult[P]]) -> dict[P, Fraction]:
    """Each tied player's points against the others of the group, pair by pair."""
    members = set(group)
    points = {p: Fraction(0) for p in group}
    for result in finished:
        at_table = [p for p in result.players if p in members]
        for a, b in combinations(at_table, 2):
            ka, kb = result.place_key(a), result.place_key(b)
            if ka > kb:
                points[a] += 1
            elif kb > ka:
                points[b] += 1
            else:
                points[a] += Fraction(1, 2)
                points[b] += Fraction(1, 2)
    return points
