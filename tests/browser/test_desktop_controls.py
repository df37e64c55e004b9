"""On a desktop (1280×900) the board, the preview and Play stay on one screen, whatever opens between them."""

from __future__ import annotations

from collections import Counter

import pytest

from games import bridge
from tests.browser import pages
from tests.browser import positions as pos
from tests.browser.conftest import DESKTOP
from tests.browser.pages import expect
from tests.browser.test_phone_bar import on_screen
from tests.games.conftest import rig

pytestmark = pytest.mark.browser


def test_with_the_red_devil_picker_open_and_32_tiles_the_board_preview_and_play_are_on_screen(
    browse, transactional_db
) -> None:
    """ABAISSAI from H8 covers the red devil at O8: 24 tiles to choose from, and Play below them."""
    game, players = pos.table(("ABAISSAI", "ROTSNEL"), mode="sans-marque")
    rest = sorted(
        (Counter(bridge.config_of(game).tiles.counts) - Counter("ABAISSAIROTSNEL")).elements()
    )
    rig(game, ["ABAISSAI" + "".join([t for t in rest if t != "?"][::3][:24]), "ROTSNEL"])
    (me,) = pos.open_pages(browse, game, players[:1])
    assert me.viewport_size == DESKTOP["viewport"]
    expect(me.locator("#hand .hand-tile")).to_have_count(32)

    pos.put(me, "drag", "ABAISSAI", "H8")
    picker = me.locator("#returns-picker")
    expect(picker).to_be_visible()
    expect(picker.locator(".return-choice")).to_have_count(24)
    # Back at the square just played: the preview and Play are there with it, without a scroll.
    pages.square(me, "O8").evaluate("el => el.scrollIntoView({block: 'nearest'})")
    assert on_screen(me, '#board [data-square="O8"]')
    assert on_screen(me, "#preview"), "the preview is off the screen"
    assert on_screen(me, "#play-button"), "Play is off the screen"
    assert on_screen(me, "#returns-picker .return-choice"), (
        "the picker's first tile is off the screen"
    )

    picker.locator(".return-choice").first.click()
    pages.expect_preview_ok(me, "ABAISSAI")
    assert on_screen(me, '#board [data-square="O8"]')
    assert on_screen(me, "#preview") and on_screen(me, "#play-button")
    pages.play(me)
    pages.expect_version(me, 1)
