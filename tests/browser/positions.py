"""Positions for the rule matrix, set up through the services, and what a player reads off a page.

A rule is played on the page from a position where the path to it does not
matter: the earlier moves are played through ``games.services`` (the same
door the page uses), and where a position needs what a game would take long
to reach (an empty reserve, say), ``set_hands`` writes the hands and the
reserve of the position reached. The readers below take what the player sees:
text on the page, never the database.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import rules
from accounts.models import User
from games import engine as game_engine
from games import services
from games.models import Game
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

if TYPE_CHECKING:
    from playwright.sync_api import Page

NAMES = ("alice", "bob", "carol")


def table(hands: Sequence[str], *, mode: str = "marque") -> tuple[Game, list[User]]:
    """A running game dealt ``hands`` (by position), and its players in play order."""
    game = start_game([make_player(name) for name in NAMES[: len(hands)]], mode=mode)
    rig(game, hands)
    return game, [seat_at(game, n).player for n in range(len(hands))]


def played(game: Game, *notations: str) -> Game:
    """Play each move (``H8→ CHAT``, ``Passe``) through the services, by the player to move."""
    for notation in notations:
        game.refresh_from_db()
        state = game_engine.state_of(game)
        move = rules.notation_to_move(notation, state, state.turn)
        services.move_submit(
            game_id=game.pk,
            player=seat_at(game, state.turn).player,
            version=game.move_count,
            move=move,
        )
    game.refresh_from_db()
    return game


def set_hands(game: Game, hands: Sequence[str], *, reserve: str | None = None) -> Game:
    """Give the position reached these ``hands`` (by position) and, if told, this ``reserve``.

    Tiles leave or join the game: only the page is tested from here on, not
    the game's record (the deal and the moves no longer lead to this state).
    """
    game.refresh_from_db()
    state = game_engine.state_of(game)
    state = replace(
        state,
        hands=tuple(tuple(hand) for hand in hands),
        reserve=state.reserve if reserve is None else tuple(reserve),
    )
    game.state = rules.state_to_dict(state)
    game.save(update_fields=["state"])
    for seat in game.seats.all():
        seat.hand = hands[seat.position]
        seat.save(update_fields=["hand"])
    return game


def value(game: Game, tiles: str) -> int:
    return game_engine.config_of(game).tiles.value_of(tuple(tiles))


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
