"""Three players at a sans-marque table, through to a winner."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at

pytestmark = pytest.mark.browser

# A sans-marque deal gives three players 32 tiles each; going out with 32 tiles
# takes a long game, so the deal is rigged to small hands that end in four
# moves. Everything else is the real game: the reserve holds the rest of the set.
HANDS = ("CHATS", "ROE", "SI")


def test_three_players_play_sans_marque_until_one_goes_out_and_wins(browse, transactional_db):
    players = [make_player(name) for name in ("carol", "dave", "erin")]
    browsers = {player.username: browse(player) for player in players}

    # Carol opens a public sans-marque table for three; Dave and Erin join it from the lobby.
    carol = browsers["carol"]
    carol.goto("/parties/")
    create = carol.locator("form.create-form")
    create.locator('select[name="mode"]').select_option("sans-marque")
    create.locator('select[name="seats"]').select_option("3")
    create.locator('button[type="submit"]').click()
    game = Game.objects.get()
    for name in ("dave", "erin"):
        page = browsers[name]
        page.goto("/parties/")
        page.locator("table.tables tr", has_text="carol").locator('button[type="submit"]').click()
        expect(page).to_have_url(f"/parties/{game.pk}/")
    game.refresh_from_db()
    assert (game.status, game.mode) == (Game.Status.RUNNING, "sans-marque")

    rig(game, HANDS)
    order = [browsers[seat_at(game, n).player.username] for n in range(3)]
    for page in order:
        page.goto(f"/parties/{game.pk}/")
    one, two, three = order

    # 1. CHAT on Départ, by tapping.
    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(one, letter, name)
    pages.expect_preview_ok(one, "CHAT")
    pages.play(one)

    # 2. ROT down onto the T, by dragging.
    pages.wait_for_my_turn(two)
    pages.drag(two, "R", "K6")
    pages.drag(two, "O", "K7")
    pages.expect_preview_ok(two, "ROT")
    pages.play(two)

    # 3. AS down from the A: the third player's page woke up by itself.
    pages.wait_for_my_turn(three)
    pages.tap(three, "S", "J9")
    pages.expect_preview_ok(three, "AS")
    pages.play(three)

    # 4. CHATS: the first player places their last tile and goes out.
    pages.wait_for_my_turn(one)
    pages.tap(one, "S", "L8")
    pages.expect_preview_ok(one, "CHATS")
    expect(one.locator("#preview .goes-out")).to_be_visible()
    pages.play(one)

    # R-END-2: the winner scores the value left in the others' hands (E and I: 1 + 1).
    winner = seat_at(game, 0).player.username
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for page in order:
        expect(pages.area(page)).to_have_attribute(
            "data-over", "true", timeout=pages.POLL_TIMEOUT_MS
        )
        expect(page.locator(".game-over")).to_contain_text(winner)
        expect(page.locator(".seat.is-winner, .seat:has(.badge.winner)")).to_contain_text(winner)
        assert pages.scores(page)[winner] == 2
