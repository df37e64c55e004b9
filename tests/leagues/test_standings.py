"""The standings against examples worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from leagues.standings import GameResult, standings


def _game(
    players: str,
    scores: tuple[int, ...],
    winners: str = "",
    forfeited: str = "",
    finished: bool = True,
) -> GameResult[str]:
    return GameResult(
        players=tuple(players),
        scores=scores,
        winners=frozenset(winners),
        forfeited=frozenset(forfeited),
        finished=finished,
    )


# A division of four at tables of 2. Five games finished, one running.
#   g1  A 30 – B 10   A wins             A +20  B −20
#   g2  C 24 – D 20   C wins             C +4   D −4
#   g3  B 25 – C 15   B wins             B +10  C −10
#   g4  A 10 – C 16   C wins             A −6   C +6
#   g5  B 18 – D 8    D timed out, B     B +10  D −10
#   g6  A – D         running
# Points: A 1 (g1); B 2 (g3, g5); C 2 (g2, g4); D 0.
# Differences: A +20−6 = +14; B −20+10+10 = 0; C +4−10+6 = 0; D −4−10 = −14.
# B and C are tied on 2 points and 0: head-to-head, B beat C in g3 (B 1, C 0).
# So: 1 B, 2 C, 3 A, 4 D. Running: A 1, D 1. Played: A 2, B 3, C 3, D 2.
TWO_PLAYER = [
    _game("AB", (30, 10), "A"),
    _game("CD", (24, 20), "C"),
    _game("BC", (25, 15), "B"),
    _game("AC", (10, 16), "C"),
    _game("BD", (18, 8), "B", forfeited="D"),
    _game("AD", (0, 0), finished=False),
]


def test_a_division_of_two_player_tables_is_ordered_by_points_differences_then_head_to_head() -> (
    None
):
    rows = standings(list("ABCD"), TWO_PLAYER)
    assert [(r.rank, r.player) for r in rows] == [(1, "B"), (2, "C"), (3, "A"), (4, "D")]
    table = {r.player: r for r in rows}
    assert [table[p].points for p in "ABCD"] == [1, 2, 2, 0]
    assert [table[p].score_difference for p in "ABCD"] == [14, 0, 0, -14]
    assert [table[p].played for p in "ABCD"] == [2, 3, 3, 2]
    assert [table[p].running for p in "ABCD"] == [1, 0, 0, 1]
    assert [table[p].forfeits for p in "ABCD"] == [0, 0, 0, 1]
    assert (table["B"].head_to_head, table["C"].head_to_head) == (1, 0)
    assert table["A"].head_to_head is None


# A division of five at tables of 3 (T has not played yet). Two games.
#   h1  P 40, Q 40, R 10: P and Q share the win, ½ point each.
#       Differences (own minus each opponent's): P (40−40)+(40−10) = +30;
#       Q the same, +30; R (10−40)+(10−40) = −60.
#   h2  Q 20, R 12, S 5: Q resigned (score as the rules left it), so R wins.
#       Q (20−12)+(20−5) = +23; R (12−20)+(12−5) = −1; S (5−20)+(5−12) = −22.
# Points: R 1; P ½; Q ½; S 0; T 0.
# Differences: P +30; Q +30+23 = +53; R −60−1 = −61; S −22; T 0.
# So: 1 R (1 point), 2 Q (½, +53), 3 P (½, +30), 4 T (0, 0), 5 S (0, −22).
THREE_PLAYER = [
    _game("PQR", (40, 40, 10), "PQ"),
    _game("QRS", (20, 12, 5), "R", forfeited="Q"),
]


def test_a_shared_win_splits_the_point_and_a_resigned_seat_loses_with_its_score() -> None:
    rows = standings(list("PQRST"), THREE_PLAYER)
    assert [r.player for r in rows] == list("RQPTS")
    table = {r.player: r for r in rows}
    assert [table[p].points for p in "PQRST"] == [
        Fraction(1, 2),
        Fraction(1, 2),
        1,
        0,
        0,
    ]
    assert [table[p].score_difference for p in "PQRST"] == [30, 53, -61, -22, 0]
    assert table["Q"].forfeits == 1 and table["Q"].won == 1
    assert table["T"].played == 0
    assert table["P"].points_float == 0.5


def test_head_to_head_places_a_seat_that_resigned_below_one_who_finished() -> None:
    # X and Y tie on 0 points and 0 difference overall. In the game they
    # shared, Y resigned with the higher score (20 to 10) yet is placed below
    # X, who finished (R-END-4); Z won it. A second game evens the differences:
    #   k1 X 10, Y 20, Z 30 (Y resigned, Z wins): X (10−20)+(10−30) = −30,
    #      Y (20−10)+(20−30) = 0, Z +30.
    #   k2 Y 0, X 10, Z 20 (Z wins): Y (0−10)+(0−20) = −30, X (10−0)+(10−20) = 0, Z +30.
    # X −30+0 = −30, Y 0−30 = −30: tied; head-to-head X 2 (k1 and k2), Y 0.
    games = [
        _game("XYZ", (10, 20, 30), "Z", forfeited="Y"),
        _game("YXZ", (0, 10, 20), "Z"),
    ]
    rows = standings(list("XYZ"), games)
    assert [(r.rank, r.player) for r in rows] == [(1, "Z"), (2, "X"), (3, "Y")]
    assert (rows[1].head_to_head, rows[2].head_to_head) == (2, 0)


def test_players_tied_on_everything_share_a_rank() -> None:
    rows = standings(list("ABCD"), [_game("AB", (5, 5), "AB")])
    assert [(r.rank, r.player) for r in rows] == [(1, "A"), (1, "B"), (3, "C"), (3, "D")]


def test_a_game_with_a_player_outside_the_division_is_refused() -> None:
    with pytest.raises(ValueError, match="not in the division"):
        standings(list("AB"), [_game("AZ", (1, 0), "A")])
