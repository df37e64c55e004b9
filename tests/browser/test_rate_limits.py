"""A limited request on the game page: the reason shows where the player looks, nothing changes."""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import Error as PlaywrightError

from games.models import ChatMessage, Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, snapshot, start_game

pytestmark = pytest.mark.browser

TOO_FAST = "Trop de demandes en peu de temps\u00a0: réessayez dans"


@pytest.fixture
def game(transactional_db) -> Game:
    game = start_game([make_player("alice"), make_player("bob")])
    return rig(game, ("CHATEAUXESLN", "R?KWIOMPBDLN"))


def test_a_limited_preview_move_and_chat_say_so_in_place(browse, game, settings) -> None:
    limits = settings.DIAMINO_RATE_LIMITS
    settings.DIAMINO_RATE_LIMITS = limits | {"preview": (1, 60), "move": (0, 60), "chat": (1, 60)}
    page = browse(seat_at(game, 0).player)
    page.goto(f"/parties/{game.pk}/")
    before = snapshot(game)

    pages.tap(page, "C", "H8")  # the one preview allowed: one letter is not a word yet
    pages.expect_rule_link(page, "R-PLACE-2")
    pages.tap(page, "H", "I8")  # the next is refused: said in the preview, the tiles stay
    expect(page.locator("#preview.is-error")).to_contain_text(TOO_FAST)
    expect(page.locator("#board .sq.has-pending")).to_have_count(2)
    expect(page.locator("#play-button")).to_be_disabled()

    # A pass is a move: refused in the move's error area, the page kept.
    form = page.locator("#move-form")
    form.locator("details.confirm summary").click()
    form.locator('button[name="action"][value="pass"]').click()
    expect(page.locator("#move-error")).to_contain_text(TOO_FAST)
    expect(pages.area(page)).to_have_attribute("data-version", "0")

    chat = page.locator("#chat-text")
    chat.fill("Bonne partie")
    page.get_by_role("button", name="Envoyer").click()
    expect(page.locator("#chat-messages")).to_contain_text("Bonne partie")
    chat.fill("Encore un mot")
    page.get_by_role("button", name="Envoyer").click()
    expect(page.locator("#chat-body .chat-error")).to_contain_text("Doucement")
    expect(chat).to_have_value("Encore un mot")  # kept, to send again later
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["Bonne partie"]
    assert snapshot(game) == before


def test_a_poll_in_flight_when_the_player_writes_does_not_wipe_the_chat_s_refusal(
    browse, game, settings
) -> None:
    """The page's poll asked with the chat's old count; the player writes meanwhile, then
    writes again too fast. The poll's late answer must not bring back the chat without
    the refusal: the page keeps a chat at least as new as the one it brings (site.js)."""
    settings.DIAMINO_RATE_LIMITS = settings.DIAMINO_RATE_LIMITS | {"chat": (1, 60)}
    page = browse(seat_at(game, 0).player)
    page.goto(f"/parties/{game.pk}/")
    held: list = []  # the first poll, held unanswered; the later ones go through

    def hold_the_first(route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(re.compile(r"[?&]since="), hold_the_first)
    for _ in range(100):  # the next poll comes within a second in these tests
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page did not poll"

    chat = page.locator("#chat-text")
    chat.fill("Bonne partie")
    page.get_by_role("button", name="Envoyer").click()
    expect(page.locator("#chat-messages")).to_contain_text("Bonne partie")
    chat.fill("Encore un mot")
    page.get_by_role("button", name="Envoyer").click()
    expect(page.locator("#chat-body .chat-error")).to_contain_text("Doucement")

    # The old poll's answer comes late (an aborted request has none), then the next poll's.
    with (
        page.expect_response(lambda response: "since=" in response.url),
        contextlib.suppress(PlaywrightError),
    ):
        held[0].continue_()
    page.wait_for_timeout(200)  # time for a late answer to be swapped in
    expect(page.locator("#chat-body .chat-error")).to_contain_text("Doucement")
    expect(page.locator("#chat-messages")).to_contain_text("Bonne partie")
