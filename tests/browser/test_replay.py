"""A player steps through their own running game: buttons and keys, the move, the scores,
their own tiles then; the board takes no tile while it shows the past, and is the live
position again at the last move.
"""

from __future__ import annotations

import pytest

from games import bridge
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game
from tests.games.test_player_replay import play

pytestmark = pytest.mark.browser

MOVES = 4


def letters(text: str) -> list[str]:
    return sorted(text.split())


def test_a_player_steps_through_their_running_game_with_buttons_and_keys(
    browse, transactional_db
) -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    history = play(game, MOVES)
    assert game.move_count == MOVES
    state = bridge.state_of(game)
    me = seat_at(game, state.turn)
    mine = me.position
    assert mine is not None
    moves = list(game.moves.order_by("number"))
    placed = [{sq for sq, _ in move.record.get("place", [])} for move in moves]
    page = browse(me.player, language="en")
    page.goto(f"/parties/{game.pk}/")
    board_tiles = page.locator("#board .board-tile:not(.is-pending)")
    live_count = board_tiles.count()
    assert live_count == sum(len(squares) for squares in placed)
    status = page.locator(".replay-status")
    expect(status).to_have_text(f"Move {MOVES} of {MOVES}")

    # A tile laid on a free square, then one move back: the tile goes back to the hand,
    # the board shows the game after move 3, and the panel says what move 3 was.
    free = next(
        f"{col}{row}"
        for row in range(1, 16)
        for col in "ABCDEFGHIJKLMNO"
        if not any(f"{col}{row}" in squares for squares in placed)
    )
    letter = next(ch for ch in me.hand if ch != "?")
    pages.tap(page, letter, free)
    expect(pages.square(page, free).locator(".board-tile.is-pending")).to_have_count(1)
    back = page.get_by_role("button", name="Previous move")
    back.click()
    expect(status).to_have_text(f"Move {MOVES - 1} of {MOVES}")
    expect(page.locator("#board .board-tile.is-pending")).to_have_count(0)
    expect(page.locator("#hand .hand-tile.is-placed")).to_have_count(0)
    expect(board_tiles).to_have_count(sum(len(squares) for squares in placed[: MOVES - 1]))
    expect(page.locator("#replay-move")).to_contain_text(str(moves[MOVES - 2].seat.player))
    hand = page.locator("#replay-hand")
    expect(hand).not_to_be_empty()
    assert letters(hand.inner_text()) == sorted(history[MOVES - 1][mine])
    scores = page.locator("#replay-scores li")
    expect(scores).to_have_count(2)

    # While the past is shown the board takes no tile.
    pages.tap(page, letter, free)
    expect(pages.square(page, free).locator(".board-tile")).to_have_count(0)

    # The keys, with the focus on the replay's buttons: Home to the deal, the arrows
    # one move at a time (the focus stays on a button that cannot go further), End
    # back to now.
    back.focus()
    page.keyboard.press("Home")
    expect(status).to_have_text(f"Move 0 of {MOVES}")
    expect(page.locator("#replay-move")).to_have_text("The deal.")
    expect(board_tiles).to_have_count(0)
    assert letters(hand.inner_text()) == sorted(history[0][mine])
    expect(page.get_by_role("button", name="First move")).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("ArrowRight")
    expect(status).to_have_text(f"Move 1 of {MOVES}")
    expect(board_tiles).to_have_count(len(placed[0]))
    assert letters(hand.inner_text()) == sorted(history[1][mine])
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(status).to_have_text(f"Move 0 of {MOVES}")
    expect(back).to_be_focused()
    page.keyboard.press("End")
    expect(status).to_have_text(f"Move {MOVES} of {MOVES}")
    expect(board_tiles).to_have_count(live_count)
    assert letters(hand.inner_text()) == sorted(history[MOVES][mine])

    # Next and Last buttons; at the last move the board is live again and takes a tile.
    page.get_by_role("button", name="First move").click()
    expect(status).to_have_text(f"Move 0 of {MOVES}")
    page.get_by_role("button", name="Next move").click()
    expect(status).to_have_text(f"Move 1 of {MOVES}")
    page.get_by_role("button", name="Last move").click()
    expect(status).to_have_text(f"Move {MOVES} of {MOVES}")
    pages.tap(page, letter, free)
    expect(pages.square(page, free).locator(".board-tile.is-pending")).to_have_count(1)


def test_a_move_arriving_while_a_player_looks_back_closes_the_replay_on_the_new_position(
    browse, transactional_db
) -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    play(game, 2)
    state = bridge.state_of(game)
    waiting = seat_at(game, 1 - state.turn)
    page = browse(waiting.player, language="en")
    page.goto(f"/parties/{game.pk}/")
    status = page.locator(".replay-status")
    page.get_by_role("button", name="First move").click()
    expect(status).to_have_text("Move 0 of 2")
    expect(page.locator("#board .board-tile")).to_have_count(0)
    # The other player moves; the waiting page's poll brings the new position, and the
    # replay starts again from it (the past shown is not kept over a changed game).
    play(game, 1, seed=5)
    pages.expect_version(page, 3, timeout=pages.POLL_TIMEOUT_MS)
    expect(status).to_have_text("Move 3 of 3")
    expect(page.locator("#replay-detail")).to_be_hidden()
    expect(page.locator("#board-wrap.is-replaying")).to_have_count(0)
    expect(page.locator("#board .board-tile")).to_have_count(
        sum(len(move.record.get("place", [])) for move in game.moves.all())
    )
