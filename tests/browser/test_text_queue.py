"""A queued move in the screen-reader mode (issues #36 and #37), by keyboard, by ear, in French.

Not her turn: the player types her next move in the text game's field, hears it read
back, chooses its kind in a radio group and queues it; the live region says what is
queued; a move her hand can never make is refused in words and stays in the field.
When the other player moves (through the services), her queued move is played at
once and the live region says so. Everything is read off the accessibility tree
(roles and names) and done with the keyboard alone.
"""

from __future__ import annotations

import random
import re

import pytest

import rules
from games import services
from games.models import Game
from tests.browser.pages import expect
from tests.browser.test_screen_reader import expect_no_axe_violation, heard
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game
from tests.notifications.conftest import play_chat

pytestmark = pytest.mark.browser

HANDS = ("CHATEAUXSIR?", "KWYZEPOTALUS")  # she holds an S to make CHATS on L8
MOVE = "Votre coup, comme dans une réponse à un e-mail de tour"
QUEUED = "Coup prévu : H8 CHATS, joué à votre tour seulement si rien n’a changé autour."


@pytest.fixture
def game(transactional_db) -> Game:
    game = rig(start_game([make_player("alice"), make_player("bob")]), HANDS)
    play_chat(game)  # the first player opens with CHAT on H8; the second is to move
    return game


def news(page):
    return page.get_by_role("status", name="Nouvelles de la partie")


def queue_typed(page, text: str, *, only_if_unchanged: bool = False) -> None:
    """From the move field: type ``text``, then Tab through the kinds (one arrow to
    the second), "Relire" and "Jouer quand ce sera mon tour", and press Enter."""
    field = page.get_by_role("textbox", name=MOVE)
    expect(field).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type(text)
    page.keyboard.press("Tab")
    expect(page.get_by_role("radio", name="S’il est encore légal")).to_be_focused()
    if only_if_unchanged:
        page.keyboard.press("ArrowDown")
        expect(
            page.get_by_role("radio", name="Seulement si rien n’a changé autour")
        ).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Relire")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Jouer quand ce sera mon tour")).to_be_focused()
    page.keyboard.press("Enter")


def test_a_move_queued_by_keyboard_is_said_then_played_when_the_turn_comes(browse, game) -> None:
    first, second = (seat_at(game, n).player for n in (0, 1))
    page = browse(first, language="fr")
    page.goto(f"/parties/{game.pk}/?texte=1")
    expect(page.get_by_role("heading", name="Votre prochain coup")).to_be_visible()
    assert f"{second.username} doit jouer." in heard(page, "#text-game")
    field = page.get_by_role("textbox", name=MOVE)

    # m: the move field; a move her hand can never make is refused, and kept as typed.
    page.locator("body").focus()
    page.keyboard.press("m")
    queue_typed(page, "A1 ZZZ")
    expect(page.get_by_role("alert")).to_contain_text("Z")
    expect(field).to_have_value("A1 ZZZ")
    expect(field).to_be_focused()
    assert "Coup prévu" not in heard(page, "#text-game")

    # Enter reads it back, judged on the board as it is now, and says how to queue it.
    page.keyboard.press("Control+A")
    page.keyboard.type("H8 CHATS")
    page.keyboard.press("Enter")
    expect(page.locator("#text-preview")).to_contain_text("Mots")
    read_back = heard(page, "#text-preview")
    assert "CHATS" in read_back and "Jouer quand ce sera mon tour" in read_back

    # Queued, "only if nothing near it changed": the live region says it, then the page.
    queue_typed(page, "H8 CHATS", only_if_unchanged=True)
    expect(news(page)).to_contain_text(QUEUED.replace(" :", "\u00a0:"))
    expect(page.get_by_role("heading", name="Coup prévu", exact=True)).to_be_visible()
    assert QUEUED in heard(page, "#text-game")
    expect(page.get_by_role("button", name="Annuler le coup prévu")).to_be_visible()
    expect(field).to_be_focused()
    expect(field).to_have_value("")
    expect_no_axe_violation(page)

    # The other player moves (a pass, elsewhere): her turn comes and her queued move is
    # played at once; the live region says so, and the focus stays in the move field.
    game.refresh_from_db()
    services.move_submit(
        game_id=game.pk,
        player=second,
        version=game.move_count,
        move=rules.Pass(1),
        rng=random.Random(1),
    )
    expect(news(page)).to_contain_text("Votre coup prévu a été joué.", timeout=8_000)
    expect(news(page)).to_contain_text(f"{first.username} a posé CHATS en H8 horizontal")
    expect(news(page)).to_contain_text(f"{second.username} doit jouer.")
    expect(page.get_by_role("heading", name="Coup prévu", exact=True)).to_have_count(0)
    expect(page.get_by_role("list", name=re.compile("Mots sur le plateau"))).to_contain_text(
        "CHATS"
    )
    expect(field).to_be_focused()


def test_cancel_pressed_after_the_queued_move_was_played_says_played(
    browse, game, settings
) -> None:
    """Her page has not polled since her queued move was played (a long poll here): her
    Cancel is answered with what happened, never "cancelled"."""
    settings.DIAMINO_POLL_SECONDS = 600
    first, second = (seat_at(game, n).player for n in (0, 1))
    page = browse(first, language="fr")
    page.goto(f"/parties/{game.pk}/?texte=1")
    page.get_by_role("textbox", name=MOVE).focus()
    queue_typed(page, "H8 CHATS")
    cancel = page.get_by_role("button", name="Annuler le coup prévu")
    expect(cancel).to_be_visible()
    game.refresh_from_db()
    services.move_submit(
        game_id=game.pk,
        player=second,
        version=game.move_count,
        move=rules.Pass(1),
        rng=random.Random(1),
    )
    cancel.focus()
    page.keyboard.press("Enter")
    expect(news(page)).to_contain_text("Votre coup prévu a été joué.")
    expect(news(page)).to_contain_text(f"{first.username} a posé CHATS en H8 horizontal")
    expect(news(page)).not_to_contain_text("annulé")
    expect(cancel).to_have_count(0)
