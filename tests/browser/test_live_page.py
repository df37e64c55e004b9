"""An open game page stays current without a reload, the player to move's too, and
keeps the tiles they are placing (docs/ARCHITECTURE.md, "A page that stays current")."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

import rules
from games import services
from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.browser

# The first player holds CHATEAUX and E, S; the second nothing that matters here.
HANDS = ("CHATEAUXESLN", "R?KWIOMPBDLN")


@pytest.fixture
def game(transactional_db) -> Game:
    return rig(start_game([make_player("alice"), make_player("bob")]), HANDS)


def placements(page) -> str:
    return page.locator("#move-placements").input_value()


def test_the_player_to_move_sees_the_chat_and_the_resignation_and_keeps_their_tiles(
    browse, game
) -> None:
    mover, other = seat_at(game, 0).player, seat_at(game, 1).player
    alice, bob = browse(mover), browse(other)
    for page in (alice, bob):
        page.goto(f"/parties/{game.pk}/")
    pages.tap(alice, "C", "H8")
    pages.tap(alice, "H", "I8")
    expect(alice.locator("#move-placements")).to_have_value("H8=C,I8=H")

    # Bob writes in the chat, in his own browser: Alice's page shows it by its poll.
    bob.locator("#chat-text").fill("Bonne chance !")
    bob.locator(".chat-form button[type=submit]").click()
    expect(alice.locator("#chat-messages")).to_contain_text(
        "Bonne chance !", timeout=pages.POLL_TIMEOUT_MS
    )
    # The game area came again with the news, and her two tiles are still placed.
    for name in ("H8", "I8"):
        expect(pages.square(alice, name)).to_have_class(re.compile(r"\bhas-pending\b"))
    assert placements(alice) == "H8=C,I8=H"
    expect(pages.hand_tile(alice, "C")).to_have_count(0)  # on the board, not in the hand

    # Bob opens the resignation's confirmation; news comes meanwhile (Alice writes): his
    # page takes it in, and the box stays open under his finger.
    bob.locator(".resign-form summary").click()
    services.chat_post(game_id=game.pk, author=mover, text="Merci, toi aussi")
    expect(bob.locator("#chat-messages")).to_contain_text(
        "Merci, toi aussi", timeout=pages.POLL_TIMEOUT_MS
    )
    expect(bob.locator(".resign-form button[type=submit]")).to_be_visible()
    # Bob resigns: Alice's page, whose turn it is, shows the game over.
    bob.locator(".resign-form button[type=submit]").click()
    expect(pages.area(alice)).to_have_attribute("data-over", "true", timeout=pages.POLL_TIMEOUT_MS)
    expect(alice.locator("#game-over-title")).to_be_visible()


def test_a_tile_whose_square_was_taken_goes_back_to_the_hand_and_the_player_is_told(
    browse, game
) -> None:
    """The same player in two tabs: this one, hidden, holds tiles being placed while the
    other plays through one of their squares and the opponent answers. The hidden tab
    does not poll; once shown it polls at once, keeps the tile whose square is free and
    says which came back to the hand."""
    mover, other = seat_at(game, 0).player, seat_at(game, 1).player
    page = browse(mover)
    page.goto(f"/parties/{game.pk}/")
    pages.tap(page, "E", "H8")
    pages.tap(page, "S", "H10")
    expect(page.locator("#move-placements")).to_have_value("H8=E,H10=S")
    pages.hide(page)

    other_tab = Client()
    other_tab.force_login(mover)
    played = other_tab.post(
        reverse("games:play", args=[game.pk]),
        {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"},
    )
    assert played.status_code == 302
    services.move_submit(game_id=game.pk, player=other, version=1, move=rules.Pass(1))
    page.wait_for_timeout(2_500)  # two polls' worth at the tests' 1 second
    assert pages.version(page) == 0, "a hidden page does not poll"

    pages.show(page)
    pages.expect_version(page, 2, timeout=pages.POLL_TIMEOUT_MS)
    expect(page.locator("#tiles-returned")).to_contain_text("E (H8)")
    expect(page.locator("#move-placements")).to_have_value("H10=S")
    expect(pages.square(page, "H10")).to_have_class(re.compile(r"\bhas-pending\b"))
    expect(pages.square(page, "H8")).to_have_attribute("data-letter", "C")


def test_no_poll_leaves_while_a_moves_answer_is_awaited_and_the_move_shows(browse, game) -> None:
    """A poll answered while the move's answer is on its way would replace the game area
    under it, and the answer, aimed at the old area, would be lost: the page sends no
    poll until the move's answer is in (static/js/site.js)."""
    mover = seat_at(game, 0).player
    page = browse(mover)
    page.goto(f"/parties/{game.pk}/")
    polls: list = []

    def count_the_poll(route) -> None:
        polls.append(route)
        route.continue_()

    page.route(re.compile(r"[?&]since="), count_the_poll)
    moves: list = []
    page.route(re.compile(r"/jouer/$"), lambda route: moves.append(route))
    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(page, letter, name)
    pages.expect_preview_ok(page, "CHAT")
    page.locator("#play-button").click()
    for _ in range(100):
        if moves:
            break
        page.wait_for_timeout(50)
    assert moves, "the move was not sent"
    answer = moves[0].fetch()  # played on the server; the page does not know it yet
    asked = len(polls)
    page.wait_for_timeout(2500)  # two and a half poll periods (a second in these tests)
    sent_meanwhile = len(polls) - asked
    moves[0].fulfill(response=answer)
    pages.expect_version(page, 1)
    expect(page.locator("#history")).to_contain_text("CHAT")
    assert sent_meanwhile == 0, "a poll left while the move's answer was awaited"
    page.wait_for_timeout(1500)  # and the polls go on once it is in
    assert len(polls) > asked
