"""The unseen tiles beside the board: after a move, both players read the new counts
(the mover at once, the other player by the page's poll), and the letters a phone
player unfolded stay unfolded through the refresh. Never more than each may see."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import pytest

from games import bridge
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

HANDS = ("CHATEAUXSIRN", "KWYZEPOTMLUE")


def letters(page: Page) -> Counter[str]:
    """The panel's tiles and counts, as the page shows them (``?`` a diable)."""
    pairs = page.locator("#unseen .unseen-letters li").evaluate_all(
        """items => items.map(item => [
             item.querySelector('.mini-tile').textContent.trim(),
             Number(item.querySelector('.unseen-count').textContent.match(/\\d+/g).pop()),
           ])"""
    )
    return Counter(dict(pairs))


def expected(game, seat: int) -> Counter[str]:
    """What ``seat`` has not seen, from the true state: the reserve and the other hands."""
    state = bridge.state_of(game)
    hidden = Counter(state.reserve)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(hand)
    return hidden


def test_after_a_move_both_players_read_the_new_unseen_counts(browse, transactional_db) -> None:
    game = rig(start_game([make_player("alice"), make_player("bob")]), HANDS)
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    mover = browse(first, language="en")
    waiter = browse(second, phone=True, language="fr")
    mover.goto(f"/parties/{game.pk}/")
    waiter.goto(f"/parties/{game.pk}/")
    reserve = len(bridge.state_of(game).reserve)

    # On a desktop the letters are open beside the board; on a phone, folded until asked.
    panel = mover.locator("#unseen")
    expect(panel.get_by_role("heading", name="Unseen tiles")).to_be_visible()
    expect(panel).to_contain_text(f"Reserve: {reserve} · {second}: 12")
    assert letters(mover) == expected(game, 0)
    details = waiter.locator("#unseen-details")
    expect(details).not_to_have_attribute("open", "")
    expect(waiter.locator("#unseen .unseen-letters")).to_be_hidden()
    waiter.locator("#unseen-details summary").click()
    expect(waiter.locator("#unseen .unseen-letters")).to_be_visible()
    assert letters(waiter) == expected(game, 1)

    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(mover, letter, name)
    pages.play(mover)
    game.refresh_from_db()
    assert bridge.state_of(game).move_count == 1

    # The mover: four tiles drawn, seen now; the reserve four fewer.
    expect(panel).to_contain_text(f"Reserve: {reserve - 4} · {second}: 12")
    assert letters(mover) == expected(game, 0)
    assert sum(letters(mover).values()) == reserve - 4 + 12
    # The other player, by the poll: the letters still unfolded, the counts new.
    pages.expect_version(waiter, 1, timeout=pages.POLL_TIMEOUT_MS)
    expect(waiter.locator("#unseen")).to_contain_text(f"Réserve\u00a0: {reserve - 4}")
    expect(waiter.locator("#unseen .unseen-letters")).to_be_visible()
    assert letters(waiter) == expected(game, 1)
    # CHAT is on the board: seen by both, gone from both panels' C, H, A, T.
    full = Counter(bridge.config_of(game).tiles.counts)
    state = bridge.state_of(game)
    for letter in "CHAT":
        assert letters(waiter)[letter] == full[letter] - 1 - state.hands[1].count(letter)
