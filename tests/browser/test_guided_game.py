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


def place(page: Page, *tiles: tuple[str, str]) -> None:
    for letter, square in tiles:
        pages.tap(page, letter, square)


def expect_the_hand_in_view_above_the_bar(page: Page) -> None:
    """On a phone the preview and Play sit in a bar at the foot of the screen: with the
    hand brought into view, its last tile is above the bar, not under it."""
    last = page.locator(".hand-section .hand-tile").last
    last.evaluate("tile => tile.scrollIntoView({block: 'end'})")
    tile, bar = last.bounding_box(), page.locator(".move-bar").bounding_box()
    assert tile and bar and tile["y"] + tile["height"] <= bar["y"], (tile, bar)


def expect_a_strip_at_the_foot_of_the_screen(page: Page) -> None:
    """The bar, a refusal and the step's move in it, covers at most a fifth of the screen
    (the whole step repeated in it used to cover 40%, the hand under it)."""
    bar, screen = page.locator(".move-bar").bounding_box(), page.viewport_size
    assert bar and screen and bar["height"] <= screen["height"] / 5, (bar, screen)


# Each step's move by tapping (or clicking) a tile, then a square; the words it makes.
TILES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("C", "H8"), ("H", "I8"), ("A", "J8"), ("T", "K8")),
    (("O", "H9"), ("U", "H10")),
    (("?", "G10"), ("T", "I10")),
    (("O", "L8"), ("Y", "M8"), ("E", "N8"), ("R", "O8")),
    (),  # the exchange
    (("N", "K5"), ("U", "K6"), ("I", "K7")),
)
WORDS = ("CHAT", "COU", "BUT", "CHATOYER", "", "NUIT")


def play_step(page: Page, n: int) -> None:
    """Put down step ``n``'s tiles (the joker as a B, the K given back) and press Play."""
    if n == 4:
        pages.exchange(page, "W")
        return
    for letter, square in TILES[n]:
        pages.tap(page, letter, square)
        if letter == "?":
            pages.choose_diable_letter(page, "B")
    if n == 3:  # the red devil: the page asks which tile to give back (R-PLACE-7)
        picker = page.locator("#returns-picker")
        expect(picker).to_be_visible()
        picker.locator('.return-choice[data-letter="K"]').click()
    pages.expect_preview_ok(page, WORDS[n])
    pages.play(page)


def play_every_step(page: Page) -> None:
    """Steps 1 to 6 from the first: the game over."""
    for n in range(len(TILES)):
        play_step(page, n)
    expect(page.locator("#game-over-title")).to_be_visible()


# What the page says after each step, in French.
SAID_FR = (
    ("Étape 1 terminée", "L’ordinateur a répondu I7↓ O(H)\u00a0: OH.", "Étape 2 sur 6"),
    ("Vous avez joué H8↓ (C)OU\u00a0: COU.", "Étape 3 sur 6\u00a0: Le diable"),
    ("Votre diable est un B", "Étape 4 sur 6\u00a0: Un diable rouge"),
    ("Diable rouge en O8", "Rendue à la réserve\u00a0: K.", "Étape 5 sur 6"),
    ("Piochée dans la réserve\u00a0: I.", "Remise dans la réserve\u00a0: W.", "Étape 6 sur 6"),
    ("Votre score\u00a0: 26 points.", "doublée pour la case noire"),
)


def test_a_newcomer_plays_the_guided_game_in_french_on_a_phone(browse, transactional_db) -> None:
    page = browse(phone=True)
    page.goto("/")
    page.locator("#guided-start").tap()
    expect(page.locator("#guided-step-title")).to_have_text(
        "Étape 1 sur 6\u00a0: Un premier mot sur Départ"
    )
    assert_no_sideways_scroll(page)
    for n, said in enumerate(SAID_FR):
        play_step(page, n)
        for text in said:
            expect(page.locator(".guided-news")).to_contain_text(text)
        # The news is back in view after the move, above the board.
        expect(page.locator(".guided-done")).to_be_in_viewport()
    expect(page.locator("#game-over-title")).to_have_text(
        "Bien joué\u00a0: vous avez terminé la partie guidée."
    )
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
    play_step(page, 3)
    expect(page.locator(".guided-done")).to_contain_text("Red devil on O8: give back one tile")
    play_step(page, 4)
    play_step(page, 5)
    expect(page.locator("#game-over-title")).to_have_text(
        "Well played: you have finished the guided game."
    )
    expect(page.locator(".guided-done")).to_contain_text("Your score: 26 points.")


def test_a_wrong_move_is_refused_with_the_engines_message_and_the_steps_guidance(
    browse, transactional_db
) -> None:
    page = browse(language="en")
    page.goto("/partie-guidee/")
    # Off Start: the engine's rule R-PLACE-2, and the step's move in one line.
    place(page, ("C", "G8"), ("H", "H8"))
    preview = page.locator("#preview")
    expect(preview).to_have_attribute("data-ok", "false")
    pages.expect_rule_link(page, "R-PLACE-2")
    expect(preview.locator(".guided-guidance")).to_contain_text("Step 1: play H8→ CHAT.")
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
    # A tile of the step's word is guidance; one elsewhere is refused, in a strip at the
    # foot of the screen that names the step's move, and the hand stays in view above it.
    expect(page.locator("#preview.is-guidance")).to_contain_text("continuez")
    expect_the_hand_in_view_above_the_bar(page)
    place(page, ("U", "A1"))
    expect(page.locator("#preview.is-error")).to_contain_text("Étape 2\u00a0: jouez H8↓ (C)OU.")
    expect_a_strip_at_the_foot_of_the_screen(page)
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
