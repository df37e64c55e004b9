"""Material and set-up: R-TILES-1/2, R-BOARD-1, squares, R-SETUP-1..4."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rules import (
    Layout,
    TileSet,
    deal,
    deal_size,
    draw_first_player,
    format_square,
    load_layout,
    load_tiles,
    make_config,
    new_game,
    parse_square,
    player_counts,
    seat_rotation,
)
from tests.rules.helpers import WORDS


def test_r_tiles_1_classique_has_112_tiles_two_diables_worth_nothing():
    tiles = load_tiles("classique")
    assert tiles.total == 112
    assert tiles.counts["?"] == 2 and tiles.values["?"] == 0


def test_r_tiles_2_classique_is_the_rules_table_worth_202_points():
    tiles = load_tiles("classique")
    assert sum(tiles.counts[t] * tiles.values[t] for t in tiles.counts) == 202
    assert (tiles.counts["E"], tiles.values["E"]) == (16, 1)
    assert (tiles.counts["Z"], tiles.values["Z"]) == (1, 9)
    assert (tiles.counts["Q"], tiles.values["Q"]) == (1, 8)
    assert len(tiles.counts) == 27


def test_r_tiles_2_a_tile_set_is_data():
    tiles = TileSet.from_mapping({"A": [3, 1], "?": [1, 0]})
    assert tiles.tiles() == ["?", "A", "A", "A"]
    for bad in ({}, {"AB": [1, 1]}, {"A": [1]}, {"A": [-1, 1]}, {"a": [1, 1]}, {"A": [0, 1]}):
        with pytest.raises(ValueError):
            TileSet.from_mapping(bad)


def test_r_board_1_classique_is_15_by_15_with_depart_on_h8():
    layout = load_layout("classique")
    assert (layout.width, layout.height) == (15, 15)
    assert layout.name_of(layout.start) == "H8"
    assert layout.cells.count("#") == 16
    assert layout.rows() == layout.rows()[::-1]  # symmetric top to bottom
    assert all(row == row[::-1] for row in layout.rows())


def test_r_board_1_any_rectangular_layout_with_one_depart():
    assert Layout.from_rows(["D."]).start == 0
    for rows in (["D.", "."], ["..", ".."], ["DD"], ["D?"], []):
        with pytest.raises(ValueError):
            Layout.from_rows(rows)


def test_unknown_built_in_names_are_rejected():
    for name in ("nope", "../classique", ""):
        with pytest.raises(ValueError):
            load_layout(name)
        with pytest.raises(ValueError):
            load_tiles(name)


def test_squares_are_column_letter_then_row_number():
    assert parse_square("A1") == (0, 0)
    assert parse_square("H8") == (7, 7)
    assert parse_square("o15") == (14, 14)
    assert format_square(7, 7) == "H8"
    for col in range(26):
        for row in range(20):
            assert parse_square(format_square(col, row)) == (col, row)
    for bad in ("", "8H", "H0", "H", "AA1", "H8 8", None):
        with pytest.raises(ValueError):
            parse_square(bad)


def test_r_setup_1_lowest_letter_plays_first():
    class Fixed(random.Random):
        def __init__(self, orders):
            super().__init__(0)
            self.orders = list(orders)

        def shuffle(self, x):
            x[:] = list(self.orders.pop(0))

    tiles = TileSet.from_mapping({"A": [2, 1], "B": [1, 1], "C": [1, 1], "?": [1, 0]})
    draw = draw_first_player(tiles, 3, Fixed(["CBA?A"]))
    assert draw.first == 2 and draw.rounds == (((0, "C"), (1, "B"), (2, "A")),)
    # A tie for lowest and a diable redraw among themselves; the others are out.
    draw = draw_first_player(tiles, 4, Fixed(["A?AB", "BAC?"]))
    assert draw.rounds[1] == ((0, "B"), (1, "A"), (2, "C"))
    assert draw.first == 1


def test_r_setup_1_draw_always_names_a_first_player():
    tiles = load_tiles("classique")
    for seed in range(50):
        draw = draw_first_player(tiles, 8, random.Random(seed))
        assert 0 <= draw.first < 8
        last = draw.rounds[-1]
        assert dict(last)[draw.first] == min(t for _, t in last if t != "?")
    degenerate = TileSet.from_mapping({"A": [4, 1]})
    assert draw_first_player(degenerate, 2, random.Random(1)).first == 0


def test_r_setup_2_seats_are_rotated_so_the_first_player_moves_first():
    assert seat_rotation(2, 4) == (2, 3, 0, 1)


def test_r_setup_3_marque_is_for_2_to_4_and_sans_marque_for_2_to_8():
    assert list(player_counts("marque")) == [2, 3, 4]
    assert list(player_counts("sans-marque")) == [2, 3, 4, 5, 6, 7, 8]
    with pytest.raises(ValueError):
        deal_size("marque", 5)
    with pytest.raises(ValueError):
        make_config("scrabble", words=WORDS)


@pytest.mark.parametrize(
    ("n", "size"), [(2, 40), (3, 32), (4, 24), (5, 18), (6, 16), (7, 14), (8, 12)]
)
def test_r_setup_4_sans_marque_deal(n, size):
    config = make_config("sans-marque", words=WORDS)
    hands, reserve = deal(config, n, random.Random(n))
    assert [len(h) for h in hands] == [size] * n
    assert len(reserve) == 112 - n * size
    assert Counter(t for h in hands for t in h) + Counter(reserve) == Counter(config.tiles.counts)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r_setup_4_marque_deals_twelve_each(n):
    config = make_config("marque", words=WORDS)
    hands, reserve = deal(config, n, random.Random(n))
    assert [len(h) for h in hands] == [12] * n and len(reserve) == 112 - 12 * n
    state = new_game(config, hands, reserve)
    assert state.turn == 0 and not state.started and state.reserve == reserve


def test_new_game_needs_exactly_the_tile_set():
    config = make_config("marque", words=WORDS)
    hands, reserve = deal(config, 2, random.Random(0))
    with pytest.raises(ValueError):
        new_game(config, hands, reserve[1:])
    with pytest.raises(ValueError):
        new_game(config, [("Z", "Z"), ("A",)])
    with pytest.raises(ValueError):
        new_game(config, [("a",), ("A",)])
    with pytest.raises(ValueError):
        new_game(config, [("A",)] * 5)
    state = new_game(config, [("A",), ("B",)])
    assert len(state.reserve) == 110
