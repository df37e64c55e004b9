"""Moves the game refuses: the page says why, keeps what the player did, and nothing changes."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, snapshot, start_game

pytestmark = pytest.mark.browser


@pytest.fixture
def game(transactional_db) -> Game:
    game = start_game([make_player("alice"), make_player("bob")])
    return rig(game, ("CHATEAUXESLN", "R?KWIOMPBDLN"))


def test_a_move_from_a_second_tab_that_missed_the_first_tab_s_move_is_not_played(
    browse, game
) -> None:
    """PLAYERS.md 9: two tabs must never play twice; the stale one says so in place."""
    # Every open page polls (every few seconds): the second tab acts before its
    # next poll would have brought the first tab's move (in the background, it has not polled).
    player = seat_at(game, 0).player
    first_tab = browse(player)
    second_tab = first_tab.context.new_page()
    for page in (first_tab, second_tab):
        page.goto(f"/parties/{game.pk}/")
    pages.hide(second_tab)

    # The player plays in the first tab...
    first_tab.bring_to_front()
    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(first_tab, letter, name)
    pages.expect_preview_ok(first_tab, "CHAT")
    pages.play(first_tab)
    before = snapshot(game)

    # ...then comes back to the second, which still shows the empty board and
    # "your turn": its pass is refused.
    second_tab.bring_to_front()
    form = second_tab.locator("#move-form")
    form.locator("details.confirm summary").click()
    form.locator('button[name="action"][value="pass"]').click()
    alert = second_tab.get_by_role("alert")
    expect(alert).to_contain_text("La partie a avancé")
    expect(alert.get_by_role("link")).to_be_visible()  # "reload the game"
    expect(pages.area(second_tab)).to_have_attribute("data-version", "0")
    assert snapshot(game) == before

    # A placement in the stale tab: the preview already says the game moved on.
    pages.tap(second_tab, "E", "H9")
    expect(second_tab.locator("#preview.is-error")).to_contain_text("La partie a avancé")
    expect(second_tab.locator("#play-button")).to_be_disabled()
    assert snapshot(game) == before


def test_a_refused_move_links_to_the_rule_it_breaks_on_the_rules_page(browse, game) -> None:
    """Issue 33: the refusal names its rule by a link a player can follow, not by a bare id."""
    page = browse(seat_at(game, 0).player)
    page.goto(f"/parties/{game.pk}/")
    pages.tap(page, "C", "H8")
    pages.tap(page, "H", "I8")
    expect(page.locator("#preview")).to_contain_text("CH")
    pages.expect_rule_link(page, "R-PLACE-4")

    page.locator("#preview").get_by_role("link", name="Voir la règle").click()
    page.wait_for_url("**/regles/#R-PLACE-4")
    rule = page.locator("#R-PLACE-4")
    expect(rule).to_contain_text("dictionnaire")
    expect(rule).to_be_in_viewport()
