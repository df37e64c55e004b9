"""The guided first game through the page: a newcomer from the home page to the end.

In French on a phone (a tap on a tile, then on a square) and in English on a
desktop (the keyboard and the mouse), signed out: the guided game needs no
account. Leaving and coming back, starting again, and a wrong move refused
with the engine's message and the step's guidance.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from games.models import Game
from tests.browser import pages
from tests.browser.pages import assert_no_sideways_scroll, expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def banner(page: Page) -> str:
    return page.locator("#guided-step-title").inner_text()


def place(page: Page, *tiles: tuple[str, str]) -> None:
    for letter, square in tiles:
        pages.tap(page, letter, square)


def play_every_step(page: Page) -> None:
    """Steps 1 to 6 from the first, by tapping (or clicking) tiles then squares."""
    place(page, ("C", "H8"), ("H", "I8"), ("A", "J8"), ("T", "K8"))
    pages.expect_preview_ok(page, "CHAT")
    pages.play(page)
    place(page, ("O", "H9"), ("U", "H10"))
    pages.expect_preview_ok(page, "COU")
    pages.play(page)
    pages.tap(page, "?", "G10")
    pages.choose_diable_letter(page, "B")
    pages.tap(page, "T", "I10")
    pages.expect_preview_ok(page, "BUT")
    pages.play(page)
    place(page, ("O", "L8"), ("Y", "M8"), ("E", "N8"), ("R", "O8"))
    # The red devil: the page asks which tile to give back (R-PLACE-7).
    picker = page.locator("#returns-picker")
    expect(picker).to_be_visible()
    picker.locator('.return-choice[data-letter="K"]').click()
    pages.expect_preview_ok(page, "CHATOYER")
    pages.play(page)
    pages.exchange(page, "W")
    place(page, ("N", "K5"), ("U", "K6"), ("I", "K7"))
    pages.expect_preview_ok(page, "NUIT")
    pages.play(page)
    expect(page.locator("#game-over-title")).to_be_visible()


def test_a_newcomer_plays_the_guided_game_in_french_on_a_phone(browse, transactional_db) -> None:
    page = browse(phone=True)
    page.goto("/")
    page.locator("#guided-start").tap()
    expect(page.locator("#guided-step-title")).to_have_text(
        "Étape 1 sur 6 : Un premier mot sur Départ"
    )
    assert_no_sideways_scroll(page)
    place(page, ("C", "H8"), ("H", "I8"), ("A", "J8"), ("T", "K8"))
    pages.expect_preview_ok(page, "CHAT")
    pages.play(page)
    done = page.locator(".guided-done")
    expect(done).to_contain_text("Étape 1 terminée")
    expect(done).to_contain_text("L’ordinateur a répondu I7↓ O(H)\u00a0: OH.")
    expect(page.locator("#guided-step-title")).to_contain_text("Étape 2 sur 6")
    # The rest of the game, step by step, the explanations in French.
    place(page, ("O", "H9"), ("U", "H10"))
    pages.play(page)
    pages.tap(page, "?", "G10")
    pages.choose_diable_letter(page, "B")
    pages.tap(page, "T", "I10")
    pages.expect_preview_ok(page, "BUT")
    pages.play(page)
    expect(page.locator("#guided-step-title")).to_contain_text("Un diable rouge")
    place(page, ("O", "L8"), ("Y", "M8"), ("E", "N8"), ("R", "O8"))
    picker = page.locator("#returns-picker")
    expect(picker).to_be_visible()
    picker.locator('.return-choice[data-letter="K"]').tap()
    pages.expect_preview_ok(page, "CHATOYER")
    pages.play(page)
    expect(done).to_contain_text("Diable rouge en O8")
    expect(done).to_contain_text("Rendue à la réserve\u00a0: K.")
    pages.exchange(page, "W")
    expect(done).to_contain_text("Piochée dans la réserve\u00a0: I.")
    place(page, ("N", "K5"), ("U", "K6"), ("I", "K7"))
    pages.expect_preview_ok(page, "NUIT")
    pages.play(page)
    expect(page.locator("#game-over-title")).to_have_text(
        "Bien joué\u00a0: vous avez terminé la partie guidée."
    )
    expect(done).to_contain_text("Votre score\u00a0: 26 points.")
    expect(done).to_contain_text("doublée pour la case noire")
    assert_no_sideways_scroll(page)
    assert Game.objects.count() == 0  # no game row: not rated, listed nowhere


def test_a_newcomer_plays_the_guided_game_in_english_on_a_desktop_keyboard_and_mouse(
    browse, transactional_db
) -> None:
    page = browse(language="en")
    page.goto("/")
    page.locator("#guided-start").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#guided-step-title")).to_have_text("Step 1 of 6: A first word on Start")
    # Step 1 with the keyboard alone: Tab to the board (H8, Start, has the focus), Enter, type.
    pages.tab_to_board(page)
    expect(pages.square(page, "H8")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.type("CHAT")
    pages.expect_preview_ok(page, "CHAT")
    page.keyboard.press("Enter")  # to Play
    expect(page.locator("#play-button")).to_be_focused()
    page.keyboard.press("Enter")
    pages.expect_version(page, 1)
    expect(page.locator(".guided-done")).to_contain_text("The computer replied I7↓ O(H): OH.")
    # Step 2 with the mouse: drag the tiles.
    pages.drag(page, "O", "H9")
    pages.drag(page, "U", "H10")
    pages.expect_preview_ok(page, "COU")
    pages.play(page)
    # Step 3, the joker, typed: B is not in the hand, the joker stands for it.
    pages.square(page, "G10").click()
    page.keyboard.type("B")
    dialog = page.locator("#diable-dialog")
    expect(dialog).to_be_visible()
    page.keyboard.press("b")
    expect(dialog).to_be_hidden()
    page.keyboard.type("T")
    pages.expect_preview_ok(page, "BUT")
    pages.play(page)
    expect(page.locator(".guided-done")).to_contain_text("Your joker is a B")
    # Steps 4 to 6 with the mouse.
    place(page, ("O", "L8"), ("Y", "M8"), ("E", "N8"), ("R", "O8"))
    page.locator('#returns-picker .return-choice[data-letter="K"]').click()
    pages.expect_preview_ok(page, "CHATOYER")
    pages.play(page)
    expect(page.locator(".guided-done")).to_contain_text("Red devil on O8: give back one tile")
    pages.exchange(page, "W")
    place(page, ("N", "K5"), ("U", "K6"), ("I", "K7"))
    pages.expect_preview_ok(page, "NUIT")
    pages.play(page)
    expect(page.locator("#game-over-title")).to_have_text(
        "Well played: you have finished the guided game."
    )
    expect(page.locator(".guided-done")).to_contain_text("Your score: 26 points.")


def test_a_wrong_move_is_refused_with_the_engines_message_and_the_steps_guidance(
    browse, transactional_db
) -> None:
    page = browse(language="en")
    page.goto("/partie-guidee/")
    # Off Start: the engine's rule R-PLACE-2, and the step says again what to do.
    place(page, ("C", "G8"), ("H", "H8"))
    preview = page.locator("#preview")
    expect(preview).to_have_attribute("data-ok", "false")
    expect(preview).to_contain_text("R-PLACE-2")
    expect(preview.locator(".guided-guidance")).to_contain_text("Step 1: The first word")
    expect(page.locator("#play-button")).to_be_disabled()
    page.locator("#recall-tiles").click()
    # TOUT is a word the rules allow on Start, but not this step's.
    place(page, ("T", "H8"), ("O", "I8"), ("U", "J8"), ("T", "K8"))
    expect(preview).to_contain_text("not this step's")
    expect(page.locator("#play-button")).to_be_disabled()
    page.locator("#recall-tiles").click()
    expect(pages.square(page, "H8")).not_to_have_attribute("class", re.compile("has-tile"))
    expect(page.locator("#guided-step-title")).to_contain_text("Step 1 of 6")


def test_leave_come_back_restart_the_step_and_start_again(browse, transactional_db) -> None:
    page = browse(phone=True)
    page.goto("/partie-guidee/")
    place(page, ("C", "H8"), ("H", "I8"), ("A", "J8"), ("T", "K8"))
    pages.play(page)
    place(page, ("O", "H9"))
    # Leave at any time: the home page; coming back, the game is where it was.
    page.locator("#guided-leave").tap()
    expect(page).to_have_url(re.compile(r"/$"))
    page.locator("#guided-start").tap()
    expect(page.locator("#guided-step-title")).to_contain_text("Étape 2 sur 6")
    expect(page.locator("#board .sq.has-pending")).to_have_count(0)
    # Restart this step: its position again, the tiles put down taken back.
    place(page, ("O", "H9"))
    expect(page.locator("#board .sq.has-pending")).to_have_count(1)
    page.locator("#guided-restart-step").tap()
    expect(page.locator("#guided-step-title")).to_contain_text("Étape 2 sur 6")
    expect(page.locator("#board .sq.has-pending")).to_have_count(0)
    expect(pages.square(page, "K8")).to_have_attribute("data-letter", "T")
    # Start again from the beginning: an empty board, step 1.
    page.locator("#guided-restart").tap()
    expect(page.locator("#guided-step-title")).to_contain_text("Étape 1 sur 6")
    expect(page.locator("#board .sq.has-tile")).to_have_count(0)
    # And the whole game replayed to its end from there.
    play_every_step(page)
    page.locator("#guided-replay-last").tap()
    expect(page.locator("#guided-step-title")).to_contain_text("Étape 6 sur 6")
