"""Giving the player to move one more day from the game page, and being told on one's own."""

from __future__ import annotations

import os

import pytest

from games.models import Game
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.browser


@pytest.fixture
def game(transactional_db) -> Game:
    return start_game([make_player("alice"), make_player("bob")])


def test_a_player_gives_the_one_to_move_a_day_and_both_pages_say_so(browse, game) -> None:
    """PLAYERS.md 6: the button beside the deadline, answered in place (htmx)."""
    mover, giver = seat_at(game, 0).player, seat_at(game, 1).player
    page = browse(giver)
    page.goto(f"/parties/{game.pk}/")
    page.get_by_role("button", name=f"Donner un jour de plus à {mover}").click()
    history = page.locator("#history")
    expect(history).to_contain_text(f"Vous avez donné un jour de plus à {mover}.")
    expect(page.locator(".time-given")).to_have_text("(+1 jour donné)")
    if os.environ.get("DIAMINO_SHOT"):
        page.screenshot(path=os.environ["DIAMINO_SHOT"], full_page=True)
    game.refresh_from_db()
    assert game.turn_extra_days == 1
    # The same button again gives a second day: the form carries the new version.
    page.get_by_role("button", name=f"Donner un jour de plus à {mover}").click()
    expect(page.locator(".time-given")).to_have_text("(+2 jours donnés)")

    theirs = browse(mover)
    theirs.goto(f"/parties/{game.pk}/")
    expect(theirs.locator("#history")).to_contain_text(f"{giver} vous a donné un jour de plus.")
    expect(theirs.get_by_role("button", name=f"Donner un jour de plus à {mover}")).to_have_count(0)
