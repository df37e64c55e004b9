"""Photographs of the main pages from a live game, on a desktop and on a phone.

    make screenshots     # = DIAMINO_SCREENSHOTS=1 pytest tests/browser/test_screenshots.py

writes docs/screenshots/{page}-{desktop,phone}.png, which the README shows.
Without DIAMINO_SCREENSHOTS=1 the test still takes every picture (so the
pages it visits keep working) but writes them to a temporary folder.
"""

from __future__ import annotations

import os
import random
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest

import rules
from games import services
from games.models import Game
from tests.browser import pages
from tests.browser.conftest import DESKTOP, PHONE
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
HANDS = ("CHATEAUXESLN", "R?KWIOMPBDLN")
# Legal with HANDS when move n draws with random.Random(n): see moves_so_far().
MOVES = (
    (0, "H8=C,I8=H,J8=A,K8=T,L8=E,M8=A,N8=U,O8=X"),  # CHATEAUX, on the red devil O8
    (1, "J7=R,J9=s"),  # RAS, with a diable as S
    (0, "H9=E,H10=S"),  # CES
    (1, "M7=M,M9=L,M10=I,M11=N"),  # MALIN
    (0, "N11=O,O11=N"),  # NON
)
NEXT_MOVE = (("U", "I9"), ("E", "I10"))  # HUE, and EUS and SE across
TURN_STARTED = datetime(2030, 3, 1, 18, 30, tzinfo=UTC)  # in the future: no time-out


class Stage:
    """The pages to photograph: (name, path or a function of the page that opens it)."""

    def __init__(self) -> None:
        camille = make_player("camille", display_name="Camille")
        hugo = make_player("hugo", display_name="Hugo")
        others = [make_player(name, display_name=name.title()) for name in ("lea", "noe")]
        self.running = play_moves(start_game([camille, hugo], seed=3))
        self.finished = play_moves(start_game([camille, hugo], seed=3))
        to_move = seat_at(self.finished, 1).player
        for number, player in ((5, to_move), (6, seat_at(self.finished, 0).player)):
            services.move_submit(
                game_id=self.finished.pk,
                player=player,
                version=number,
                move=rules.Pass(0),
            )
        # Finished avec-marque games, so the leaderboard has rows (3 games at least each).
        lea, noe = others
        pairs = (
            (camille, lea),
            (camille, noe),
            (hugo, lea),
            (hugo, noe),
            (lea, noe),
            (hugo, camille),
        )
        for k, pair in enumerate(pairs):
            game = play_moves(start_game(list(pair), seed=10 + k))
            services.game_resign(game_id=game.pk, player=seat_at(game, k % 2).player)
        # Open tables for the lobby.
        services.game_create(creator=others[0], mode="sans-marque", seats=5)
        services.game_create(creator=others[1], mode="marque", seats=3)
        services.game_create(creator=others[1], mode="marque", seats=2, invitees=[camille])
        self.viewer = seat_at(self.running, 1).player  # the player to move
        # The same pictures on every run: a fixed deadline rather than "3 days from now".
        Game.objects.filter(pk=self.running.pk).update(turn_started_at=TURN_STARTED)

    def shots(self) -> list[tuple[str, str | Callable]]:
        return [
            ("lobby", "/parties/"),
            ("game", self.game_in_progress),
            ("finished", f"/parties/{self.finished.pk}/"),
            # Lands with the ratings app; until then the page is missing and skipped.
            ("leaderboard", "/classement/"),
        ]

    def game_in_progress(self, page) -> None:
        page.goto(f"/parties/{self.running.pk}/")
        for letter, square in NEXT_MOVE:
            pages.tap(page, letter, square)
        pages.expect_preview_ok(page, "HUE")


def play_moves(game: Game) -> Game:
    rig(game, HANDS)
    players = {seat.position: seat.player for seat in game.seats.select_related("player")}
    for number, (position, placements) in enumerate(MOVES):
        tiles = cast(
            "tuple[tuple[str, str], ...]",  # each item is "square=letter"
            tuple(tuple(item.split("=")) for item in placements.split(",")),
        )
        services.move_submit(
            game_id=game.pk,
            player=players[position],
            version=number,
            move=rules.Place(0, tiles),
            rng=random.Random(number),
        )
    game.refresh_from_db()
    return game


def test_screenshots_of_the_main_pages_on_a_desktop_and_a_phone(
    browse, transactional_db, tmp_path
) -> None:
    folder = DOCS if os.environ.get("DIAMINO_SCREENSHOTS") == "1" else tmp_path
    stage = Stage()
    missing = []
    for device, options in (("desktop", DESKTOP), ("phone", PHONE)):
        page = browse(stage.viewer, phone=options is PHONE)
        for name, target in stage.shots():
            if callable(target):
                target(page)
            else:
                response = page.goto(target)
                if response.status == 404:
                    missing.append(f"{name} ({target})")
                    continue
                assert response.ok, (name, response.status)
            page.evaluate("document.activeElement && document.activeElement.blur()")
            # The first screen as it opens, header included: on a phone it is one line.
            page.screenshot(path=folder / f"{name}-{device}.png", animations="disabled")
    if missing:
        warnings.warn(f"no screenshot of {', '.join(sorted(set(missing)))}: 404", stacklevel=1)
