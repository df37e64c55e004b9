"""The game on a phone (390×844): everything fits the width and is big enough to tap."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client

from games import services
from games.models import Game
from tests.browser import pages
from tests.browser.conftest import PHONE
from tests.browser.pages import assert_no_sideways_scroll, expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.browser

# WCAG 2.5.8 (AA) asks for targets of at least 24×24 CSS px: fifteen squares
# and the row numbers across 390 px leave just that. The hand is what a thumb
# picks from all game long: 44×44 px, the size WCAG 2.5.5 (AAA) and Apple's
# guidelines ask for.
SQUARE_PX = 24
TILE_PX = 44
# The header is one line of 44 px targets (the menu, the language) and its padding:
# 56 px. 64 px, a Material top app bar, leaves room for a larger system font; two
# lines would pass 80. It was 156 px, three lines of links, a fifth of the screen.
HEADER_PX = 64
SCREEN_PX = 844


def boxes(page, selector: str) -> list[dict]:
    return page.locator(selector).evaluate_all(
        "els => els.map(el => { const r = el.getBoundingClientRect();"
        " return {name: el.dataset.square || el.dataset.letter || el.id || el.textContent.trim(),"
        " width: r.width, height: r.height}; })"
    )


@pytest.fixture
def game(transactional_db) -> Game:
    alice, bob = make_player("alice"), make_player("bob")
    services.game_create(creator=make_player("carol"), mode="sans-marque", seats=5)
    return rig(start_game([alice, bob]), ("CHATEAUXESLN", "R?KWIOMPBDLN"))


def test_on_a_phone_the_board_and_the_hand_fit_and_are_big_enough_to_tap(browse, game) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto(f"/parties/{game.pk}/")
    assert_no_sideways_scroll(page)

    squares = boxes(page, "#board .sq")
    assert len(squares) == 225
    small = [s for s in squares if min(s["width"], s["height"]) < SQUARE_PX]
    assert not small, f"{len(small)} squares under {SQUARE_PX} px, e.g. {small[:2]}"
    tiles = boxes(page, "#hand .hand-tile")
    assert len(tiles) == 12
    small = [t for t in tiles if min(t["width"], t["height"]) < TILE_PX]
    assert not small, f"hand tiles under {TILE_PX} px: {small}"
    buttons = boxes(page, "#move-form .move-actions .button, .hand-tools .button")
    small = [b for b in buttons if min(b["width"], b["height"]) < SQUARE_PX]
    assert not small, f"buttons under {SQUARE_PX} px: {small}"

    # Zoom makes the squares larger; the board then scrolls inside its frame, not the page.
    page.locator("#zoom-board").tap()
    assert min(s["width"] for s in boxes(page, "#board .sq")) >= 40
    assert_no_sideways_scroll(page)
    page.locator("#zoom-board").tap()

    # A move by tapping with a finger: a tile, then a square.
    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        pages.tap(page, letter, name)
    pages.expect_preview_ok(page, "CHAT")
    page.locator("#play-button").tap()
    pages.expect_version(page, 1)
    expect(pages.square(page, "K8")).to_have_attribute("data-letter", "T")
    assert_no_sideways_scroll(page)
    game.refresh_from_db()
    assert list(game.moves.values_list("notation", flat=True)) == ["H8→ CHAT"]


def test_on_a_phone_a_finger_drags_tiles_from_the_hand_onto_the_board_and_plays(
    browse, game
) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto(f"/parties/{game.pk}/")
    # A drag that the browser takes for a scroll, or cancels, moves the page or drops nothing.
    page.evaluate(
        "window.cancelled = 0;"
        " document.addEventListener('pointercancel', () => { window.cancelled += 1; }, true)"
    )
    for letter, name in zip("CHAT", ("H8", "I8", "J8", "K8"), strict=True):
        # A tile under the move bar is first brought into view, as a person would.
        pages.hand_tile(page, letter).scroll_into_view_if_needed()
        scrolled = page.evaluate("window.scrollY")
        pages.touch_drag(page, letter, name)
        expect(pages.square(page, name).locator(".board-tile.is-pending")).to_have_text(
            re.compile(f"^{letter}")
        )
        assert page.evaluate("window.scrollY") == scrolled, f"dragging {letter} scrolled the page"
    assert page.evaluate("window.cancelled") == 0, "the browser cancelled a drag"
    expect(page.locator("#hand .hand-tile.is-placed")).to_have_count(4)
    pages.expect_preview_ok(page, "CHAT")
    page.locator("#play-button").tap()
    pages.expect_version(page, 1)
    expect(pages.square(page, "K8")).to_have_attribute("data-letter", "T")
    game.refresh_from_db()
    assert list(game.moves.values_list("notation", flat=True)) == ["H8→ CHAT"]


def test_on_a_phone_the_lobby_and_a_finished_game_fit_the_width_with_every_button_in_reach(
    browse, game
) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto("/parties/")
    assert_no_sideways_scroll(page)
    join = page.locator("table.tables button", has_text="Rejoindre")
    expect(join).to_have_count(1)
    box = join.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, f"Join is off screen: {box}"
    page.goto(f"/parties/{game.pk}/")
    page.locator(".resign-form summary").tap()
    page.locator(".resign-form button[type=submit]").tap()
    expect(pages.area(page)).to_have_attribute("data-over", "true")
    assert_no_sideways_scroll(page)


def test_on_a_phone_the_header_is_one_line_and_the_whole_board_is_on_the_first_screen(
    browse, game
) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto(f"/parties/{game.pk}/")
    header = page.locator(".site-header").bounding_box()
    assert header["height"] <= HEADER_PX, f"the header is {header['height']} px tall"
    board = page.locator("#board").bounding_box()
    assert board["y"] > 0 and board["y"] + board["height"] <= SCREEN_PX, f"board at {board}"
    assert_no_sideways_scroll(page)

    # The language switch stays in that line; the links wait in the menu.
    english = page.get_by_role("button", name="English")
    expect(english).to_be_visible()
    assert english.bounding_box()["y"] + english.bounding_box()["height"] <= header["height"]
    names = ("Salon", "Mes parties", "Classement", "Vérifier un mot", "Ma page", "Réglages")
    links = [page.locator(".site-header").get_by_role("link", name=name) for name in names]
    logout = page.get_by_role("button", name="Se déconnecter")
    for hidden in (*links, logout):
        expect(hidden).to_be_hidden()

    # By keyboard: the menu opens with Enter, Tab walks every link, Escape folds it back.
    page.locator(".brand").focus()
    page.keyboard.press("Tab")
    menu = page.locator(".menu-toggle")
    expect(menu).to_be_focused()
    page.keyboard.press("Enter")
    for link in links:
        page.keyboard.press("Tab")
        expect(link).to_be_focused()
        box = link.bounding_box()
        assert box["height"] >= TILE_PX and box["x"] + box["width"] <= 390, box
    page.keyboard.press("Tab")
    expect(logout).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_be_focused()
    expect(links[0]).to_be_hidden()

    # By finger: the menu opens over the page and its links lead where they say.
    menu.tap()
    links[2].tap()
    expect(page).to_have_url(re.compile(r"/classement/"))


def uncovered(page, selector: str) -> bool:
    """Whether the middle of ``selector``'s element, scrolled into view, is the element itself."""
    return page.locator(selector).first.evaluate(
        "el => { el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();"
        " const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        " return el === hit || el.contains(hit); }"
    )


def test_on_a_phone_the_open_menu_folds_when_the_focus_or_a_tap_goes_elsewhere(
    browse, game
) -> None:
    page = browse(seat_at(game, 0).player, phone=True)
    page.goto("/parties/")
    menu = page.locator(".menu-toggle")
    first = page.locator(".site-header").get_by_role("link", name="Salon")
    logout = page.get_by_role("button", name="Se déconnecter")
    english = page.get_by_role("button", name="English")

    # Tab past the menu's last item: the next control is not left under the open menu.
    menu.focus()
    page.keyboard.press("Enter")
    expect(first).to_be_visible()
    logout.focus()
    page.keyboard.press("Tab")
    expect(english).to_be_focused()
    expect(first).to_be_hidden()
    # Shift+Tab out through its top, from "Menu" back to the brand, folds it too.
    menu.focus()
    page.keyboard.press("Enter")
    expect(first).to_be_visible()
    page.keyboard.press("Shift+Tab")
    expect(page.locator(".brand")).to_be_focused()
    expect(first).to_be_hidden()

    # A tap anywhere else on the page folds it.
    menu.tap()
    expect(first).to_be_visible()
    page.touchscreen.tap(195, SCREEN_PX - 20)
    expect(first).to_be_hidden()
    assert uncovered(page, "h1")


def test_without_javascript_the_phone_header_keeps_every_link_in_view(new_context, site) -> None:
    page = new_context(**PHONE, java_script_enabled=False).new_page()
    page.goto("/parties/")
    header = page.locator(".site-header")
    for name in ("Salon", "Classement", "Vérifier un mot", "Connexion", "S’inscrire"):
        expect(header.get_by_role("link", name=name)).to_be_visible()
    expect(header.get_by_role("button", name="English")).to_be_visible()
    assert_no_sideways_scroll(page)
    # Nothing folds the menu without JavaScript: it lies in the page's flow, not over it.
    assert uncovered(page, "h1")


def test_without_javascript_a_phone_sees_the_messages_and_the_title_below_the_menu(
    new_context, site, transactional_db
) -> None:
    context = new_context(**PHONE, java_script_enabled=False)
    client = Client()
    client.force_login(make_player("alice"))
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": site}])
    page = context.new_page()
    page.goto("/parties/a-moi/")  # no game waits for her: "my games" says so
    message = page.locator(".messages li")
    expect(message).to_have_text(
        "Aucune partie n’attend votre coup\u00a0: voici toutes vos parties."
    )
    for selector in (".messages li", "h1"):
        assert uncovered(page, selector), f"{selector} is under the menu"
    assert_no_sideways_scroll(page)
