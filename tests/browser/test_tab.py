"""The browser tab tells a player whose turn it is: its title and its icon, kept current by htmx."""

from __future__ import annotations

import re

import pytest

import rules
from games import services
from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.browser


@pytest.fixture
def game(transactional_db) -> Game:
    return start_game([make_player("alice"), make_player("bob")])


def icon(page) -> str:
    return page.locator("link#favicon").get_attribute("href")


def test_the_tab_turns_to_your_turn_when_the_poll_brings_the_other_player_s_move(
    browse, game
) -> None:
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    page = browse(second)
    page.goto(f"/parties/{game.pk}/")
    expect(page).to_have_title(f"Partie {game.pk} · Diamino")
    assert icon(page).endswith("/favicon.svg")

    services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    # No reload: the waiting page's poll (?since=) swaps the game area in.
    expect(page).to_have_title(
        f"(À vous) Partie {game.pk} · Diamino", timeout=pages.POLL_TIMEOUT_MS
    )
    assert icon(page).endswith("/favicon-turn.svg")

    pages.pass_turn(page)  # their own move, answered by htmx too
    expect(page).to_have_title(f"Partie {game.pk} · Diamino")
    assert re.search(r"/favicon\.svg$", icon(page))
