"""Placements: R-TURN-1, R-HAND-1, R-PLACE-1..9, R-DICT-1."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import (
    IllegalMove,
    Place,
    PointsScored,
    SquareCovered,
    TilesDrawn,
    TilesReturned,
    WordFormed,
    WordSet,
    apply,
)
from tests.rules.helpers import SMALL, put, start, tiles


def illegal(state, move) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        apply(state, move)
    return info.value


def words(events) -> list[str]:
    return [e.word for e in events if isinstance(e, WordFormed)]


@pytest.fixture
def chat():
    """Classique, avec marque, CHAT on H8-K8, player 0 to move."""
    return put(start("marque", ("ZCHATSE", "ETAROIS")), "H8", True, "CHAT")


# --- R-TURN-1, R-HAND-1 -----------------------------------------------------


def test_r_turn_1_only_the_player_to_move_may_place(chat):
    error = illegal(chat, Place(1, tiles("L8S")))
    assert (error.code, error.rule) == ("not-your-turn", "R-TURN-1")
    assert error.message("fr") == "Ce n’est pas votre tour."
    assert error.message("en") == "It is not your turn."


def test_r_hand_1_a_letter_not_in_hand_is_rejected(chat):
    error = illegal(chat, Place(0, tiles("L8X")))
    assert (error.code, error.rule) == ("not-in-hand", "R-HAND-1")


def test_r_hand_1_a_diable_letter_needs_a_diable_in_hand(chat):
    assert illegal(chat, Place(0, tiles("L8s"))).code == "not-in-hand"


def test_r_hand_1_the_same_tile_cannot_be_used_twice(chat):
    state = put(start("marque", ("SAB", "ETAROIS")), "H8", True, "CHAT")
    assert illegal(state, Place(0, tiles("L8S", "L9S"))).code == "not-in-hand"


# --- R-PLACE-1 ---------------------------------------------------------------


def test_r_place_1_tiles_not_in_one_line_are_rejected(chat):
    error = illegal(chat, Place(0, tiles("L8S", "M9E")))
    assert (error.code, error.rule) == ("not-in-line", "R-PLACE-1")


def test_r_place_1_two_tiles_on_one_square_are_rejected(chat):
    assert illegal(chat, Place(0, tiles("L8S", "L8E"))).code == "duplicate-square"


def test_r_place_1_a_placement_needs_a_tile(chat):
    assert illegal(chat, Place(0, ())).code == "no-tiles"


# --- R-PLACE-2 ---------------------------------------------------------------


@pytest.fixture
def fresh():
    return start("marque", ("CHATSEL", "ETAROIS"))


def test_r_place_2_first_word_from_depart_to_the_right(fresh):
    state, events = apply(fresh, Place(0, tiles("H8C", "I8H", "J8A", "K8T")))
    assert words(events) == ["CHAT"]
    assert state.started and state.board[7 * 15 + 7] == "C"


def test_r_place_2_first_word_from_depart_downwards(fresh):
    _, events = apply(fresh, Place(0, tiles("H8C", "H9H", "H10A", "H11T")))
    assert words(events) == ["CHAT"]
    assert events[1] == WordFormed(0, "CHAT", "H8", False, True)


def test_r_place_2_first_word_must_cover_depart(fresh):
    error = illegal(fresh, Place(0, tiles("I8C", "J8H", "K8A", "L8T")))
    assert (error.code, error.rule) == ("first-move-start", "R-PLACE-2")
    assert "H8" in error.message_fr and "H8" in error.message_en


def test_r_place_2_first_word_may_not_go_left_or_up(fresh):
    assert illegal(fresh, Place(0, tiles("E8C", "F8H", "G8A", "H8T"))).code == (
        "first-move-direction"
    )
    assert illegal(fresh, Place(0, tiles("H5C", "H6H", "H7A", "H8T"))).code == (
        "first-move-direction"
    )


def test_r_place_2_first_word_may_not_be_diagonal(fresh):
    error = illegal(fresh, Place(0, tiles("H8C", "I9H")))
    assert (error.code, error.rule) == ("first-move-direction", "R-PLACE-2")


def test_r_place_2_first_word_has_two_to_eight_letters():
    from rules import Layout

    layout = Layout.from_rows(["D.........", ".........."])
    state = start("marque", ("CHATSELAS", "ETAROIS"), layout=layout)
    assert illegal(state, Place(0, tiles("A1A"))).code == "first-move-length"
    down = tiles(*(f"{col}1{x}" for col, x in zip("ABCDEFGHI", "CHATSELAS", strict=True)))
    error = illegal(state, Place(0, down))
    assert (error.code, error.rule) == ("first-move-length", "R-PLACE-2")


def test_r_place_2_first_word_has_no_gap(fresh):
    error = illegal(fresh, Place(0, tiles("H8A", "J8S")))
    assert (error.code, error.rule) == ("gap", "R-PLACE-2")


def test_r_place_2_first_word_must_be_a_word(fresh):
    assert illegal(fresh, Place(0, tiles("H8H", "I8C"))).code == "not-a-word"


# --- R-PLACE-3 ---------------------------------------------------------------


def test_r_place_3_an_occupied_square_is_rejected(chat):
    error = illegal(chat, Place(0, tiles("K8S")))
    assert (error.code, error.rule) == ("occupied", "R-PLACE-3")
    assert "K8" in error.message_en


def test_r_place_3_a_square_off_the_board_is_rejected(chat):
    assert illegal(chat, Place(0, tiles("P8S"))).code == "off-board"
    assert illegal(chat, Place(0, tiles("H16S"))).code == "off-board"


def test_r_place_3_an_unreadable_square_is_rejected(chat):
    assert illegal(chat, Place(0, tiles("8HS"))).code == "bad-square"


def test_r_place_3_gap_is_rejected(chat):
    error = illegal(chat, Place(0, tiles("L8S", "N8E")))
    assert (error.code, error.rule) == ("gap", "R-PLACE-3")
    assert "M8" in error.message_fr


def test_r_place_3_tiles_on_the_board_fill_the_line(fresh):
    state = put(fresh, "I8", True, "HA")
    _, events = apply(state, Place(0, tiles("H8C", "K8T")))
    assert words(events) == ["CHAT"]


def test_r_place_3_a_placement_must_touch_the_board(chat):
    error = illegal(chat, Place(0, tiles("H12E", "I12T")))
    assert (error.code, error.rule) == ("not-touching", "R-PLACE-3")


def test_r_place_3_no_limit_on_tiles_after_the_first_move():
    state = start("marque", ("ABDEFGIJ", "ET"), words=WordSet(["ABCDEFGHIJ"]))
    state = put(put(state, "C7", True, "C"), "H7", True, "H")
    move = Place(0, tiles(*(f"{col}7{col}" for col in "ABDEFGIJ")))
    _, events = apply(state, move)
    assert words(events) == ["ABCDEFGHIJ"]


# --- R-PLACE-4, R-DICT-1 ------------------------------------------------------


def test_r_place_4_a_main_word_not_in_the_list_is_rejected(chat):
    error = illegal(chat, Place(0, tiles("L8Z")))
    assert (error.code, error.rule) == ("not-a-word", "R-PLACE-4")
    assert error.message("fr") == "Le mot CHATZ n’existe pas."
    assert error.message("en") == "CHATZ is not a word."


def test_r_place_4_every_cross_word_is_checked(chat):
    # E under C makes CE, not a word, although ET (across) would be one.
    error = illegal(chat, Place(0, tiles("H9E", "I9T")))
    assert error.code == "not-a-word"
    assert "CE" in error.message_en and "HT" in error.message_en


def test_r_place_4_words_are_listed_main_word_first(chat):
    _, events = apply(chat, Place(0, tiles("K9E", "L9T")))
    assert words(events) == ["ET", "TE"]
    assert [e.main for e in events if isinstance(e, WordFormed)] == [True, False]


def test_r_place_4_a_single_tile_main_word_is_vertical_when_it_has_no_horizontal_word(chat):
    _, events = apply(chat, Place(0, tiles("J9S")))
    assert events[1] == WordFormed(0, "AS", "J8", False, True)


def test_r_dict_1_words_are_checked_against_the_games_list(chat):
    state = replace(chat, config=replace(chat.config, words=WordSet(["CHATZ"])))
    _, events = apply(state, Place(0, tiles("L8Z")))
    assert words(events) == ["CHATZ"]
    assert illegal(state, Place(0, tiles("L8S"))).code == "not-a-word"


# --- R-PLACE-5 black squares ---------------------------------------------------------
# SMALL: D4 Départ, D3 and G4 green, D6 black (and A1, A7), A4, G1, G7 red.


def small(mode: str, hands: tuple[str, ...], reserve: tuple[str, ...] | None = None):
    state = start(mode, hands, layout=SMALL)
    if reserve is not None:
        state = replace(state, reserve=reserve)
    return state


def test_r_place_5_black_square_is_forbidden_during_the_game():
    state = put(small("sans-marque", ("SE", "RA")), "B6", True, "TA")
    error = illegal(state, Place(0, tiles("D6S")))
    assert (error.code, error.rule) == ("black-square", "R-PLACE-5")
    assert "D6" in error.message_fr


def test_r_place_5_black_square_ends_the_game_sans_marque_and_doubles():
    state = put(small("sans-marque", ("S", "RAZ")), "B6", True, "TA")
    new, events = apply(state, Place(0, tiles("D6S")))
    value = 1 + 1 + 9  # R, A, Z left in the other hand
    assert new.over and new.result.end == "out" and new.result.black_square
    assert new.scores == (2 * value, 0)
    assert SquareCovered(0, "D6", "black", "double") in events


def test_r_place_5_black_square_avec_marque_needs_an_empty_reserve():
    state = put(small("marque", ("S", "RAZ")), "B6", True, "TA")
    assert illegal(state, Place(0, tiles("D6S"))).code == "black-square"
    state = replace(state, reserve=())
    new, _ = apply(state, Place(0, tiles("D6S")))
    assert new.result.end == "out" and new.result.black_square
    assert new.scores == (50 + 11, -11)


def test_r_place_5_at_most_one_black_square():
    layout_words = WordSet(["SAS"])
    rows = ["#.#", ".D.", "..."]
    from rules import Layout

    layout = Layout.from_rows(rows)
    state = put(
        start("sans-marque", ("SS", "A"), layout=layout, words=layout_words), "B1", True, "A"
    )
    state = replace(state, reserve=())
    error = illegal(state, Place(0, tiles("A1S", "C1S")))
    assert (error.code, error.rule) == ("black-square", "R-PLACE-5")


def test_r_place_5_no_black_square_when_a_green_devil_would_make_the_player_draw():
    state = put(small("sans-marque", ("ES", "RA")), "D4", False, "TE")
    error = illegal(state, Place(0, tiles("D3E", "D6S")))
    assert error.code == "black-square"
    state = replace(state, reserve=())
    new, events = apply(state, Place(0, tiles("D3E", "D6S")))
    assert words(events) == ["ETES"]
    assert new.result.end == "out" and new.scores == (4, 0)


def test_r_place_5_black_square_needs_all_the_tiles_placed():
    state = put(small("sans-marque", ("SE", "RA")), "B6", True, "TA")
    state = replace(state, reserve=())
    assert illegal(state, Place(0, tiles("D6S"))).code == "black-square"


# --- R-PLACE-6 green devils ---------------------------------------------------------


def test_r_place_6_green_devil_sans_marque_draws_a_penalty_tile():
    state = small("sans-marque", ("CHATS", "RA"), reserve=("E", "L"))
    new, events = apply(state, Place(0, tiles("D4C", "E4H", "F4A", "G4T")))
    assert new.hands[0] == ("S", "E") and new.reserve == ("L",)
    assert TilesDrawn(0, "E", "penalty") in events
    assert SquareCovered(0, "G4", "green", "penalty-draw") in events
    assert new.scores == (0, 0)


def test_r_place_6_green_devil_sans_marque_draws_nothing_from_an_empty_reserve():
    state = small("sans-marque", ("CHATS", "RA"), reserve=())
    new, events = apply(state, Place(0, tiles("D4C", "E4H", "F4A", "G4T")))
    assert new.hands[0] == ("S",)
    assert not any(isinstance(e, TilesDrawn) for e in events)


def test_r_place_6_green_devil_avec_marque_gives_5_to_every_other_player_in_game():
    state = small("marque", ("CHATS", "RA", "EE"), reserve=("E", "L"))
    state = replace(state, status=("active", "active", "resigned"))
    new, events = apply(state, Place(0, tiles("D4C", "E4H", "F4A", "G4T")))
    assert new.scores == (0, 5, 0)
    assert PointsScored(1, 5, "green-devil") in events
    assert SquareCovered(0, "G4", "green", "others-plus-5") in events


# --- R-PLACE-7 red devils -----------------------------------------------------------


def red_state(mode: str, hand: str, reserve=("L", "M")):
    return put(small(mode, (hand, "RA"), reserve=reserve), "E7", True, "TA")


def test_r_place_7_red_devil_sans_marque_returns_a_tile_of_choice():
    new, events = apply(red_state("sans-marque", "SZE"), Place(0, tiles("G7S"), returns="Z"))
    assert new.hands[0] == ("E",)
    assert new.reserve == ("L", "M", "Z")
    assert TilesReturned(0, "Z", "red-devil") in events
    assert SquareCovered(0, "G7", "red", "return") in events


def test_r_place_7_red_devil_sans_marque_must_return_exactly_one():
    state = red_state("sans-marque", "SZE")
    error = illegal(state, Place(0, tiles("G7S")))
    assert (error.code, error.rule) == ("returns", "R-PLACE-7")
    assert error.message("en") == "Give back exactly 1 tile from your hand for the red devils."
    assert (
        error.message("fr") == "Rendez exactement 1 lettre de votre main pour les diables rouges."
    )
    assert illegal(state, Place(0, tiles("G7S"), returns="ZE")).code == "returns"
    assert illegal(state, Place(0, tiles("G7S"), returns="Q")).code == "returns"
    # the placed tile is not in the hand any more
    assert illegal(red_state("sans-marque", "SZ"), Place(0, tiles("G7S"), returns="S")).code == (
        "returns"
    )


def test_r_place_7_red_devil_returns_nothing_from_an_empty_hand():
    new, _ = apply(red_state("sans-marque", "S"), Place(0, tiles("G7S")))
    assert new.result.end == "out"


def test_r_place_7_red_devil_return_may_empty_the_hand_and_end_the_game():
    new, _ = apply(red_state("sans-marque", "SZ"), Place(0, tiles("G7S"), returns="Z"))
    assert new.result.end == "out" and new.scores == (2, 0)


def test_r_place_7_red_devil_avec_marque_gives_10_points():
    new, events = apply(red_state("marque", "SZE"), Place(0, tiles("G7S")))
    assert new.scores == (10, 0)
    assert PointsScored(0, 10, "red-devil") in events
    assert illegal(red_state("marque", "SZE"), Place(0, tiles("G7S"), returns="Z")).code == (
        "returns"
    )


# --- R-PLACE-8 order of effects --------------------------------------------------------


def test_r_place_8_effects_happen_in_order():
    from rules import Layout

    layout = Layout.from_rows(["R.G", ".D.", "..."])
    state = start("sans-marque", ("TSZE", "RA"), layout=layout, words=WordSet(["TAS"]))
    # Row 1: red A1, plain B1, green C1. Board has A at B1.
    state = replace(put(state, "B1", True, "A"), reserve=("L",))
    new, events = apply(state, Place(0, tiles("A1T", "C1S"), returns="Z"))
    # Z goes to the bottom (after L), then the penalty draw takes L from the top.
    assert new.hands[0] == ("E", "L")
    assert new.reserve == ("Z",)
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("TilesReturned") < kinds.index("TilesDrawn")


def test_r_place_8_avec_marque_refills_to_twelve(fresh):
    new, events = apply(fresh, Place(0, tiles("H8C", "I8H", "J8A", "K8T")))
    assert len(new.hands[0]) == 12
    assert TilesDrawn(0, "".join(fresh.reserve[:9]), "refill") in events
    assert new.reserve == fresh.reserve[9:]


def test_r_place_8_with_an_rng_the_draws_are_random_and_replay_exactly():
    import random

    state = red_state("sans-marque", "SZE", reserve=tuple("ABCDEFGHIJKLMNOP"))
    new, _ = apply(state, Place(0, tiles("G7S"), returns="Z"), rng=random.Random(3))
    # A return goes to the bottom; nothing is drawn, so the order is kept.
    assert new.reserve == tuple("ABCDEFGHIJKLMNOPZ")
    fresh_state = start("marque", ("CHATSEL", "ETAROIS"))
    move = Place(0, tiles("H8C", "I8H", "J8A", "K8T"))
    played, events = apply(fresh_state, move, rng=random.Random(5))
    drawn = next(e.tiles for e in events if isinstance(e, TilesDrawn))
    assert drawn != "".join(fresh_state.reserve[:9]), "tiles are picked anywhere in the reserve"
    replayed, _ = apply(fresh_state, replace(move, draw=drawn))
    assert replayed == played


# --- R-PLACE-9 diables --------------------------------------------------------------


def test_r_place_9_a_diable_must_name_its_letter():
    state = start("marque", ("?HAT", "RA"))
    error = illegal(state, Place(0, tiles("H8?", "I8H", "J8A", "K8T")))
    assert (error.code, error.rule) == ("diable-letter", "R-PLACE-9")
    assert "H8" in error.message_en


def test_r_place_9_a_diable_keeps_its_letter_and_is_worth_nothing():
    state = start("sans-marque", ("?HAT", "RA"))
    new, events = apply(state, Place(0, tiles("H8c", "I8H", "J8A", "K8T")))
    assert words(events) == ["CHAT"]
    assert new.board[7 * 15 + 7] == "c"
    assert new.result.end == "out" and new.scores == (2, 0)


def test_r_place_9_a_letter_must_be_a_to_z():
    state = start("marque", ("?HAT", "RA"))
    assert illegal(state, Place(0, tiles("H8É", "I8H"))).code == "bad-letter"
    assert illegal(state, Place(0, (("H8", "CH"), ("I8", "A")))).code == "bad-letter"
