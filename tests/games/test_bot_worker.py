"""With real PostgreSQL, Redis and a Celery worker: computer turns and analyses go through it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError

import rules
from games import services, tasks
from games.models import Game
from infra.celery import app
from tests.notifications.test_worker import a_worker, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def empty_queue(settings) -> None:
    settings.DIAMINO_BOT_DELAY_SECONDS = 0
    app.control.purge()  # messages left in this Redis database by earlier runs


def persons_turn(game: Game, person) -> Game:
    """Wait until the computer has answered and the person is to move."""
    seat = game.seats.get(player=person)
    assert wait_for(lambda: Game.objects.filter(pk=game.pk, to_move=seat).exists(), timeout=60), (
        "the computer did not answer through the worker"
    )
    return Game.objects.get(pk=game.pk)


def test_the_computer_answers_through_the_worker_and_the_game_is_then_analysed(alice) -> None:
    with a_worker():
        game = services.game_against_computer(player=alice, mode="marque", level="debutant")
        game = persons_turn(game, alice)
        version = game.move_count
        services.move_submit(game_id=game.pk, player=alice, version=version, move=rules.Pass(0))
        game = persons_turn(game, alice)
        assert game.move_count == version + 2
        services.game_resign(game_id=game.pk, player=alice)
        assert wait_for(
            lambda: Game.objects.filter(pk=game.pk, analysed_at__isnull=False).exists(),
            timeout=60,
        ), "the worker did not analyse the finished game"
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.analysis_queued_at is not None
    assert game.moves.filter(kind="pass", analysis__isnull=False).exists()


def test_a_computer_turn_the_broker_lost_is_played_after_the_sweep(alice, monkeypatch) -> None:
    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to Redis. Connection refused.")

    with monkeypatch.context() as patch:
        patch.setattr(tasks.computer_move, "apply_async", broker_down)
        game = services.game_against_computer(player=alice, mode="marque", level="debutant")
        assert game.to_move is not None
        if game.to_move.player == alice:
            services.move_submit(
                game_id=game.pk, player=alice, version=game.move_count, move=rules.Pass(0)
            )
    game.refresh_from_db()
    version = game.move_count
    assert game.to_move is not None
    assert game.to_move.player.is_computer  # its turn was never queued
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(minutes=2))
    with a_worker():
        assert tasks.computer_sweep.apply().get() == 1
        assert wait_for(lambda: Game.objects.get(pk=game.pk).move_count == version + 1, timeout=60)
