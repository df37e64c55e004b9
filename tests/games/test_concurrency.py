"""Races settled by PostgreSQL row locks: one move per turn; a vacation against a time-out."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction

import rules
from accounts.models import Vacation
from accounts.vacations import VacationRefused, vacation_start
from games import clock, services
from games.errors import GameError
from games.models import Game
from notifications import periodic
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


# --- a vacation and a time-out decided at the same moment (games/clock.py) ----------------------


def run_together(first, second) -> None:
    """Run ``first`` and ``second`` in two threads (two connections) and wait for both."""

    def wrap(work):
        def run() -> None:
            try:
                work()
            finally:
                connections.close_all()

        return run

    threads = [threading.Thread(target=wrap(work)) for work in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)


def test_a_time_out_waits_for_a_vacation_being_booked_and_counts_it(alice, bob) -> None:
    game = start_game([alice, bob])
    player = seat_at(game, 0).player
    deadline = clock.deadline_of(game)
    booked = threading.Event()
    found: dict[str, object] = {}

    def book() -> None:
        with transaction.atomic():
            vacation_start(user=player, days=2, now=deadline - timedelta(hours=1))
            booked.set()
            time.sleep(1)  # the booking has not committed yet

    def tick() -> None:
        booked.wait(timeout=10)
        found["timeouts"] = periodic.apply_timeouts(now=deadline + timedelta(minutes=1))

    run_together(book, tick)
    # The clock waited for the game's row, then read the vacation: no time-out.
    assert found["timeouts"] == 0
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING
    assert Vacation.objects.filter(user=player).count() == 1


def test_a_vacation_waits_for_a_time_out_being_applied_and_finds_the_turn_gone(alice, bob) -> None:
    game = start_game([alice, bob])
    seat = seat_at(game, 0)
    deadline = clock.deadline_of(game)
    timing_out = threading.Event()
    found: dict[str, object] = {}

    def time_out() -> None:
        with transaction.atomic():
            services.game_timeout(game_id=game.pk, seat_id=seat.pk)
            timing_out.set()
            time.sleep(1)
            found["timed out at"] = time.monotonic()

    def book() -> None:
        timing_out.wait(timeout=10)
        try:
            vacation_start(user=seat.player, days=2, now=deadline + timedelta(minutes=2))
        except VacationRefused as refusal:
            found["vacation"] = refusal.code
        else:
            found["vacation"] = "booked"
        found["booked at"] = time.monotonic()

    run_together(time_out, book)
    assert found["vacation"] == "booked"  # the late turn had gone: nothing left to refuse
    assert found["booked at"] >= found["timed out at"]  # it waited for the game's row
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
