"""The viewer's hand, ``<ol id="hand">`` (the ``#hand`` partial of games/game.html).

The guided game includes the same partial and board.js reads its buttons: each
tile a button named by its letter (or "joker") and points, in its slot.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import HandOrder
from games.presenters import TileView, sorted_hand
from tests.games.test_game_template import game_view

JOKER_AND_GAPS = (
    TileView(index=0, letter="A", value=1),
    TileView(index=3, letter="K", value=10),
    TileView(index=11, letter="?", value=0),
)


def hand(view, language: str) -> str:
    with translation.override(language):
        return render_to_string(
            "games/game.html#hand", {"view": view, "game": SimpleNamespace(pk=7)}
        )


def slots(html: str) -> list[str]:
    """Each slot's number and the label of its tile ("" when empty)."""
    found = re.findall(r'<li class="hand-slot">(.*?)</li>', html, re.S)
    return [
        " ".join(
            re.findall(r'slot-number" aria-hidden="true">(\d+)<', item)
            + re.findall(r'aria-label="([^"]+)"', item)
        )
        for item in found
    ]


def test_a_hand_in_slots_with_a_joker_reads_in_french() -> None:
    html = hand(game_view(hand_slots=4, my_hand=JOKER_AND_GAPS[:2]), "fr")
    assert '<ol id="hand" class="hand hand-slots" aria-label="Mes lettres">' in html
    assert slots(html) == ["1 A, 1 point", "2", "3", "4 K, 10 points"]
    assert (
        '<button type="button" class="tile hand-tile" data-index="3" data-letter="K" '
        'data-value="10" aria-pressed="false" aria-label="K, 10 points"><span class="tile-letter" '
        'aria-hidden="true">K</span> <span class="tile-value" aria-hidden="true">10</span></button>'
    ) in html


def test_a_rack_names_its_joker_in_english() -> None:
    view = game_view(mode="sans-marque", hand_slots=0, my_hand=(TileView(0, "?", 0),))
    html = hand(view, "en")
    assert '<ol id="hand" class="hand hand-rack" aria-label="My tiles">' in html
    assert slots(html) == ["joker, 0 points"]
    assert 'class="tile hand-tile is-diable" data-index="0" data-letter="?"' in html


def test_every_slot_of_a_marque_hand_is_numbered_even_when_empty() -> None:
    html = hand(game_view(my_hand=JOKER_AND_GAPS), "en")
    assert [slot.split(" ")[0] for slot in slots(html)] == [str(n) for n in range(1, 13)]
    assert slots(html)[11] == "12 joker, 0 points"
    assert '<span class="count">(3)</span>' in html and 'id="shuffle-hand"' in html


# --- the order of the hand (accounts.models.HandOrder) ----------------------------------------

# As dealt: two diables, equal letters apart, values that do not follow the letters.
DEALT = (
    TileView(0, "E", 1),
    TileView(1, "?", 0),
    TileView(2, "K", 10),
    TileView(3, "A", 1),
    TileView(4, "Z", 10),
    TileView(5, "E", 1),
    TileView(6, "?", 0),
    TileView(7, "M", 2),
)


def letters(tiles) -> str:
    return "".join(tile.letter for tile in tiles)


@pytest.mark.parametrize(
    ("order", "shown"),
    [
        ("unsorted", "E?KAZE?M"),
        ("letter-diables-last", "AEEKMZ??"),
        ("letter-diables-first", "??AEEKMZ"),
        # The most points first, then A to Z: K and Z are worth 10, M 2, A and E 1.
        ("value-diables-last", "KZMAEE??"),
        ("value-diables-first", "??KZMAEE"),
        ("no-such-order", "E?KAZE?M"),  # an order the code does not know: as dealt
    ],
)
def test_the_hand_is_sorted_as_the_player_chose(order: str, shown: str) -> None:
    assert letters(sorted_hand(DEALT, order)) == shown


def test_equal_tiles_keep_their_dealt_order() -> None:
    """The two E (and the two diables) in the order dealt: a page drawn twice is the same."""
    for order in HandOrder.values:
        tiles = sorted_hand(DEALT, order)
        assert [t.index for t in tiles if t.letter == "E"] == [0, 5]
        assert [t.index for t in tiles if t.letter == "?"] == [1, 6]


def test_a_rack_is_drawn_in_the_players_order() -> None:
    view = game_view(
        mode="sans-marque", hand_slots=0, my_hand=DEALT, hand_order="value-diables-first"
    )
    labels = slots(hand(view, "en"))
    assert [label.split(",")[0] for label in labels] == [
        "joker", "joker", "K", "Z", "M", "A", "E", "E",
    ]  # fmt: skip
    # The tiles keep their place in the hand as dealt: the move names them by letter.
    assert re.findall(r'data-index="(\d+)"', hand(view, "en")) == [
        "1",
        "6",
        "2",
        "4",
        "7",
        "3",
        "0",
        "5",
    ]


def test_sorted_tiles_fill_the_first_numbered_slots() -> None:
    """Avec marque, unsorted, a tile sits in its own slot; sorted, in the first ones."""
    unsorted = slots(hand(game_view(my_hand=JOKER_AND_GAPS), "en"))
    assert [slot for slot in unsorted if "," in slot] == [
        "1 A, 1 point",
        "4 K, 10 points",
        "12 joker, 0 points",
    ]
    view = game_view(my_hand=JOKER_AND_GAPS, hand_order="letter-diables-first")
    assert slots(hand(view, "en"))[:4] == [
        "1 joker, 0 points",
        "2 A, 1 point",
        "3 K, 10 points",
        "4",
    ]


@pytest.mark.parametrize(
    ("language", "label", "chosen"),
    [("en", "Sort", "By value, jokers last"), ("fr", "Trier", "Par valeur, diables à la fin")],
)
def test_the_sort_list_offers_every_order_and_shows_the_saved_one(
    language: str, label: str, chosen: str
) -> None:
    view = game_view(
        mode="sans-marque", hand_slots=0, my_hand=DEALT, hand_order="value-diables-last"
    )
    html = hand(view, language)
    assert f'<label for="hand-sort">{label}</label>' in html
    options = re.findall(r'<option value="([^"]+)"( selected)?>([^<]+)</option>', html)
    assert [value for value, _selected, _label in options] == HandOrder.values
    assert [text for _value, selected, text in options if selected] == [chosen]
