"""A computer's turn is one task: with a worker one message per turn; eagerly a bounded few per request.

On the embedded default (eager tasks) a person resigning among computers used
to let them play the whole game inside that one request. Now the request plays
at most ``DIAMINO_COMPUTER_TURNS_PER_REQUEST`` turns; the game page's next
views (its poll) and the sweep play the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import audit, computer, services, tasks
from games.models import Game, Move
from infra.celery import app as celery_app
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def client_for(user: User) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(user)
    return client


def computer_moves(game: Game) -> int:
    """How many moves the computers have played in ``game``, as its history holds them."""
    return Move.objects.filter(game=game, seat__player__bot_level__gt="").count()


def among_two_computers(person: User, mode: str = "sans-marque") -> Game:
    """A running game (sans marque: it ends sooner): ``person`` and two computer players."""
    game = services.game_create(creator=person, mode=mode, seats=3)
    services.game_seat_computer(game_id=game.pk, by=person, level="debutant")
    services.game_seat_computer(game_id=game.pk, by=person, level="confirme")
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    return game


def later() -> Any:
    """A moment when every computer turn waiting now is late for the sweep."""
    return timezone.now() + computer.COMPUTER_TURN_LATE + timedelta(seconds=1)


# --- eagerly (the embedded default): a bounded few turns per request -----------------


@pytest.mark.django_db(transaction=True)
def test_resigning_among_two_computers_plays_at_most_the_bound_in_that_request() -> None:
    # Real commits: each computer's move commits and gives the next computer its turn.
    alice = make_player("alice")
    # Avec marque: nobody goes out while the reserve lasts, so the game is still
    # running after the turns counted here (sans marque, a computer may go out).
    game = among_two_computers(alice, mode="marque")
    game.refresh_from_db()
    assert game.to_move is not None and game.to_move.player == alice  # they answered at once
    before = computer_moves(game)
    client = client_for(alice)

    response = client.post(reverse("games:resign", args=[game.pk]), HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    game.refresh_from_db()
    bound = settings.DIAMINO_COMPUTER_TURNS_PER_REQUEST
    assert computer_moves(game) - before == bound  # and not the whole game
    assert game.status == Game.Status.RUNNING
    assert game.to_move is not None and game.to_move.player.is_computer
    html = response.content.decode()
    assert f'data-version="{game.move_count}"' in html  # the answer shows those turns
    assert f"?since={game.move_count}" in html  # and polls for the next ones

    # The page's poll plays on, a bounded few turns at a time, and shows them.
    version = game.move_count
    polled = client.get(
        reverse("games:page", args=[game.pk]), {"since": version}, HTTP_HX_REQUEST="true"
    )
    game.refresh_from_db()
    assert polled.status_code == 200
    assert 0 < game.move_count - version <= bound
    assert f'data-version="{game.move_count}"' in polled.content.decode()


@pytest.mark.django_db(transaction=True)
def test_computers_left_alone_are_played_to_the_end_by_the_sweep_each_turn_once() -> None:
    alice = make_player("alice")
    game = among_two_computers(alice)
    services.game_resign(game_id=game.pk, player=alice)
    bound = settings.DIAMINO_COMPUTER_TURNS_PER_REQUEST
    for _ in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        version = game.move_count
        assert computer.computer_turns_requeue() == 0  # its turn was given just now
        assert computer.computer_turns_requeue(now=later()) == 1
        game.refresh_from_db()
        assert 0 < game.move_count - version <= bound
    assert game.status == Game.Status.FINISHED
    numbers = list(game.moves.order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, game.move_count + 1))  # no turn played twice
    assert audit.game_check(game) == []


def test_a_late_computer_task_after_the_turn_was_played_plays_nothing(alice) -> None:
    game = among_two_computers(alice)
    services.game_resign(game_id=game.pk, player=alice)
    game.refresh_from_db()
    version = game.move_count
    assert computer.computer_turn_play(game_id=game.pk, version=version) is not None
    # A second message for that turn (the sweep's, a page's poll): the game has moved on.
    assert tasks.computer_move(game.pk, version) is False
    game.refresh_from_db()
    assert game.move_count == version + 1


# --- with a worker: one task per turn, and the page plays none ----------------------


@pytest.fixture
def sent(monkeypatch) -> Iterator[list[tuple[tuple, dict]]]:
    """Tasks run by a worker, not eagerly: each computer-turn message sent is kept here."""
    messages: list[tuple[tuple, dict]] = []

    def apply_async(args: Any = None, kwargs: Any = None, **options: Any) -> None:
        messages.append((tuple(args), options))

    monkeypatch.setattr(tasks.computer_move, "apply_async", apply_async)
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield messages
    finally:
        celery_app.conf.task_always_eager = eager


def test_with_a_worker_each_computer_turn_is_one_task_that_queues_the_next(
    alice, committed, sent
) -> None:
    with committed():
        game = among_two_computers(alice)
    while sent:  # the worker plays the computers' turns until alice is to move
        (args, _options) = sent.pop(0)
        with committed():
            tasks.computer_move(*args)
    game.refresh_from_db()
    assert game.to_move is not None and game.to_move.player == alice

    with committed():
        client_for(alice).post(reverse("games:resign", args=[game.pk]), HTTP_HX_REQUEST="true")
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    before = computer_moves(game)
    # The request queued the next computer's turn and played none.
    assert [args for args, _options in sent] == [(game.pk, game.move_count)]
    assert sent[0][1]["countdown"] == settings.DIAMINO_BOT_DELAY_SECONDS

    # The page asks nothing of a computer to move: the worker's message is on its way.
    client_for(alice).get(reverse("games:page", args=[game.pk]))
    assert computer_moves(game) == before

    # Each task: one turn, and one message for the next while the game runs. The
    # computers play it to its end: a sans-marque deal of 32 tiles each goes out in
    # a few turns, sooner for a computer that already played before alice resigned.
    played = 0
    while sent:
        (args, _options) = sent.pop(0)
        with committed():
            assert tasks.computer_move(*args) is True
        played += 1
        game.refresh_from_db()
        assert computer_moves(game) == before + played
        if game.status == Game.Status.RUNNING:
            assert [args for args, _options in sent] == [(game.pk, game.move_count)]
        assert played < 200
    # The turn that ended the game queued none; the turns before it each queued the next.
    assert game.status == Game.Status.FINISHED
    assert played > 1
