"""A person plays the computer in Chromium: one click, a hint, and the reply without a reload."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from django.conf import settings

from games import services
from games.models import Game, Seat
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def test_a_player_starts_a_game_against_the_computer_asks_a_hint_and_sees_the_reply(
    browse, transactional_db
) -> None:
    page = browse(make_player("alice"))
    page.goto("/parties/")
    form = page.locator("form.computer-form")
    form.get_by_label("Partie").select_option("marque")
    form.get_by_label("Niveau").select_option("debutant")
    form.get_by_role("button", name="Jouer contre l’ordinateur").click()

    # The game has started; if the computer drew first, it has played already.
    pages.wait_for_my_turn(page)
    expect(page.locator(".seat-list .badge.bot")).to_contain_text("ordinateur")
    expect(page.get_by_role("heading", name=re.compile("Partie"))).to_contain_text("non classée")

    # A hint: the best move for the player's own tiles, its squares outlined.
    page.get_by_role("button", name="Indice (3 restants)").click()
    hint = page.locator(".hint-move")
    expect(hint).to_contain_text("Meilleur coup")
    expect(page.locator(".hint-box")).to_contain_text("2 indices restants")
    stored = Seat.objects.get(player__username="alice").hint
    assert stored is not None
    # The deal is random: the best move may be an exchange, which covers no square.
    expect(page.locator("#board .hint-square")).to_have_count(len(stored["squares"]))
    if stored["squares"]:
        expect(page.locator("#board .hint-square").first).to_be_visible()

    # The player passes; the answer already holds the computer's reply.
    before = pages.version(page)
    move_form = page.locator("#move-form")
    move_form.locator("details.confirm summary").click()
    move_form.locator('button[name="action"][value="pass"]').click()
    pages.expect_computer_answer(page, before + 2)
    pages.wait_for_my_turn(page)
    expect(page.locator("#history .move")).to_have_count(before + 2)
    game = Game.objects.get()
    assert game.move_count == before + 2 and not game.rated


def add_computer(page: Page) -> None:
    """The creator adds the computer, a plain form: the table's page comes again. Its form to
    remove the computer posts through htmx only once htmx has bound it, as the page loads:
    pressed sooner, it posts the whole page (and the refusal comes as a message, not an alert)."""
    page.get_by_role("button", name="Ajouter l’ordinateur").click()
    expect(page.locator(".seat-list li")).to_have_count(2)
    page.wait_for_load_state()


def test_the_creator_removes_the_computer_from_an_open_table_without_a_reload(
    browse, transactional_db
) -> None:
    alice = make_player("alice")
    table = services.game_create(creator=alice, mode="marque", seats=3)
    page = browse(alice)
    page.goto(f"/parties/{table.pk}/")
    seats = page.locator(".seat-list li")
    add_computer(page)
    expect(seats.nth(1)).to_contain_text("Ordinateur (débutant)")

    # htmx swaps the table's area in place: the page is not loaded again.
    page.evaluate("window.stillThisPage = true")
    page.get_by_role("button", name="Retirer l’ordinateur").click()
    status = page.get_by_role("status")
    expect(status).to_have_text("L’ordinateur a quitté la table.")
    expect(status).to_be_focused()  # the button that was pressed is gone
    expect(seats).to_have_count(1)
    assert page.evaluate("window.stillThisPage") is True
    assert not Game.objects.get(pk=table.pk).seats.filter(player__bot_level__gt="").exists()

    # A refusal is swapped in too: the computer's seat went meanwhile (another tab).
    add_computer(page)
    Seat.objects.filter(game=table, player__bot_level__gt="").delete()
    page.get_by_role("button", name="Retirer l’ordinateur").click()
    expect(page.get_by_role("alert")).to_have_text("Cette place n’existe pas à cette table.")
    expect(seats).to_have_count(1)

    # An answer that is not the table's area is never nested in the page: Django's
    # CSRF refusal (the cookie was lost) loads the table again, whose fresh token
    # then works...
    add_computer(page)
    page.evaluate("window.stillThisPage = true")
    page.context.clear_cookies(name="csrftoken")
    page.get_by_role("button", name="Retirer l’ordinateur").click()
    pages.wait_until(page, "() => window.stillThisPage === undefined")
    expect(page.locator(".site-header")).to_have_count(1)
    expect(seats).to_have_count(2)
    page.wait_for_load_state()  # htmx binds the new page's forms as it loads (add_computer)
    page.get_by_role("button", name="Retirer l’ordinateur").click()
    expect(page.get_by_role("status")).to_have_text("L’ordinateur a quitté la table.")
    # ... and a session that ended meanwhile shows the log-in page, as a page.
    add_computer(page)
    page.context.clear_cookies(name=settings.SESSION_COOKIE_NAME)
    page.get_by_role("button", name="Retirer l’ordinateur").click()
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    expect(page.locator(".site-header")).to_have_count(1)
    expect(page.locator("#table-area")).to_have_count(0)
    Seat.objects.filter(game=table, player__bot_level__gt="").delete()
    page = browse(alice)

    # Once the game has started there is nothing to swap: the game page says why.
    page.goto(f"/parties/{table.pk}/")
    add_computer(page)
    services.game_join(game_id=table.pk, player=make_player("bob"))
    page.get_by_role("button", name="Retirer l’ordinateur").click()
    expect(page.locator(".messages")).to_contain_text(
        "La partie a commencé\u00a0: l’ordinateur garde sa place."
    )
    expect(page).to_have_url(re.compile(rf"/parties/{table.pk}/$"))


def test_after_resigning_among_computers_the_page_shows_them_playing_on(
    browse, transactional_db
) -> None:
    """Without a worker the resignation's answer brings a bounded few of their moves,
    not the whole game; the page's poll brings the next ones, without a reload."""
    alice = make_player("alice")
    game = services.game_create(creator=alice, mode="sans-marque", seats=3)
    services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    page = browse(alice)
    page.goto(f"/parties/{game.pk}/")
    pages.wait_for_my_turn(page)  # the computers that drew first have played already
    before = pages.version(page)
    page.evaluate("window.stillThisPage = true")

    page.locator(".resign-form summary").click()
    page.locator(".resign-form button[type=submit]").click()
    # The answer comes after the computers' searches it plays (up to the bound).
    expect(page.locator(".resign-form")).to_have_count(0, timeout=pages.COMPUTER_ANSWER_MS)
    answered = pages.version(page)
    # The resignation, and at most the bound of the computers' moves after it.
    assert before < answered <= before + 1 + settings.DIAMINO_COMPUTER_TURNS_PER_REQUEST

    pages.wait_until(
        page, f"() => +document.querySelector('#game-area').dataset.version > {answered}"
    )
    assert page.evaluate("window.stillThisPage") is True
    expect(page.locator(".seat-list")).to_contain_text("a abandonné")
