"""On a phone (390×844) the preview and the move buttons stay in view while the board is."""

from __future__ import annotations

from collections import Counter

import pytest

from games import bridge
from games.models import Game
from tests.browser import pages
from tests.browser.conftest import PHONE
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.browser

HEIGHT = PHONE["viewport"]["height"]


@pytest.fixture
def game(transactional_db) -> Game:
    """Sans marque, forty tiles a hand: the hand alone is taller than the screen is free."""
    game = start_game([make_player("alice"), make_player("bob")], mode="sans-marque")
    rest = sorted((Counter(bridge.config_of(game).tiles.counts) - Counter("CHAT")).elements())
    rest = [t for t in rest if t != "?"][::2] + [t for t in rest if t != "?"][1::2]
    return rig(game, ["".join(rest[:36]) + "CHAT", "".join(rest[36:76])])


def on_screen(page, selector: str) -> bool:
    """``selector`` is within the screen (to a pixel's rounding) and nothing lies over its middle.

    The element is found and measured in one step in the page: a preview that
    htmx swaps in between (after each tile) would otherwise be measured detached.
    """
    return page.evaluate(
        """selector => { const el = document.querySelector(selector);
                   if (!el) return false;
                   const r = el.getBoundingClientRect();
                   const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                   return r.top > -1 && r.bottom < innerHeight + 1 && !!top && el.contains(top); }""",
        selector,
    )


def board_in_view(page) -> bool:
    box = page.locator("#board").bounding_box()
    return box["y"] < HEIGHT and box["y"] + box["height"] > 0


def test_the_preview_and_play_stay_in_view_with_the_board_and_a_40_tile_hand(browse, game) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto(f"/parties/{game.pk}/")
    expect(page.locator("#hand .hand-tile")).to_have_count(40)
    assert board_in_view(page)
    assert on_screen(page, "#preview") and on_screen(page, "#play-button")

    # The last tiles of the hand are far below the board; the bar does not hide them.
    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        tile = pages.hand_tile(page, letter)
        tile.evaluate("el => el.scrollIntoView({block: 'nearest'})")
        assert on_screen(page, f'#hand .hand-tile:not(.is-placed)[data-letter="{letter}"]')
        tile.tap()
        target = pages.square(page, name)
        target.evaluate("el => el.scrollIntoView({block: 'nearest'})")
        assert on_screen(page, f'#board [data-square="{name}"]')
        # Back at the board: the preview and Play are there with it.
        assert on_screen(page, "#preview") and on_screen(page, "#play-button")
        target.tap()
    pages.expect_preview_ok(page, "CHAT")
    for row in (1, 8, 15):  # the board from its top to its bottom row
        pages.square(page, f"A{row}").evaluate("el => el.scrollIntoView({block: 'nearest'})")
        assert on_screen(page, f'#board [data-square="A{row}"]'), row
        assert on_screen(page, "#preview") and on_screen(page, "#play-button"), row
    page.locator("#play-button").tap()
    pages.expect_version(page, 1)
    game.refresh_from_db()
    assert list(game.moves.values_list("notation", flat=True)) == ["H8→ CHAT"]


@pytest.mark.parametrize("height", [HEIGHT, 640])  # and a phone with less room
def test_zoomed_on_a_phone_every_row_of_the_board_comes_into_view_above_the_bar(
    browse, game, height
) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.set_viewport_size({"width": 390, "height": height})
    page.goto(f"/parties/{game.pk}/")
    page.locator("#zoom-board").tap()
    expect(page.locator("#board-wrap")).to_have_class("board-wrap is-zoomed")
    wrap = page.locator("#board-wrap").bounding_box()
    bar = page.locator(".move-bar").bounding_box()
    assert wrap["height"] + bar["height"] <= height, "the zoomed board does not fit above the bar"
    box = pages.square(page, "H8").bounding_box()
    assert box is not None
    assert box["width"] >= 40
    for name in ("A1", "O1", "A10", "O12", "H15", "O15"):
        pages.square(page, name).evaluate("el => el.scrollIntoView({block: 'nearest'})")
        assert on_screen(page, f'#board [data-square="{name}"]'), f"{name} is cut off"
    pages.assert_no_sideways_scroll(page)


def row_labels_cut(page, rows: range) -> list[str]:
    """The row labels of ``rows`` not wholly inside the zoomed board's window, or too wide for their cell.

    Measured in one step in the page, against the window's visible box (its
    client area, without its scroll bars).
    """
    return page.evaluate(
        """rows => { const wrap = document.querySelector('#board-wrap');
                 const w = wrap.getBoundingClientRect();
                 const left = w.left + wrap.clientLeft, top = w.top + wrap.clientTop;
                 const right = left + wrap.clientWidth, bottom = top + wrap.clientHeight;
                 const heads = [...document.querySelectorAll('#board .row-head')];
                 return rows.filter(row => { const head = heads[row - 1], r = head.getBoundingClientRect();
                   const inside = r.left >= left - 1 && r.right <= right + 1 && r.top >= top - 1 && r.bottom <= bottom + 1;
                   const fits = head.scrollWidth <= head.clientWidth;
                   const top_el = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                   return !(inside && fits && top_el && head.contains(top_el)); }).map(String); }""",
        list(rows),
    )


def test_zoomed_on_a_phone_the_row_labels_10_to_15_are_whole_wherever_the_board_is_scrolled(
    browse, game
) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto(f"/parties/{game.pk}/")
    page.locator("#zoom-board").tap()
    expect(page.locator("#board-wrap")).to_have_class("board-wrap is-zoomed")
    for name in ("A15", "H15", "O15"):  # the bottom rows, from the left edge to the right one
        pages.square(page, name).evaluate(
            "el => el.scrollIntoView({block: 'nearest', inline: 'nearest'})"
        )
        assert row_labels_cut(page, range(10, 16)) == [], name
