"""Games that end at the same moment are rated one after the other (PostgreSQL row locks)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from games import services as game_services
from ratings import services
from ratings.models import Rating, RatingChange
from tests.ratings.conftest import player, start_game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_simultaneous_endings_sharing_a_player_are_each_rated_once_and_in_order() -> None:
    assert connection.vendor == "postgresql"
    hub = player("hub")
    rivals = [player(f"rival{i}") for i in range(4)]
    games = [start_game([hub, rival]) for rival in rivals]
    barrier = threading.Barrier(len(games))
    errors: list[BaseException] = []

    def resign(game_id: int, loser) -> None:
        try:
            barrier.wait(timeout=10)
            game_services.game_resign(game_id=game_id, player=loser)
        except BaseException as exc:  # reported below, with the thread's own error
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=resign, args=(game.pk, rival))
        for game, rival in zip(games, rivals, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert RatingChange.objects.filter(player=hub).count() == 4
    assert Rating.objects.get(player=hub, mode="marque").games == 4
    expected = services.fresh_ratings("marque")
    for rating in Rating.objects.filter(mode="marque"):
        assert rating.mu == pytest.approx(expected[rating.player_id].mu, rel=1e-12)
        assert rating.sigma == pytest.approx(expected[rating.player_id].sigma, rel=1e-12)
