"""Playing with the keyboard alone, and what a screen reader hears of the board."""

from __future__ import annotations

import re

import pytest

from games import computer
from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.browser.test_hint_placement import against_computer_moving_first
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.browser


@pytest.fixture
def game(transactional_db) -> Game:
    game = start_game([make_player("alice"), make_player("bob")])
    # The second player has no S, but a diable to stand for one.
    return rig(game, ("CHATEAUXESLN", "R?KWIOMPBDLN"))


def focused_name(page) -> str:
    return page.evaluate("document.activeElement.getAttribute('aria-label') || ''")


def test_board_squares_have_accessible_names_that_say_where_what_and_whether_empty(
    browse, game
) -> None:
    page = browse(seat_at(game, 0).player)
    page.goto(f"/parties/{game.pk}/")
    board = page.get_by_role("grid", name="Grille")
    expect(board.get_by_role("gridcell")).to_have_count(225)
    for name in (
        "H8, Départ, vide",
        "A1, diable rouge, vide",
        "B2, case noire, vide",
        "B6, diable vert, vide",
        "C1, vide",
    ):
        expect(board.get_by_role("gridcell", name=name, exact=True)).to_have_count(1)
    expect(board.get_by_role("columnheader", name="H")).to_have_count(1)
    expect(board.get_by_role("rowheader", name="8", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name="C, 3 points")).to_have_count(1)


def test_a_whole_game_turn_by_turn_with_the_keyboard_alone(browse, game) -> None:
    first, second = (browse(seat_at(game, n).player) for n in (0, 1))
    for page in (first, second):
        page.goto(f"/parties/{game.pk}/")

    # While waiting, the second player goes to J7 on the board with the keyboard.
    pages.tab_to_board(second)
    for key in ("ArrowUp", "ArrowRight", "ArrowRight"):
        second.keyboard.press(key)
    assert focused_name(second) == "J7, vide"

    # Tab reaches the board on the Départ square; Enter starts typing there.
    pages.tab_to_board(first)
    assert focused_name(first) == "H8, Départ, vide"
    first.keyboard.press("Enter")
    first.keyboard.type("CHAT")
    expect(
        first.get_by_role("gridcell", name="K8, lettre T, 1 point, nouvelle lettre")
    ).to_have_count(1)
    pages.expect_preview_ok(first, "CHAT")
    first.keyboard.press("Enter")  # to the Play button
    expect(first.locator("#play-button")).to_be_focused()
    first.keyboard.press("Enter")
    pages.expect_version(first, 1)
    # The page was rebuilt: the focus comes back to the board, not to the top of the page.
    expect(first.locator("#board .sq:focus")).to_have_count(1)
    expect(
        first.get_by_role("gridcell", name="H8, lettre C, 3 points, dernier coup")
    ).to_have_count(1)

    # The move reaches the second player's page by itself, and the focus stays on J7.
    pages.wait_for_my_turn(second)
    expect(second.locator("#board .sq:focus")).to_have_attribute("data-square", "J7")
    # Enter, / to type downwards, R then S, which only a diable can be.
    second.keyboard.press("Enter")
    second.keyboard.press("/")
    second.keyboard.press("R")
    second.keyboard.press("S")
    dialog = second.get_by_role("dialog", name=re.compile("diable"))
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="S", exact=True)).to_be_focused()
    second.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    pages.expect_preview_ok(second, "RAS")
    second.keyboard.press("Enter")
    second.keyboard.press("Enter")
    pages.expect_version(second, 2)
    expect(
        second.get_by_role("gridcell", name="J9, lettre S, 0 point, diable, dernier coup")
    ).to_have_count(1)

    # The first player passes: Tab to Pass, open it, Tab to confirm.
    pages.wait_for_my_turn(first)
    tab_to(first, "Passe")
    first.keyboard.press("Enter")
    tab_to(first, "Oui, passer")
    first.keyboard.press("Enter")
    pages.expect_version(first, 3)

    # The second player exchanges K and W: Exchange, then the tiles, then confirm.
    pages.wait_for_my_turn(second)
    tab_to(second, "Échange")
    second.keyboard.press("Enter")
    for tile in ("K, 9 points", "W, 9 points"):
        tab_to(second, tile, backwards=True)
        second.keyboard.press("Space")
    tab_to(second, "Confirmer l’échange")
    second.keyboard.press("Enter")
    pages.expect_version(second, 4)

    game.refresh_from_db()
    assert [m.notation for m in game.moves.order_by("number")][:3] == [
        "H8→ CHAT",
        "J7↓ R(A)s",
        "Passe",
    ]
    assert game.moves.get(number=4).kind == "exchange"


def tab_to(page, name: str, *, backwards: bool = False, presses: int = 80) -> None:
    """Press Tab (or Shift+Tab) until the element named ``name`` has the focus."""
    key = "Shift+Tab" if backwards else "Tab"
    for _ in range(presses):
        page.keyboard.press(key)
        label = page.evaluate(
            "(() => { const el = document.activeElement;"
            " return el.getAttribute('aria-label') || el.textContent.trim(); })()"
        )
        if label == name:
            return
    raise AssertionError(f"no element named {name!r} after {presses} presses of {key}")


def play_chat_by_keyboard(page) -> None:
    """From the board's first Tab (Départ), type CHAT across and play it: Enter, Enter."""
    pages.tab_to_board(page)
    assert focused_name(page) == "H8, Départ, vide"
    page.keyboard.press("Enter")
    page.keyboard.type("CHAT")
    pages.expect_preview_ok(page, "CHAT")
    # Typing moves the board's focus along: L8 is the square the player used last.
    expect(page.locator("#board .sq:focus")).to_have_attribute("data-square", "L8")
    page.keyboard.press("Enter")  # to the Play button
    expect(page.locator("#play-button")).to_be_focused()
    page.keyboard.press("Enter")


def test_against_the_computer_the_focus_comes_back_to_the_square_last_used(
    browse, transactional_db
) -> None:
    alice = make_player("alice")
    game = against_computer_moving_first(alice)
    page = browse(alice)
    page.goto(f"/parties/{game.pk}/")

    play_chat_by_keyboard(page)
    pages.expect_computer_answer(page, 2)  # the move, and the computer's reply with it
    pages.wait_for_my_turn(page)
    # With its focus ring (the square's :focus-visible outline), and ready for the next word.
    expect(page.locator("#board .sq:focus-visible")).to_have_attribute("data-square", "L8")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#board .sq:focus-visible")).to_have_attribute("data-square", "L9")


def test_the_focus_stays_on_the_board_when_the_computers_reply_comes_by_the_poll(
    browse, transactional_db, monkeypatch
) -> None:
    """With a worker (not eager), the answer to the move says the computer is thinking;
    its reply comes with the next poll, which rebuilds the page a second time."""
    alice = make_player("alice")
    game = against_computer_moving_first(alice)
    held: list[tuple[int, int]] = []
    monkeypatch.setattr(computer, "computer_turn_queue", lambda *turn: held.append(turn))
    # With a worker the page's poll leaves the computer's turn to it, and plays none.
    monkeypatch.setattr(computer, "computer_turns_catch_up", lambda game, viewer: False)
    page = browse(alice)
    page.goto(f"/parties/{game.pk}/")

    play_chat_by_keyboard(page)
    pages.expect_version(page, 1)
    expect(page.locator("#board .sq:focus")).to_have_attribute("data-square", "L8")
    assert held == [(game.pk, 1)]
    computer.computer_turn_play(game_id=game.pk, version=1)  # the worker's turn
    pages.expect_version(page, 2)
    pages.wait_for_my_turn(page)
    expect(page.locator("#board .sq:focus")).to_have_attribute("data-square", "L8")
