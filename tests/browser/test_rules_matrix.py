"""The rule matrix: every rule of ../shared/RULES.md a player can meet, played through the page.

Each test plays one rule (in each mode where it differs) by tapping, dragging
or typing, from a position set up through the services (``positions.py``),
and checks what the player sees: the preview's words and effects, the scores,
the hand, the reserve, the move list. ``@rule`` names the ids a test plays;
``test_every_rule_a_player_can_meet_is_played_here`` fails when RULES.md has
an id that no test names and ``NOT_MET`` does not explain.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from games.models import Game
from tests.browser import pages
from tests.browser import positions as pos
from tests.browser.pages import expect

browser = pytest.mark.browser


def rule(*ids: str) -> Callable:
    """Name the RULES.md ids a test plays (read by the coverage test below)."""

    def mark(test: Callable) -> Callable:
        test.rules = ids
        return test

    return mark


def preview(page):
    return page.locator("#preview")


def expect_refused(page, rule_id: str, *words: str) -> None:
    """The preview says why, naming the rule; Play stays off."""
    expect(preview(page)).to_have_attribute("data-ok", "false")
    expect(preview(page)).to_contain_text(rule_id)
    for word in words:
        expect(preview(page)).to_contain_text(word)
    expect(page.locator("#play-button")).to_be_disabled()


def open_pages(browse, game: Game, players, *, phone: bool = False) -> list:
    """Each player's game page; the first player's on a phone if told."""
    result = []
    for player in players:
        page = browse(player, phone=phone and not result)
        page.goto(f"/parties/{game.pk}/")
        result.append(page)
    return result


def put(page, way: str, word: str, start: str, *, down: bool = False) -> None:
    """Lay ``word`` from ``start`` on empty squares by tap, mouse drag or keyboard."""
    column, row = start[0], int(start[1:])
    squares = [
        f"{column}{row + k}" if down else f"{chr(ord(column) + k)}{row}" for k in range(len(word))
    ]
    if way == "keyboard":
        pages.tab_to_board(page)
        page.locator(f'#board [data-square="{start}"]').focus()
        page.keyboard.press("Enter")
        if down:
            page.keyboard.press("/")
        page.keyboard.type(word)
        return
    for letter, name in zip(word, squares, strict=True):
        (pages.tap if way == "tap" else pages.drag)(page, letter, name)


# --- R-PLACE-7: red devils -------------------------------------------------------


@browser
@rule("R-PLACE-7", "R-HIDE-1")
@pytest.mark.parametrize("way", ["tap", "drag", "keyboard"])
def test_r_place_7_sans_marque_a_red_devil_asks_for_a_tile_to_give_back(
    browse, transactional_db, way
) -> None:
    """Issue 18, defect 1: ABAISSAI from H8 covers O8; the player gives back Q and plays."""
    game, players = pos.table(("ABAISSAIQEU", "ROTSNEL"), mode="sans-marque")
    # A tap is a finger on a phone; the mouse drags and the keyboard are a desktop's.
    me, other = open_pages(browse, game, players, phone=way == "tap")
    reserve = pos.reserve_size(me)

    put(me, way, "ABAISSAI", "H8")
    expect(preview(me)).to_contain_text("1")  # "give back exactly 1 tile"
    picker = me.locator("#returns-picker")
    expect(picker).to_be_visible()
    expect(me.locator("#play-button")).to_be_disabled()
    if way == "keyboard":
        me.keyboard.press("Enter")  # from the board to the tiles to give back
        expect(picker.locator(":focus")).to_have_attribute("data-letter", "Q")
        me.keyboard.press("Space")
    else:
        choice = picker.locator('[data-letter="Q"]')
        choice.tap() if way == "tap" else choice.click()
    pages.expect_preview_ok(me, "ABAISSAI")
    expect(preview(me)).to_contain_text(re.compile(r"Diable rouge en O8\s*:\s*rendez une lettre"))
    if way == "keyboard":
        while not me.evaluate("document.activeElement.id === 'play-button'"):
            me.keyboard.press("Tab")
        me.keyboard.press("Enter")
        pages.expect_version(me, 1)
    else:
        pages.play(me)

    # The returned Q is back in the reserve; the others see only that one tile went back.
    assert pos.hand(me) == "EU"
    assert pos.reserve_size(me) == reserve + 1
    assert "H8→ ABAISSAI −1" in pos.history(me)[-1]
    pages.wait_for_my_turn(other)
    assert pos.tiles_held(other)[players[0].username] == 2
    assert "H8→ ABAISSAI −1" in pos.history(other)[-1]
    assert pos.reserve_size(other) == reserve + 1
