"""A division's schedule: which players sit at which table, in which seat order.

Pure Python (no Django, no project import), deterministic: the same players in
the same order always give the same tables. ``docs/LEAGUES.md`` ("Schedule")
writes the algorithm down and says what it guarantees; ``tests/leagues/
test_schedule.py`` checks it for every division size from 2 to 12 and every
table size.

- Tables of 2: a round robin by the circle method (Berger tables). Everyone
  meets everyone once; each player moves first in half their games, as far as
  parity allows (n odd: exactly (n-1)/2; n even: (n-2)/2 or n/2). With
  ``double=True`` every game is played twice, once each way.
- Tables of 3 or 4: every player plays the same number of games,
  ``games_per_player(n, k)``, the smallest g such that the g·(k-1) opponents a
  player meets can cover the n-1 others and the n·g seats fill whole tables
  (k divides n·g). The tables are then found by a deterministic local search
  that makes every pair meet ⌊λ⌋ or ⌈λ⌉ times (λ the mean), which for these
  sizes is a balanced design where one exists (7 players in threes: the Fano
  plane; 9 in threes: the affine plane of order 3; 7 in fours: its
  complement). The seat orders are searched the same way so that every
  player sits in each seat, the first above all, as evenly as the numbers
  allow. ``double=True`` plays twice as many games (2g), searched the same
  way: every pair then meets at least twice, within one of each other.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import TypeVar

T = TypeVar("T")

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 4

# The local search stops when it reaches the optimum it knows exists, or after
# this many rounds of moves; the tests check it reaches it for every size the
# league allows (up to 12 players), so the cap only guards larger calls.
_MAX_STEPS = 400_000
_RESTART = 10_000
# The annealing's temperature: its start (again at each restart), floor and
# cooling per accepted move. A cost step is at least 2; starting at 0.5 takes
# about one worsening move in 50 at first, which every size up to 12 players
# needs to leave its plateaus (started hotter, the 9-player and 12-player
# double schedules wander for the whole budget).
_T0 = 0.5
_TMIN = 0.05
_COOL = 0.9995


# Sizes where the rule's g admits no schedule whose pair meetings differ by at
# most one, so one more game each is played to get one: 8 players at tables of
# 4 with 3 games each (6 tables) would leave some pair meeting twice more than
# another (an exhaustive search proves it, tests/leagues/test_schedule.py);
# with 4 games each (8 tables) every pair meets once or twice.
_MORE_GAMES = {(8, 4): 4}


class ScheduleError(ValueError):
    """No schedule: a table size the game does not have, or too few players for one table."""


def games_per_player(n: int, table_size: int, *, double: bool = False) -> int:
    """How many games each of ``n`` players plays in a division at tables of ``table_size``.

    Tables of 2: n-1 (a round robin), twice that with ``double``. Tables of 3
    or 4: the smallest g with g·(k-1) ≥ n-1 and k | n·g, twice that with
    ``double``.
    """
    _check(n, table_size)
    k = table_size
    if k == 2:
        g = n - 1
    else:
        g = _MORE_GAMES.get((n, k), -(-(n - 1) // (k - 1)))
        while (n * g) % k:
            g += 1
    return 2 * g if double else g


def schedule(players: Sequence[T], table_size: int, *, double: bool = False) -> list[tuple[T, ...]]:
    """Every table of the division, each a tuple of players in seat order (the first moves first).

    ``players`` must be distinct; their order only names them (the schedule's
    shape depends on their number alone), so passing them in the same order
    gives the same tables.
    """
    n = len(players)
    if len(set(players)) != n:
        raise ScheduleError("the players of a division must be distinct")
    _check(n, table_size)
    if table_size == 2:
        shape = _round_robin(n, double)
    else:
        shape = _design(n, table_size, games_per_player(n, table_size, double=double))
    return [tuple(players[i] for i in table) for table in shape]


def _check(n: int, table_size: int) -> None:
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise ScheduleError(f"a table has 2 to 4 players, not {table_size}")
    if n < table_size:
        raise ScheduleError(f"{n} players cannot fill a table of {table_size}")


@cache
def _round_robin(n: int, double: bool) -> tuple[tuple[int, ...], ...]:
    """Berger tables: fix the last player, turn the others around the circle.

    With n odd a "bye" completes the circle and its games are dropped. In each
    round the fixed player's game alternates colours (first in even rounds),
    and each other pair takes the colour of its side of the circle, which
    gives every player first moves in half their games, within one when n-1
    is odd.
    """
    m = n if n % 2 == 0 else n + 1
    bye = n if m != n else None
    circle = list(range(m - 1))
    fixed = m - 1
    games: list[tuple[int, int]] = []
    for rnd in range(m - 1):
        pairs = [(circle[0], fixed) if rnd % 2 == 0 else (fixed, circle[0])]
        for i in range(1, m // 2):
            pairs.append((circle[i], circle[-i]))
        games.extend(p for p in pairs if bye is None or bye not in p)
        circle = circle[-1:] + circle[:-1]
    if bye is not None:
        # The fixed player was the bye: the alternation above did not reach
        # the games it would have balanced, so orient by the parity rule
        # instead, which is exact on an odd complete graph.
        games = [(a, b) if (a + b) % 2 == (a < b) else (b, a) for a, b in games]
    if double:
        games = games + [(b, a) for a, b in games]
    return tuple(games)


@cache
def _design(n: int, k: int, g: int) -> tuple[tuple[int, ...], ...]:
    """n·g/k tables of k among n players, each player at g of them, pairs balanced, seats balanced."""
    rng = random.Random(f"diamino-league-schedule-{n}-{k}-{g}")
    tables = _balanced_tables(n, k, g, rng)
    return _order_seats(n, k, tables, rng)


def _optimum(total: int, cells: int) -> int:
    """The least sum of squares of ``cells`` non-negative integers adding up to ``total``."""
    q, r = divmod(total, cells)
    return (cells - r) * q * q + r * (q + 1) * (q + 1)


def _balanced_tables(n: int, k: int, g: int, rng: random.Random) -> list[list[int]]:
    """Tables where every pair meets ⌊λ⌋ or ⌈λ⌉ times.

    Start from the players dealt round the tables in order (each at g tables,
    never twice at one, since k ≤ n), then swap two players between two tables
    while the sum over pairs of (meetings)² does not grow; it is least exactly
    when every pair meets ⌊λ⌋ or ⌈λ⌉ times, which is where the search stops.
    A swap that makes it worse is taken now and then (annealing) so the search
    leaves the plateaus.
    """
    seats = [p for _ in range(g) for p in range(n)]
    b = n * g // k
    tables = [seats[t * k : (t + 1) * k] for t in range(b)]
    meet = [[0] * n for _ in range(n)]
    for table in tables:
        for a, c in combinations(table, 2):
            meet[a][c] += 1
            meet[c][a] += 1
    cost = sum(meet[a][c] ** 2 for a in range(n) for c in range(a + 1, n))
    best = _optimum(b * k * (k - 1) // 2, n * (n - 1) // 2)
    least, least_tables = cost, [list(t) for t in tables]
    temperature = _T0
    for step in range(_MAX_STEPS):
        if least == best:
            break
        if step % _RESTART == 0:
            # Warm up again: a cooled search stuck on a plateau rarely leaves it.
            temperature = _T0
        t1, t2 = rng.randrange(b), rng.randrange(b)
        if t1 == t2:
            continue
        i, j = rng.randrange(k), rng.randrange(k)
        x, y = tables[t1][i], tables[t2][j]
        if x == y or x in tables[t2] or y in tables[t1]:
            continue
        change: dict[tuple[int, int], int] = {}
        for p in tables[t1]:
            if p != x:
                change[(x, p)] = change.get((x, p), 0) - 1
                change[(y, p)] = change.get((y, p), 0) + 1
        for p in tables[t2]:
            if p != y:
                change[(y, p)] = change.get((y, p), 0) - 1
                change[(x, p)] = change.get((x, p), 0) + 1
        delta = sum((meet[a][c] + d) ** 2 - meet[a][c] ** 2 for (a, c), d in change.items())
        if delta > 0 and rng.random() >= math.exp(-delta / temperature):
            continue
        for (a, c), d in change.items():
            meet[a][c] += d
            meet[c][a] += d
        tables[t1][i], tables[t2][j] = y, x
        cost += delta
        if cost < least:
            least, least_tables = cost, [list(t) for t in tables]
        temperature = max(_TMIN, temperature * _COOL)
    return [sorted(table) for table in least_tables]


def _order_seats(
    n: int, k: int, tables: list[list[int]], rng: random.Random
) -> tuple[tuple[int, ...], ...]:
    """Seat orders where each player sits in each seat as evenly as possible, the first seat above all.

    Cost: Σ over players and seats of (times in that seat)², the first seat's
    term weighted so that no gain on the later seats pays for a worse spread of
    first moves. A move swaps two seats within one table; a worse move is
    taken now and then, and the best orders seen are the ones returned.
    """
    count = [[0] * k for _ in range(n)]
    for table in tables:
        for s, p in enumerate(table):
            count[p][s] += 1
    weight = [4 * k * k * n] + [1] * (k - 1)
    b = len(tables)
    floor = sum(weight[s] * _optimum(b, n) for s in range(k))
    current = sum(weight[s] * count[p][s] ** 2 for p in range(n) for s in range(k))
    best, best_tables = current, [list(t) for t in tables]
    for _step in range(_MAX_STEPS // 4):
        if best == floor:
            break
        t = rng.randrange(b)
        s1, s2 = rng.sample(range(k), 2)
        table = tables[t]
        x, y = table[s1], table[s2]
        delta = weight[s1] * (
            (count[y][s1] + 1) ** 2
            - count[y][s1] ** 2
            + (count[x][s1] - 1) ** 2
            - count[x][s1] ** 2
        ) + weight[s2] * (
            (count[x][s2] + 1) ** 2
            - count[x][s2] ** 2
            + (count[y][s2] - 1) ** 2
            - count[y][s2] ** 2
        )
        if delta > 0 and rng.random() >= 0.05:
            continue
        count[x][s1] -= 1
        count[y][s1] += 1
        count[y][s2] -= 1
        count[x][s2] += 1
        table[s1], table[s2] = y, x
        current += delta
        if current < best:
            best, best_tables = current, [list(t) for t in tables]
    return tuple(tuple(table) for table in best_tables)
