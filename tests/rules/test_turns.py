"""Exchanges, passes, the end of the game, resignation, draws and hidden information."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules import (
    Exchange,
    GameOver,
    IllegalMove,
    Pass,
    Place,
    PointsScored,
    Resign,
    TilesDrawn,
    TilesReturned,
    apply,
    ranking,
    ranks,
    summarize,
    view,
)
from tests.rules.helpers import SMALL, put, start, tiles


def illegal(state, move) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        apply(state, move)
    return info.value


# --- R-EXCH-1 ---------------------------------------------------------------------


def test_r_exch_1_exchange_draws_then_puts_back_at_the_bottom():
    state = replace(start("sans-marque", ("ABCD", "EF")), reserve=tuple("XYZ"))
    new, events = apply(state, Exchange(0, "AC"))
    assert new.hands[0] == ("B", "D", "X", "Y")
    assert new.reserve == ("Z", "A", "C")
    assert events == (TilesReturned(0, "AC", "exchange"), TilesDrawn(0, "XY", "exchange"))
    assert new.turn == 1


def test_r_exch_1_exchange_needs_enough_tiles_in_the_reserve():
    state = replace(start("marque", ("ABCD", "EF")), reserve=tuple("X"))
    error = illegal(state, Exchange(0, "AB"))
    assert (error.code, error.rule) == ("reserve-too-small", "R-EXCH-1")
    assert error.message("en") == "The reserve holds only 1 tile: exchange fewer."
    assert error.message("fr") == "La réserve n’a que 1 lettre\u00a0: échangez-en moins."
    assert illegal(replace(state, reserve=()), Exchange(0, "A")).code == "reserve-too-small"


def test_r_exch_1_exchange_needs_at_least_one_tile():
    assert illegal(start(), Exchange(0, "")).code == "exchange-empty"


def test_r_exch_1_exchanged_tiles_come_from_the_hand():
    error = illegal(start(), Exchange(0, "QQ"))
    assert (error.code, error.rule) == ("not-in-hand", "R-HAND-1")
    joker = illegal(start(), Exchange(0, "?"))
    assert joker.message("en") == "You have no joker in your hand to exchange."
    assert joker.message("fr") == "Vous n’avez pas de diable en main à échanger."


def test_r_exch_1_exchange_with_an_rng_draws_at_random_and_replays_exactly():
    state = start("sans-marque", ("ABCD", "EF"))
    new, events = apply(state, Exchange(0, "A"), rng=random.Random(1))
    drawn = next(e.tiles for e in events if isinstance(e, TilesDrawn))
    assert drawn != state.reserve[0], "the tile is picked anywhere in the reserve"
    assert sorted((*new.reserve, drawn)) == sorted((*state.reserve, "A"))
    replayed, _ = apply(state, Exchange(0, "A", draw=drawn))
    assert replayed == new


def test_r_exch_1_exchange_resets_the_passes():
    state = start("marque", ("ABCD", "EF", "GH"))
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Exchange(1, "E"))
    state, _ = apply(state, Pass(2))
    state, _ = apply(state, Pass(0))
    assert not state.over and state.consecutive_passes == 2


# --- draws ------------------------------------------------------------------------


def test_a_named_draw_takes_those_tiles_out_of_the_reserve():
    state = replace(start("sans-marque", ("ABCD", "EF")), reserve=tuple("XYZ"))
    new, _ = apply(state, Exchange(0, "A", draw="Z"))
    assert new.hands[0] == ("B", "C", "D", "Z") and new.reserve == ("X", "Y", "A")


def test_a_named_draw_must_be_in_the_reserve():
    state = replace(start("sans-marque", ("ABCD", "EF")), reserve=tuple("XYZ"))
    error = illegal(state, Exchange(0, "A", draw="Q"))
    assert (error.code, error.rule) == ("draw-not-in-reserve", "R-EXCH-1")


def test_a_named_draw_must_have_the_right_size():
    state = replace(start("sans-marque", ("ABCD", "EF")), reserve=tuple("XYZ"))
    assert illegal(state, Exchange(0, "A", draw="XY")).code == "draw-count"
    assert illegal(state, Pass(0, draw="X")).code == "draw-count"


# --- R-PASS-1 and a blocked game -----------------------------------------------------


def test_r_pass_1_pass_does_nothing_but_move_the_turn():
    state = start()
    new, _ = apply(state, Pass(0))
    assert new.board == state.board and new.hands == state.hands and new.turn == 1


def test_r_end_1_blocked_when_every_player_in_game_passed_in_succession():
    state = start("marque", ("AB", "EF", "Z"))
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Pass(1))
    assert not state.over
    state, events = apply(state, Pass(2))
    assert state.result.end == "blocked"
    assert isinstance(events[-1], GameOver)


def test_r_end_1_resignation_can_complete_a_block():
    state = start("marque", ("AB", "EF", "Z"))
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Pass(1))
    state, _ = apply(state, Resign(2))
    assert state.result.end == "blocked"


def test_r_end_1_no_move_after_the_end():
    state = start("marque", ("AB", "EF"))
    state, _ = apply(state, Resign(1))
    error = illegal(state, Pass(0))
    assert (error.code, error.rule) == ("game-over", "R-END-1")


def test_r_end_1_going_out_ends_the_game():
    state = put(start("sans-marque", ("S", "RAZ")), "H8", True, "CHAT")
    state, _events = apply(state, Place(0, tiles("L8S")))
    assert state.result.end == "out" and state.result.winners == (0,)


# --- R-END-2 sans marque ------------------------------------------------------------


def test_r_end_2_sans_marque_scores_nothing_until_the_end():
    state = start("sans-marque", ("?HATS", "RAZ"))
    state, _ = apply(state, Place(0, tiles("H8c", "I8H", "J8A", "K8T")))
    assert state.scores == (0, 0) and not state.over


def test_r_end_2_sans_marque_winner_scores_the_other_hands_resigned_included():
    state = put(start("sans-marque", ("S", "RAZ", "KE")), "H8", True, "CHAT")
    state, _ = apply(state, Resign(2))
    state, _ = apply(state, Place(0, tiles("L8S")))
    assert state.scores == (11 + 10, 0, 0)
    assert state.result.winners == (0,)
    assert ranking(state) == ((0,), (1,), (2,))


def test_r_end_2_sans_marque_blocked_game_has_no_winner_and_ranks_by_hand_value():
    state = start("sans-marque", ("Z", "AE", "K"))
    for player in range(3):
        state, _ = apply(state, Pass(player))
    assert state.result.end == "blocked" and state.result.winners == ()
    assert state.scores == (0, 0, 0)
    assert ranking(state) == ((1,), (0, 2))
    assert ranks(state) == (2, 1, 2)


# --- R-END-3 avec marque ------------------------------------------------------------


def test_r_end_3_going_out_gains_25_plus_the_other_hands_who_lose_them():
    state = put(start("marque", ("S", "RAZ", "KE")), "H8", True, "CHAT")
    state = replace(state, reserve=(), scores=(5, 40, 3))
    state, events = apply(state, Place(0, tiles("L8S")))
    assert state.scores == (5 + 25 + 11 + 10, 40 - 11, 3 - 10)
    assert state.result.winners == (0,)
    assert PointsScored(0, 25, "fin-de-partie") in events
    assert PointsScored(1, -11, "own-tiles") in events


def test_r_end_3_the_winner_is_the_most_points_not_the_one_who_went_out():
    state = put(start("marque", ("S", "E")), "H8", True, "CHAT")
    state = replace(state, reserve=(), scores=(0, 100))
    state, _ = apply(state, Place(0, tiles("L8S")))
    assert state.scores == (26, 99) and state.result.winners == (1,)


def test_r_end_3_blocked_everyone_loses_their_tiles_and_ties_share_the_win():
    state = replace(start("marque", ("Z", "AE")), scores=(11, 2))
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Pass(1))
    assert state.scores == (2, 0)
    state = replace(start("marque", ("A", "E")), scores=(3, 3))
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Pass(1))
    assert state.result.winners == (0, 1) and ranks(state) == (1, 1)


def test_r_end_3_scores_may_be_negative():
    state = start("marque", ("ZK", "A"))
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Pass(1))
    assert state.scores == (-18, -1)


# --- R-END-4 resignation and time-out ------------------------------------------------------


def test_r_end_4_resigning_is_not_a_turn_and_the_seat_is_skipped():
    state = start("marque", ("AB", "EF", "GH"))
    state, _events = apply(state, Resign(1))
    assert state.turn == 0 and state.status == ("active", "resigned", "active")
    state, _ = apply(state, Pass(0))
    assert state.turn == 2
    assert illegal(state, Pass(1)).code == "not-in-game"


def test_r_end_4_resigning_on_ones_turn_passes_the_turn_on():
    state, _ = apply(start("marque", ("AB", "EF", "GH")), Resign(0))
    assert state.turn == 1


def test_r_end_4_timeout_has_the_same_effect():
    state, _ = apply(start("marque", ("AB", "EF", "GH")), Resign(2, timeout=True))
    assert state.status[2] == "timed-out"


def test_r_end_4_last_player_left_wins_sans_marque_with_the_other_hands():
    state, _ = apply(start("sans-marque", ("AB", "EK")), Resign(1))
    assert state.result.end == "last-player" and state.result.winners == (0,)
    assert state.scores == (10, 0)


def test_r_end_4_last_player_left_wins_avec_marque_whatever_the_points():
    state = replace(start("marque", ("AB", "EK")), scores=(0, 80))
    state, _ = apply(state, Resign(1))
    assert state.result.winners == (0,)
    assert state.scores == (-4, 70)
    assert ranking(state) == ((0,), (1,))


def test_r_end_4_a_player_not_in_the_game_cannot_move():
    state = start("marque", ("AB", "EF"))
    assert illegal(state, Pass(5)).code == "not-in-game"
    assert illegal(state, Resign(-1)).code == "not-in-game"


def test_r_end_4_resigned_players_rank_below_finishers():
    state = replace(start("marque", ("A", "E", "K")), scores=(0, 0, 500))
    state, _ = apply(state, Resign(2))
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Pass(1))
    assert state.result.end == "blocked"
    assert ranking(state)[-1] == (2,)


# --- R-HIDE-1 ----------------------------------------------------------------------------


def test_r_hide_1_a_player_sees_only_their_hand_and_the_reserve_size():
    state = start("marque", ("AB", "EF"))
    seen = view(state, 1)
    assert seen.hand == ("E", "F") and seen.hands is None
    assert seen.hand_sizes == (2, 2) and seen.reserve_size == len(state.reserve)
    assert "reserve" not in type(seen).__dataclass_fields__
    spectator = view(state)
    assert spectator.hand is None and spectator.hands is None


def test_r_hide_1_all_hands_are_shown_after_the_end():
    state, _ = apply(start("marque", ("AB", "EF")), Resign(1))
    assert view(state).hands == (("A", "B"), ("E", "F"))


# --- summaries -----------------------------------------------------------------------


def test_a_move_summary_holds_words_points_draws_and_returns():
    state = put(start("marque", ("SZE", "RA"), layout=SMALL), "E7", True, "TA")
    state = replace(state, reserve=("L", "M"))
    _, events = apply(state, Place(0, tiles("G7S")))
    summary = summarize(events, 2)
    assert summary.words == ("TAS",)
    assert summary.points == (10, 0)
    assert summary.drawn == "LM" and summary.returned == ""
    assert summary.result is None
