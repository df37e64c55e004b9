"""The division schedule: equal games, balanced pairs, balanced first seats, for every size.

The bounds asserted are the ones docs/LEAGUES.md ("Schedule") states.
"""

from __future__ import annotations

import ast
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from leagues import schedule as schedule_module
from leagues.schedule import ScheduleError, games_per_player, schedule

SIZES = [(k, n) for k in (2, 3, 4) for n in range(k, 13)]


def _pair_counts(tables: list[tuple[int, ...]], n: int) -> list[int]:
    met = Counter(frozenset(pair) for table in tables for pair in combinations(table, 2))
    return [met[frozenset(pair)] for pair in combinations(range(n), 2)]


def _seat_counts(tables: list[tuple[int, ...]], n: int, seat: int) -> list[int]:
    sat = Counter(table[seat] for table in tables)
    return [sat[p] for p in range(n)]


@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize(("k", "n"), SIZES)
def test_every_player_plays_the_same_number_of_games_never_twice_at_one_table(
    k: int, n: int, double: bool
) -> None:
    tables = schedule(list(range(n)), k, double=double)
    assert all(len(table) == k and len(set(table)) == k for table in tables)
    games = Counter(p for table in tables for p in table)
    assert sorted(games) == list(range(n))
    assert set(games.values()) == {games_per_player(n, k, double=double)}


@pytest.mark.parametrize("n", range(2, 13))
def test_at_tables_of_two_everyone_meets_everyone_once_moving_first_in_half(n: int) -> None:
    tables = schedule(list(range(n)), 2)
    assert _pair_counts(tables, n) == [1] * (n * (n - 1) // 2)
    firsts = _seat_counts(tables, n, 0)
    if n % 2:
        assert set(firsts) == {(n - 1) // 2}
    else:
        assert set(firsts) <= {(n - 2) // 2, n // 2}


@pytest.mark.parametrize("n", range(2, 13))
def test_double_at_tables_of_two_plays_every_pair_once_each_way(n: int) -> None:
    tables = schedule(list(range(n)), 2, double=True)
    assert Counter(tables) == Counter((a, b) for a in range(n) for b in range(n) if a != b)


@pytest.mark.parametrize(("k", "n"), [(k, n) for k, n in SIZES if k > 2])
def test_at_tables_of_three_or_four_every_pair_meets_once_at_least_and_within_one(
    k: int, n: int
) -> None:
    counts = _pair_counts(schedule(list(range(n)), k), n)
    assert min(counts) >= 1
    assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize(("k", "n"), [(k, n) for k, n in SIZES if k > 2])
def test_double_at_tables_of_three_or_four_every_pair_meets_twice_at_least_and_within_one(
    k: int, n: int
) -> None:
    counts = _pair_counts(schedule(list(range(n)), k, double=True), n)
    assert min(counts) >= 2
    assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize(
    ("k", "n", "design"),
    [(3, 7, "the Fano plane"), (3, 9, "the affine plane of order 3"), (4, 7, "a 2-(7,4,2) design")],
)
def test_where_a_balanced_design_exists_every_pair_meets_equally_often(
    k: int, n: int, design: str
) -> None:
    assert len(set(_pair_counts(schedule(list(range(n)), k), n))) == 1, design


@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize(("k", "n"), SIZES)
def test_every_seat_and_the_first_above_all_is_spread_within_one(
    k: int, n: int, double: bool
) -> None:
    tables = schedule(list(range(n)), k, double=double)
    for seat in range(k):
        counts = _seat_counts(tables, n, seat)
        assert max(counts) - min(counts) <= 1, f"seat {seat + 1}"


def test_games_per_player_covers_every_opponent_and_fills_whole_tables() -> None:
    for k, n in SIZES:
        g = games_per_player(n, k)
        assert (n * g) % k == 0
        assert g * (k - 1) >= n - 1
    assert [games_per_player(n, 3) for n in range(3, 13)] == [1, 3, 3, 3, 3, 6, 4, 6, 6, 6]
    assert [games_per_player(n, 4) for n in range(4, 13)] == [1, 4, 2, 4, 4, 4, 4, 4, 4]


def test_eight_players_at_tables_of_four_cannot_meet_within_one_in_three_games() -> None:
    # Why games_per_player(8, 4) is 4, not 3: an exhaustive search over 6
    # tables of 4 (the first fixed to {0,1,2,3} by symmetry) finds no way for
    # every pair to meet once or twice.
    blocks = list(combinations(range(8), 4))

    def extend(chosen: list[tuple[int, ...]], deg: list[int], meet: Counter, start: int) -> bool:
        if len(chosen) == 6:
            return all(meet[p] >= 1 for p in combinations(range(8), 2))
        for i in range(start, len(blocks)):
            block = blocks[i]
            pairs = list(combinations(block, 2))
            if any(deg[p] >= 3 for p in block) or any(meet[p] >= 2 for p in pairs):
                continue
            for p in block:
                deg[p] += 1
            meet.update(pairs)
            found = extend([*chosen, block], deg, meet, i + 1)
            for p in block:
                deg[p] -= 1
            meet.subtract(pairs)
            if found:
                return True
            if not chosen:
                return False
        return False

    assert not extend([], [0] * 8, Counter(), 0)


def test_the_same_players_always_get_the_same_tables_whatever_they_are() -> None:
    names = ["ana", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy"]
    first = schedule(names, 3)
    assert schedule(list(names), 3) == first
    by_index = schedule(list(range(9)), 3)
    assert first == [tuple(names[i] for i in table) for table in by_index]


def test_it_refuses_a_table_size_the_game_does_not_have_or_too_few_players() -> None:
    with pytest.raises(ScheduleError):
        schedule([1, 2, 3, 4, 5], 5)
    with pytest.raises(ScheduleError):
        schedule([1, 2, 3], 4)
    with pytest.raises(ScheduleError):
        schedule([1, 1, 2], 2)


def test_the_schedule_module_imports_nothing_of_django_or_the_project() -> None:
    tree = ast.parse(Path(schedule_module.__file__).read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= {
        "__future__",
        "random",
        "math",
        "collections",
        "functools",
        "itertools",
        "typing",
    }
