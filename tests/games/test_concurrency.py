"""Two submissions of the same turn at once play exactly one move (PostgreSQL row lock)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

import rules
from games import services
from games.errors import GameError
from games.models import Game
from tests.games.conftest import rig, seat_at, start_game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_two_simultaneous_submissions_of_the_same_turn_play_once(alice, bob) -> None:
    assert connection.vendor == "postgresql"
    game = rig(start_game([alice, bob]), ("CHATEAUXSIRN", "LEPOTIERMANU"))
    mover = seat_at(game, 0).player
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def submit() -> None:
        try:
            barrier.wait(timeout=10)
            services.move_submit(
                game_id=game.pk,
                player=mover,
                version=0,
                move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T"))),
            )
            outcomes.append("played")
        except GameError as exc:
            outcomes.append(exc.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["moved-on", "played"]
    game = Game.objects.get(pk=game.pk)
    assert game.move_count == 1 and game.moves.count() == 1
