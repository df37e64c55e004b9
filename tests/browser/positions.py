"""Positions for the rule matrix, set up through the services, and what a player reads off a page.

A rule is played on the page from a position where the path to it does not
matter: the earlier moves are played through ``games.services`` (the same
door the page uses), and where a position needs what a game would take long
to reach (an empty reserve, say), ``set_hands`` writes the hands and the
reserve of the position reached. Then what a player does on the page (lay a
word by tap, drag or keyboard) and reads off it: text on the page, never the
database. ``rule`` names the RULES.md ids a test plays.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import rules
from accounts.models import User
from games import bridge, services
from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

if TYPE_CHECKING:
    from playwright.sync_api import Page

NAMES = ("alice", "bob", "carol", "dave")


def rule(*ids: str) -> Callable:
    """Name the RULES.md ids a test plays (read by the matrix's coverage test)."""

    def mark(test: Callable) -> Callable:
        setattr(test, "rules", ids)  # noqa: B010 (a function's attribute)
        return test

    return mark


def table(hands: Sequence[str], *, mode: str = "marque") -> tuple[Game, list[User]]:
    """A running game dealt ``hands`` (by position), and its players in play order."""
    game = start_game([make_player(name) for name in NAMES[: len(hands)]], mode=mode)
    rig(game, hands)
    return game, [seat_at(game, n).player for n in range(len(hands))]


def played(game: Game, *notations: str, rng: random.Random | None = None) -> Game:
    """Play each move (``H8→ CHAT``, ``Passe``) through the services, by the player to move.

    ``rng`` draws the tiles that refill a hand (the services' own, at random, if None).
    """
    for notation in notations:
        game.refresh_from_db()
        state = bridge.state_of(game)
        move = rules.notation_to_move(notation, state, state.turn)
        services.move_submit(
            game_id=game.pk,
            player=seat_at(game, state.turn).player,
            version=game.move_count,
            move=move,
            rng=rng,
        )
    game.refresh_from_db()
    return game


def set_hands(game: Game, hands: Sequence[str], *, reserve: str | None = None) -> Game:
    """Give the position reached these ``hands`` (by position) and, if told, this ``reserve``.

    Tiles leave or join the game: only the page is tested from here on, not
    the game's record (the deal and the moves no longer lead to this state).
    """
    game.refresh_from_db()
    state = bridge.state_of(game)
    state = replace(
        state,
        hands=tuple(tuple(hand) for hand in hands),
        reserve=state.reserve if reserve is None else tuple(reserve),
    )
    game.state = rules.state_to_dict(state)
    game.save(update_fields=["state"])
    for seat in game.seats.all():
        assert seat.position is not None
        seat.hand = hands[seat.position]
        seat.save(update_fields=["hand"])
    return game


def value(game: Game, tiles: str) -> int:
    return bridge.config_of(game).tiles.value_of(tuple(tiles))


# --- what the player does ---------------------------------------------------------


def preview(page):
    return page.locator("#preview")


def expect_refused(page, rule_id: str, *words: str) -> None:
    """The preview says why, with a link to the rule; Play stays off."""
    expect(preview(page)).to_have_attribute("data-ok", "false")
    pages.expect_rule_link(page, rule_id)
    for word in words:
        expect(preview(page)).to_contain_text(word)
    expect(page.locator("#play-button")).to_be_disabled()


def expect_places(page, names: list[str]) -> None:
    """The side panel gives each player their final place, ``names`` first to last."""
    for place, name in enumerate(names, start=1):
        expect(seat(page, name)).to_contain_text(re.compile(rf"Place finale\s*{place}"))


def open_pages(browse, game: Game, players, *, phone: bool = False) -> list:
    """Each player's game page; the first player's on a phone if told."""
    # Every player signed in first: the sign-in writes a session from this thread, which
    # the embedded default's shared in-memory SQLite refuses ("database table is
    # locked") while an open page's poll reads the sessions in the live server's.
    result: list[Page] = [
        browse(player, phone=phone and index == 0) for index, player in enumerate(players)
    ]
    for page in result:
        page.goto(f"/parties/{game.pk}/")
    return result


def put(page, way: str, word: str, start: str, *, down: bool = False) -> None:
    """Lay ``word`` from ``start`` on empty squares by tap, mouse drag or keyboard."""
    column, row = start[0], int(start[1:])
    squares = [
        f"{column}{row + k}" if down else f"{chr(ord(column) + k)}{row}" for k in range(len(word))
    ]
    if way == "keyboard":
        pages.tab_to_board(page)
        arrow_to(page, start)
        page.keyboard.press("Enter")
        if down:
            page.keyboard.press("/")
        page.keyboard.type(word)
        return
    for letter, name in zip(word, squares, strict=True):
        (pages.tap if way == "tap" else pages.drag)(page, letter, name)


def arrow_to(page: Page, name: str) -> None:
    """From the board square that has the focus, press the arrows to ``name``."""
    here = page.evaluate("document.activeElement.dataset.square")
    columns = ord(name[0]) - ord(here[0])
    rows = int(name[1:]) - int(here[1:])
    for key, count in (("ArrowRight", columns), ("ArrowLeft", -columns)):
        for _ in range(max(0, count)):
            page.keyboard.press(key)
    for key, count in (("ArrowDown", rows), ("ArrowUp", -rows)):
        for _ in range(max(0, count)):
            page.keyboard.press(key)
    expect(page.locator("#board .sq:focus")).to_have_attribute("data-square", name)


def tab_until(page: Page, selector: str, presses: int = 40) -> None:
    """Press Tab until the element ``selector`` has the focus, as a keyboard user would."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} never had the focus after {presses} Tab presses")


# --- what the player reads --------------------------------------------------------


def number_in(text: str) -> int:
    match = re.search(r"-?\d+", text.replace("\u2212", "-"))
    assert match, f"no number in {text!r}"
    return int(match.group())


def reserve_size(page: Page) -> int:
    """ "80 tuiles dans la réserve"."""
    return number_in(page.locator(".reserve").inner_text())


def hand(page: Page) -> str:
    """The letters of the player's own hand as the page shows them, sorted."""
    return "".join(
        sorted(
            page.locator("#hand .hand-tile").evaluate_all(
                "tiles => tiles.map(tile => tile.querySelector('.tile-letter').textContent.trim())"
            )
        )
    )


def tiles_held(page: Page) -> dict[str, int]:
    """Each player's number of tiles as the side panel shows it (Tiles), by name."""
    return page.locator(".seat-list .seat").evaluate_all(
        """seats => Object.fromEntries(seats.map(seat => [
             seat.querySelector('.seat-name a').textContent.trim(),
             Number(seat.querySelectorAll('.seat-facts dd')[0].textContent),
           ]))"""
    )


def history(page: Page) -> list[str]:
    """The move list's lines, whitespace folded."""
    lines = page.locator(".move-list li").all_inner_texts()
    return [" ".join(line.split()) for line in lines]


def seat(page: Page, name: str):
    return page.locator(".seat-list .seat").filter(has=page.get_by_role("link", name=name))
