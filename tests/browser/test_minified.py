"""The scripts and style sheets as production serves them, minified by collectstatic
(diamino_site/storage.py), play a move on a phone.

The other browser tests load the sources from the live server; here the browser gets
what ``collectstatic`` would give it instead: the same files through the same minifier.
"""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from playwright.sync_api import Route

from diamino_site.storage import minifier
from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.browser


@pytest.fixture
def game(transactional_db) -> Game:
    return rig(
        start_game([make_player("alice"), make_player("bob")]), ("CHATEAUXESLN", "RIKWIOMPBDLN")
    )


def test_the_minified_scripts_and_style_sheets_play_a_move_on_a_phone(browse, game) -> None:
    minified: list[str] = []

    def serve(route: Route) -> None:
        name = route.request.url.split("/static/", 1)[1].split("?", 1)[0]
        minify = minifier(name)
        found = finders.find(name)
        if minify is None or not isinstance(found, str):
            route.continue_()
            return
        with open(found, encoding="utf-8") as source:
            text = source.read()
        small = minify(text)
        assert len(small) < len(text), name
        minified.append(name)
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        route.fulfill(body=small, content_type=f"{kind}; charset=utf-8")

    page = browse(seat_at(game, 0).player, phone=True)
    page.route("**/static/**", serve)
    page.goto(f"/parties/{game.pk}/")
    assert {"js/board.js", "js/site.js", "js/menu.js", "css/site.css", "css/board.css"} <= set(
        minified
    )
    # menu.js folded the menu on the phone, the style sheets laid the board out.
    expect(page.locator("#site-menu")).not_to_have_attribute("open", "")
    assert page.locator("#board .sq").first.bounding_box()["width"] >= 24

    for letter, square in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(page, letter, square)
    pages.expect_preview_ok(page, "CHAT")
    pages.play(page)
    expect(page.locator("#board [data-square='H8']")).to_contain_text("C")
