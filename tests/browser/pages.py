"""What a player does on the pages, in Playwright terms: tap, drag, type, play.

Each helper acts like a person on one player's page and waits for what that
person would wait for (the preview, the new position), never for a fixed time.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.core import mail

try:
    from playwright.sync_api import expect
except ImportError:  # the browser tests skip (or fail in CI) with the reason
    expect = None  # type: ignore[assignment]  # Playwright missing: no browser test runs

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

PASSWORD = "tuile-verte-1964"
# The waiting page asks every second in the tests; allow for a busy machine.
POLL_TIMEOUT_MS = 8_000


# --- any page ----------------------------------------------------------------------


def assert_no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide on a {width[1]} px screen"


def tab_through(page: Page, *controls: Locator) -> None:
    """Press Tab once per control: each takes the focus in turn."""
    for control in controls:
        page.keyboard.press("Tab")
        expect(control).to_be_focused()


# --- accounts ---------------------------------------------------------------------


def wait_until(page: Page, predicate: str, timeout_ms: int = 10_000) -> None:
    """Poll ``predicate`` (a JS function) from the test until it is true.

    Not ``page.wait_for_function``: its in-page polling compiles the predicate
    with ``eval``, which the site's Content-Security-Policy refuses (and the
    CSP guard of conftest.py would report it as the site's violation). A page
    that navigates while asked (what some callers wait for) is asked again.
    """
    from playwright.sync_api import Error

    for _ in range(max(1, timeout_ms // 100)):
        try:
            if page.evaluate(predicate):
                return
        except Error as exc:  # the page navigated while asked: ask the new one
            if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                raise
        page.wait_for_timeout(100)
    raise AssertionError(f"still false after {timeout_ms} ms: {predicate}")


def sign_up(page: Page, username: str) -> None:
    page.goto("/accounts/signup/")
    form = page.locator("form").filter(has=page.locator('input[name="password2"]'))
    form.locator('input[name="username"]').fill(username)
    form.locator('input[name="email"]').fill(f"{username}@example.com")
    form.locator('input[name="password1"]').fill(PASSWORD)
    form.locator('input[name="password2"]').fill(PASSWORD)
    form.locator('button[type="submit"]').click()
    page.wait_for_load_state()


def confirmation_path(username: str) -> str:
    """The path of the confirmation link in the last email sent to ``username``."""
    for message in reversed(mail.outbox):
        if f"{username}@example.com" in message.to:
            assert isinstance(message.body, str)
            match = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+)", message.body)
            assert match, message.body
            return match.group(1)
    raise AssertionError(f"no email to {username}: {[m.to for m in mail.outbox]}")


def confirm_email(page: Page, username: str) -> None:
    """Follow the emailed link and press the page's confirm button."""
    page.goto(confirmation_path(username))
    page.locator("main form").last.locator('button[type="submit"]').click()
    page.wait_for_load_state()


# --- the board --------------------------------------------------------------------


def area(page: Page) -> Locator:
    return page.locator("#game-area")


def version(page: Page) -> int:
    value = area(page).get_attribute("data-version")
    assert value is not None
    return int(value)


def square(page: Page, name: str) -> Locator:
    return page.locator(f'#board [data-square="{name}"]')


def hand_tile(page: Page, letter: str) -> Locator:
    """A tile of the hand not yet on the board (``?`` is a diable)."""
    return page.locator(f'#hand .hand-tile:not(.is-placed)[data-letter="{letter}"]').first


def tap(page: Page, letter: str, name: str) -> None:
    """Tap a tile of the hand, then a square (a click on a desktop)."""
    touch = page.evaluate("navigator.maxTouchPoints > 0")
    for target in (hand_tile(page, letter), square(page, name)):
        target.tap() if touch else target.click()


def drag_ends(page: Page, letter: str, name: str) -> tuple[tuple[float, float], ...]:
    """The middles of a tile of the hand and of a square, both on the screen."""
    tile, target = hand_tile(page, letter), square(page, name)
    tile.scroll_into_view_if_needed()
    start, end = tile.bounding_box(), target.bounding_box()
    assert start is not None and end is not None and page.viewport_size is not None
    height = page.viewport_size["height"]
    # A person drags between two things on the screen at once.
    assert end["y"] >= 0 and end["y"] + end["height"] <= height, f"{name} is off screen"
    return tuple(
        (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2) for box in (start, end)
    )


def drag(page: Page, letter: str, name: str) -> None:
    """Drag a tile of the hand onto a square with the mouse (Pointer events)."""
    (x0, y0), (x1, y1) = drag_ends(page, letter, name)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()


def touch_drag(page: Page, letter: str, name: str) -> None:
    """Drag a tile of the hand onto a square with a finger: real touch input through CDP.

    Playwright's touchscreen only taps; Chromium's ``Input.dispatchTouchEvent`` goes
    through the same path as a finger, so the page may scroll, cancel the pointer or
    take the drag for a fling instead, as it would on a phone. A quick drag: a move
    every 8 ms, a 120 Hz screen, and the finger lifts without a pause.
    """
    (x0, y0), (x1, y1) = drag_ends(page, letter, name)
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
        )
        steps = 10
        for step in range(1, steps + 1):
            page.wait_for_timeout(8)
            point = {"x": x0 + (x1 - x0) * step / steps, "y": y0 + (y1 - y0) * step / steps}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def tab_to_board(page: Page, presses: int = 60) -> None:
    """Press Tab until a board square has the focus, as a keyboard user would."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#board .sq')"):
            return
    raise AssertionError(f"no board square after {presses} Tab presses")


def choose_diable_letter(page: Page, letter: str) -> None:
    dialog = page.locator("#diable-dialog")
    expect(dialog).to_be_visible()
    dialog.locator(f'.letter-choice[value="{letter}"]').click()
    expect(dialog).to_be_hidden()


def expect_rule_link(page: Page, rule_id: str) -> None:
    """A refused move's preview links to the rule it broke, on the rules page.

    The player reads "Voir la règle" / "See the rule", never a bare id: the id
    is the anchor of the rule's paragraph on /regles/.
    """
    link = page.locator("#preview").get_by_role(
        "link", name=re.compile("Voir la règle|See the rule")
    )
    expect(link).to_have_attribute("href", f"/regles/#{rule_id}")
    expect(page.locator("#preview")).not_to_contain_text(rule_id)


def expect_preview_ok(page: Page, *words: str, button: str = "#play-button") -> None:
    """The preview accepts the placement and ``button`` is offered (``#queue-button``:
    "Play when my turn comes", while another player is to move)."""
    preview = page.locator("#preview")
    expect(preview).to_have_attribute("data-ok", "true")
    for word in words:
        expect(preview.locator(".word", has_text=re.compile(f"^{word}$"))).to_have_count(1)
    expect(page.locator(button)).to_be_enabled()


def expect_version(page: Page, number: int, timeout: float | None = None) -> None:
    expect(area(page)).to_have_attribute("data-version", str(number), timeout=timeout)


# Without a worker (the embedded default) the answer to a move against the computer
# comes after the computer's search, and after up to DIAMINO_COMPUTER_TURNS_PER_REQUEST
# of them for a resignation among computers: seconds each on a busy machine (a 40-tile
# hand's search is bounded by DIAMINO_SEARCH_SECONDS), more than the usual wait.
COMPUTER_ANSWER_MS = 30_000


def expect_computer_answer(page: Page, number: int) -> None:
    """The version ``number`` that the move's answer, with the computer's reply, brings."""
    expect_version(page, number, timeout=COMPUTER_ANSWER_MS)


def play(page: Page) -> None:
    """Press Play and wait for the new position."""
    before = version(page)
    page.locator("#play-button").click()
    expect_version(page, before + 1)


def exchange(page: Page, letters: str) -> None:
    before = version(page)
    page.locator("#exchange-button").click()
    for letter in letters:
        tile = page.locator(f'#hand .hand-tile[data-letter="{letter}"][aria-pressed="false"]').first
        tile.click()
    page.locator("#exchange-confirm").click()
    expect_version(page, before + 1)


def pass_turn(page: Page) -> None:
    before = version(page)
    form = page.locator("#move-form")
    form.locator("details.confirm summary").click()
    form.locator('button[name="action"][value="pass"]').click()
    expect_version(page, before + 1)


def hide(page: Page) -> None:
    """The tab goes to the background, as the page sees it: its polls stop (board.js)."""
    page.evaluate(
        """() => {
          Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
          document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )


def show(page: Page) -> None:
    """The tab comes back to the front: the page polls at once."""
    page.evaluate(
        """() => {
          delete document.visibilityState;
          document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )


def wait_for_my_turn(page: Page) -> None:
    expect(area(page)).to_have_attribute("data-my-turn", "true", timeout=POLL_TIMEOUT_MS)


def scores(page: Page) -> dict[str, int]:
    """Each player's score as the side panel shows it (Tiles, then Score), by name."""
    return page.locator(".seat-list .seat").evaluate_all(
        """seats => Object.fromEntries(seats.map(seat => [
             seat.querySelector('.seat-name a').textContent.trim(),
             Number(seat.querySelectorAll('.seat-facts dd')[1].textContent),
           ]))"""
    )
