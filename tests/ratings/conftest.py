"""Finished games for the leaderboard and rating tests.

Two ways to get one: ``finish`` writes a finished game's rows by hand (any
scores, ranks and dates, as the games service would have saved them) and
sends ``game_finished`` as the service does; ``play_to_the_end`` plays a real
game through ``games.services`` (resignations, then passes until blocked).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest
from django.db import transaction
from django.utils import timezone

import rules
from accounts.models import User
from games import services as game_services
from games.models import Game, Seat
from games.signals import game_finished
from tests.factories import make_player

# Each seat of a hand-built game: (player, score, rank); rank 1 wins.
Result = tuple[User, int, int]

BASE = timezone.make_aware(datetime(2026, 3, 2, 12, 0))


@pytest.fixture(autouse=True)
def in_english(settings) -> None:
    """Pages in English whoever asks, so assertions on text survive the French catalogue."""
    settings.LANGUAGE_CODE = "en"


def player(username: str, **fields) -> User:
    return make_player(username, language="en", **fields)


@pytest.fixture
def players(db) -> list[User]:
    return [player(name) for name in ("alice", "bob", "carol", "dave", "erin")]


@pytest.fixture
def staff(db) -> User:
    return player("modo", is_staff=True)


def finish(
    results: Sequence[Result],
    *,
    mode: str = "marque",
    when: datetime | None = None,
    left: Sequence[User] = (),
    rated: bool = True,
) -> Game:
    """A finished game with ``results``; players in ``left`` resigned (R-END-4).

    The winners are the seats ranked 1, as the engine would say. ``rated`` is
    off for a friendly game or one with a computer player seated, as the games
    service would have left it.
    """
    when = when or timezone.now()
    with transaction.atomic():
        game = Game.objects.create(
            mode=mode,
            word_list="fr-1",
            seats_wanted=len(results),
            status=Game.Status.FINISHED,
            creator=results[0][0],
            started_at=when - timedelta(days=3),
            finished_at=when,
            end=Game.End.BLOCKED,
            rated=rated,
        )
        for position, (player, score, rank) in enumerate(results):
            Seat.objects.create(
                game=game,
                player=player,
                position=position,
                score=score,
                rank=rank,
                is_winner=rank == 1,
                status=Seat.Status.RESIGNED if player in left else Seat.Status.ACTIVE,
            )
        game_finished.send(sender=Game, game=game)
    return game


def start_game(players: Sequence[User], *, mode: str = "marque", seed: int = 1) -> Game:
    game = game_services.game_create(creator=players[0], mode=mode, seats=len(players))
    for player in players[1:]:
        game_services.game_join(game_id=game.pk, player=player)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    return game


def play_to_the_end(game: Game, *, resign: Sequence[User] = ()) -> Game:
    """Resign ``resign`` in that order, then every player left passes: the game ends."""
    for player in resign:
        game.refresh_from_db()
        if game.status == Game.Status.RUNNING:
            game_services.game_resign(game_id=game.pk, player=player)
    game.refresh_from_db()
    while game.status == Game.Status.RUNNING:
        assert game.to_move is not None
        game_services.move_submit(
            game_id=game.pk,
            player=game.to_move.player,
            version=game.move_count,
            move=rules.Pass(0),
        )
        game.refresh_from_db()
    return game
