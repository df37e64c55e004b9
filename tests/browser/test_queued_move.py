"""A queued move through the browser (issue #36): laid out while two others play,
"Jouer quand ce sera mon tour", then played the moment the turn comes."""

from __future__ import annotations

import re

import pytest

import rules
from games import services
from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game
from tests.notifications.conftest import play_chat

pytestmark = pytest.mark.browser

HANDS = ("CHATEAUXSIR?", "KWYZEPOTALUE", "LEPOTIERMANU")


@pytest.fixture
def game(transactional_db) -> Game:
    players = [make_player(name) for name in ("alice", "bob", "carol")]
    game = rig(start_game(players), HANDS)
    play_chat(game)
    return game


def test_a_move_queued_in_a_three_player_game_is_played_when_the_turn_comes(browse, game) -> None:
    first, second, third = (seat_at(game, k).player for k in range(3))
    page, next_page = browse(first), browse(second)
    for each in (page, next_page):
        each.goto(f"/parties/{game.pk}/")

    # Not her turn: she lays S on L8, the preview judges it on this board, and she queues it.
    pages.tap(page, "S", "L8")
    pages.expect_preview_ok(page, "CHATS", button="#queue-button")
    page.get_by_label("Seulement si rien n’a changé autour").check()
    button = page.get_by_role("button", name="Jouer quand ce sera mon tour")
    button.click()
    queued = page.locator("#queued-move")
    expect(queued).to_contain_text("H8→ (CHAT)S")
    expect(queued).to_contain_text("Seulement si rien n’a changé autour")
    # Laid out again on her board, to change it; the next player's page shows none of it.
    expect(pages.square(page, "L8")).to_have_class(re.compile(r"\bhas-pending\b"))
    expect(next_page.locator("#queued-move")).to_have_count(0)
    expect(pages.square(next_page, "L8")).not_to_have_class(re.compile(r"\bhas-pending\b"))

    # The two others play elsewhere in turn (a pass each): her turn comes, and her
    # queued move is played at once; the next player's page sees it is his turn.
    for seat, player in ((1, second), (2, third)):  # moves 2 and 3
        services.move_submit(game_id=game.pk, player=player, version=seat, move=rules.Pass(seat))
    pages.expect_version(page, 4, timeout=pages.POLL_TIMEOUT_MS)
    expect(page.locator("#queued-move")).to_have_count(0)
    expect(pages.square(page, "L8")).not_to_have_class(re.compile(r"\bhas-pending\b"))
    expect(page.locator("#move-placements")).to_have_value("")
    expect(page.locator(".move-list")).to_contain_text("CHATS")
    pages.wait_for_my_turn(next_page)
