"""The scripts and style sheets as production serves them, minified by collectstatic
(diamino_site/storage.py), on a phone.

Every browser test's pages get the minified files (``serve_minified`` in conftest.py):
this one checks that they do, and plays a move with the tiles placed, taken back and
placed again, which is where a minifier that changed a script showed first.
"""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders

from games.models import Game
from tests.browser import pages
from tests.browser.conftest import minified, static_prefix
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.browser

FETCH = "(path) => fetch(path).then((answer) => answer.text())"


@pytest.fixture
def game(transactional_db) -> Game:
    return rig(
        start_game([make_player("alice"), make_player("bob")]), ("CHATEAUXESLN", "RIKWIOMPBDLN")
    )


def test_the_pages_get_the_minified_files_and_play_a_move_on_a_phone(browse, game) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto(f"/parties/{game.pk}/")
    for name in ("js/board.js", "js/site.js", "js/menu.js", "css/site.css", "css/board.css"):
        source = finders.find(name)
        assert isinstance(source, str)
        with open(source, encoding="utf-8") as file:
            text = file.read()
        served = page.evaluate(FETCH, f"{static_prefix()}{name}")
        assert served == minified(name) and len(served) < len(text), name
    # menu.js folded the menu on the phone; the style sheets laid the board out in a grid.
    expect(page.locator("#site-menu")).not_to_have_attribute("open", "")
    h8, i8 = (pages.square(page, name).bounding_box() for name in ("H8", "I8"))
    assert h8 and i8 and h8["y"] == i8["y"] and h8["x"] < i8["x"] and h8["width"] < 390 / 15

    for letter, square in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(page, letter, square)
    pending = page.locator("#board .board-tile.is-pending")
    expect(pending).to_have_count(4)
    pages.square(page, "K8").tap()  # taken back to the hand
    expect(pending).to_have_count(3)
    expect(pages.square(page, "K8").locator(".board-tile")).to_have_count(0)
    pages.tap(page, "T", "K8")
    expect(pending).to_have_count(4)
    pages.expect_preview_ok(page, "CHAT")
    pages.play(page)
    expect(pages.square(page, "H8")).to_contain_text("C")
