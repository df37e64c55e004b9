"""The "Sort" list beside the hand: the order a player picks holds on the page, after a
reload, in their other games and after a move; Shuffle still shuffles and sets it back
to "Unsorted". Played with the keyboard, on a sans-marque rack of 13 tiles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from accounts.models import HandOrder, User
from games import bridge
from games.presenters import TileView, sorted_hand
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

# The first player's rack: CHAT opens the game on Départ; a diable, values from 1 to 10.
HANDS = ("CHAT?EAUXSIRN", "KWYZEPOTMLUE")
SAVE_URL = "/compte/ordre-des-tuiles/"


def shown(page: Page) -> str:
    """The letters of the hand, left to right as the player sees them."""
    return page.locator("#hand .hand-tile").evaluate_all(
        "tiles => tiles.map(tile => tile.dataset.letter).join('')"
    )


def in_order(letters: str, order: str, game) -> str:
    """``letters`` as the server sorts them in ``order`` (games.presenters.sorted_hand)."""
    values = dict(bridge.config_of(game).tiles.values)
    tiles = tuple(TileView(k, letter, values.get(letter, 0)) for k, letter in enumerate(letters))
    return "".join(tile.letter for tile in sorted_hand(tiles, order))


def saved_order(player: User) -> str:
    return User.objects.get(pk=player.pk).hand_order


def test_a_player_sorts_their_tiles_with_the_keyboard_and_the_order_follows_them(
    browse, transactional_db
) -> None:
    players = [make_player("alice"), make_player("bob")]
    game = rig(start_game(players, mode="sans-marque"), HANDS)
    me = seat_at(game, 0).player
    other = rig(start_game([players[1], players[0]], mode="sans-marque"), HANDS)
    other_hand = HANDS[0] if seat_at(other, 0).player == me else HANDS[1]
    page = browse(me, language="en")
    page.goto(f"/parties/{game.pk}/")
    select = page.locator("#hand-sort")
    expect(page.get_by_label("Sort", exact=True)).to_have_value("unsorted")
    assert shown(page) == HANDS[0]

    # A tile already on the board stays there, and in the hand as placed, whatever the order.
    pages.tap(page, "C", "H8")
    expect(pages.square(page, "H8").locator(".board-tile.is-pending")).to_have_count(1)

    # The list is reached with Tab (just after the tiles) and moved with the arrow keys:
    # each step sorts the rack at once; the last one is saved on the account.
    page.locator("#hand .hand-tile").last.focus()
    page.keyboard.press("Tab")
    expect(select).to_be_focused()
    page.keyboard.press("ArrowDown")  # By letter, jokers last
    assert shown(page) == in_order(HANDS[0], "letter-diables-last", game)
    page.keyboard.press("ArrowDown")  # By letter, jokers first
    with page.expect_response(lambda answer: SAVE_URL in answer.url) as answer:
        page.keyboard.press("ArrowDown")  # By value, jokers last
    expect(select).to_have_value("value-diables-last")
    by_value = in_order(HANDS[0], "value-diables-last", game)
    assert shown(page) == by_value and by_value.endswith("?")
    expect(page.locator("#hand .hand-tile.is-placed")).to_have_attribute("data-letter", "C")
    expect(pages.square(page, "H8").locator(".board-tile.is-pending")).to_have_count(1)
    assert answer.value.status == 204
    expect(page.locator("#hand-sort-message")).to_be_empty()
    for _ in range(50):  # the arrow steps' saves, one after the other: the last one wins
        if saved_order(me) == "value-diables-last":
            break
        page.wait_for_timeout(100)
    assert saved_order(me) == HandOrder.VALUE_DIABLES_LAST

    # Drawn sorted from the first paint: after a reload, and in another game.
    page.reload()
    expect(select).to_have_value("value-diables-last")
    assert shown(page) == by_value
    page.goto(f"/parties/{other.pk}/")
    expect(select).to_have_value("value-diables-last")
    assert shown(page) == in_order(other_hand, "value-diables-last", other)

    # Shuffle shuffles, and the order is "Unsorted" until the player sorts again.
    page.goto(f"/parties/{game.pk}/")
    with page.expect_response(lambda answer: SAVE_URL in answer.url):
        page.locator("#shuffle-hand").click()
    expect(select).to_have_value("unsorted")
    assert sorted(shown(page)) == sorted(HANDS[0]) and shown(page) != by_value
    assert saved_order(me) == HandOrder.UNSORTED

    # Sorted again, the rack keeps its order when the move redraws the page with new tiles.
    with page.expect_response(lambda answer: SAVE_URL in answer.url):
        select.select_option("letter-diables-first")
    assert shown(page) == in_order(HANDS[0], "letter-diables-first", game)
    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(page, letter, name)
    pages.expect_preview_ok(page, "CHAT")
    pages.play(page)
    expect(select).to_have_value("letter-diables-first")
    hand = "".join(seat_at(game, 0).hand)
    assert shown(page) == in_order(hand, "letter-diables-first", game) and hand != HANDS[0]


def test_an_order_that_cannot_be_saved_still_sorts_the_page_and_says_why(
    browse, transactional_db, settings
) -> None:
    settings.DIAMINO_RATE_LIMITS = settings.DIAMINO_RATE_LIMITS | {"hand-order": (0, 60)}
    players = [make_player("alice"), make_player("bob")]
    game = rig(start_game(players, mode="sans-marque"), HANDS)
    me = seat_at(game, 0).player
    page = browse(me, language="fr")
    page.goto(f"/parties/{game.pk}/")
    with page.expect_response(lambda answer: SAVE_URL in answer.url) as answer:
        page.get_by_label("Trier", exact=True).select_option("letter-diables-last")
    assert answer.value.status == 429
    expect(page.locator("#hand-sort-message")).to_have_text(
        "Trop de demandes en peu de temps\u00a0: réessayez dans 1\u00a0minute."
    )
    assert shown(page) == in_order(HANDS[0], "letter-diables-last", game)
    assert saved_order(me) == HandOrder.UNSORTED
