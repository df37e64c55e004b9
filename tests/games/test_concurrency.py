"""Races settled by PostgreSQL row locks: one move per turn; a vacation or a day given
against a time-out; one day for two gifts from pages alike; one booking for two tabs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.db import connection, connections, transaction

import rules
from accounts import vacations
from accounts.models import Vacation
from accounts.vacations import VacationRefused, vacation_start
from games import clock, deadlines, services
from games.errors import GameError
from games.models import Game
from notifications.models import Notification
from tests.games.conftest import rig, seat_at, start_game
from tests.notifications.conftest import new_game, play_chat
from tests.site.processes import python_start

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


def while_held(hold: Callable[[], object], then: Callable[[], object]) -> tuple[object, bool]:
    """Run ``hold`` in a transaction kept open a second, and ``then`` meanwhile, in two threads.

    Returns what ``then`` returned, and whether it finished only after ``hold``
    committed (it waited for a row ``hold`` had locked).
    """
    held = threading.Event()
    found: dict[str, Any] = {}

    def first() -> None:
        with transaction.atomic():
            hold()
            held.set()
            time.sleep(1)  # not committed yet
            found["committed at"] = time.monotonic()

    def second() -> None:
        held.wait(timeout=10)
        found["result"] = then()
        found["done at"] = time.monotonic()

    run_together(first, second)
    return found["result"], found["done at"] >= found["committed at"]


def test_a_time_out_waits_for_a_vacation_being_booked_and_counts_it(alice, bob) -> None:
    game = start_game([alice, bob])
    player = seat_at(game, 0).player
    deadline = clock.deadline_of(game)
    assert deadline is not None
    timeouts, waited = while_held(
        lambda: vacation_start(user=player, days=2, now=deadline - timedelta(hours=1)),
        lambda: deadlines.apply_timeouts(now=deadline + timedelta(minutes=1)),
    )
    # The clock waited for the game's row, then read the vacation: no time-out.
    assert (timeouts, waited) == (0, True)
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING
    assert Vacation.objects.filter(user=player).count() == 1


def test_a_vacation_waits_for_a_time_out_being_applied_and_finds_the_turn_gone(alice, bob) -> None:
    game = start_game([alice, bob])
    seat = seat_at(game, 0)
    deadline = clock.deadline_of(game)
    assert deadline is not None

    def book() -> str:
        try:
            vacation_start(user=seat.player, days=2, now=deadline + timedelta(minutes=2))
        except VacationRefused as refusal:
            return refusal.code
        return "booked"

    vacation, waited = while_held(
        lambda: services.game_timeout(game_id=game.pk, seat_id=seat.pk), book
    )
    assert vacation == "booked"  # the late turn had gone: nothing left to refuse
    assert waited  # for the game's row
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED


# --- a day given against another gift and against a time-out (games/services/time_given.py) ---------------------


def give_a_day(game: Game, giver) -> str:
    """A gift from a page showing the game as it started: "given", or the refusal's code."""
    try:
        services.time_give(game_id=game.pk, giver=giver, version=0, extra_days=0)
    except GameError as exc:
        return exc.code
    return "given"


def test_two_bookings_of_the_same_days_ahead_at_once_book_one(alice, bob) -> None:
    """Two tabs booking overlapping days: the player's row lock makes the second see the first."""
    game = start_game([alice, bob])
    player = seat_at(game, 0).player
    first_day = vacations.local_today(player) + timedelta(days=3)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def book(days: int) -> Callable[[], None]:
        def run() -> None:
            barrier.wait(timeout=10)
            try:
                vacation_start(user=player, days=days, first_day=first_day)
                outcomes.append("booked")
            except VacationRefused as refusal:
                outcomes.append(refusal.code)

        return run

    run_together(book(2), book(3))
    assert sorted(outcomes) == ["booked", "overlap"]
    assert Vacation.objects.filter(user=player).count() == 1


def test_a_time_out_waits_for_a_vacation_booked_ahead_and_counts_it(alice, bob) -> None:
    """A vacation booked ahead locks the player's turns too (accounts/vacations.py)."""
    game = start_game([alice, bob])
    player = seat_at(game, 0).player
    deadline = clock.deadline_of(game)
    assert deadline is not None
    first_day = vacations.local_today(player) + timedelta(days=1)
    timeouts, waited = while_held(
        lambda: vacation_start(user=player, days=5, first_day=first_day),
        lambda: deadlines.apply_timeouts(now=deadline + timedelta(minutes=1)),
    )
    assert (timeouts, waited) == (0, True)
    assert clock.deadline_of(Game.objects.get(pk=game.pk)) == deadline + timedelta(days=5)


def test_two_players_giving_a_day_at_once_from_pages_alike_give_one(alice, bob, carol) -> None:
    game = start_game([alice, bob, carol])
    givers = [seat_at(game, 1).player, seat_at(game, 2).player]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def give(giver):
        def run() -> None:
            barrier.wait(timeout=10)
            outcomes.append(give_a_day(game, giver))

        return run

    run_together(give(givers[0]), give(givers[1]))
    assert sorted(outcomes) == ["given", "moved-on"]
    game = Game.objects.get(pk=game.pk)
    assert game.turn_extra_days == 1 and len(game.time_gifts) == 1
    assert Notification.objects.filter(kind="time-gift").count() == 1


def test_a_time_out_waits_for_a_day_being_given_and_counts_it(alice, bob) -> None:
    game = start_game([alice, bob])
    deadline = clock.deadline_of(game)
    assert deadline is not None
    timeouts, waited = while_held(
        lambda: give_a_day(game, seat_at(game, 1).player),
        lambda: deadlines.apply_timeouts(now=deadline + timedelta(minutes=1)),
    )
    assert (timeouts, waited) == (0, True)  # it waited for the game's row, then counted the day
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.RUNNING and clock.deadline_of(game) == deadline + clock.DAY


def test_a_day_given_while_a_time_out_is_applied_finds_the_game_over(alice, bob) -> None:
    game = start_game([alice, bob])
    seat = seat_at(game, 0)
    gift, waited = while_held(
        lambda: services.game_timeout(game_id=game.pk, seat_id=seat.pk),
        lambda: give_a_day(game, seat_at(game, 1).player),
    )
    assert (gift, waited) == ("not-running", True)
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED and game.turn_extra_days == 0


# --- a queued move and the previous player's move (issue #36) ------------------------------


def _queued_race_game(alice, bob):
    """Alice (position 0) played CHAT; Bob is to move, and Alice queues CHATS meanwhile."""
    game = new_game([alice, bob])
    play_chat(game)
    return game


def _queue(game) -> object:
    try:
        return services.queued_move_set(
            game_id=game.pk,
            player=seat_at(game, 0).player,
            version=1,
            move=rules.Place(0, (("L8", "S"),)),
        )
    except GameError as refused:
        return refused.code


def _pass(game) -> object:
    return services.move_submit(
        game_id=game.pk, player=seat_at(game, 1).player, version=1, move=rules.Pass(1)
    )


def test_a_queued_move_racing_the_previous_move_is_played_once_or_refused(alice, bob) -> None:
    """From two connections at once: either the queue came first and the pass plays it,
    or the pass came first and the queue is refused (the page moved on). Never both,
    never twice, and nothing is left queued."""
    from games.models import QueuedMove

    assert connection.vendor == "postgresql"
    game = _queued_race_game(alice, bob)
    barrier = threading.Barrier(2)
    found: dict[str, object] = {}

    def both(name, work):
        def run() -> None:
            barrier.wait(timeout=10)
            found[name] = work(game)

        return run

    run_together(both("queue", _queue), both("pass", _pass))
    game = Game.objects.get(pk=game.pk)
    mine = game.moves.filter(seat__position=0, number__gt=1)
    if found["queue"] == "moved-on":
        assert game.move_count == 2 and not mine.exists()
    else:
        assert game.move_count == 3 and list(mine.values_list("words", flat=True)) == [["CHATS"]]
    assert not QueuedMove.objects.exists()


def test_the_previous_move_waits_for_a_queue_being_written_and_plays_it(alice, bob) -> None:
    game = _queued_race_game(alice, bob)
    _played, waited = while_held(lambda: _queue(game), lambda: _pass(game))
    assert waited
    game = Game.objects.get(pk=game.pk)
    assert game.move_count == 3 and game.moves.get(number=3).words == ["CHATS"]


def test_a_queue_waits_for_the_previous_move_and_is_refused_as_moved_on(alice, bob) -> None:
    game = _queued_race_game(alice, bob)
    refused, waited = while_held(lambda: _pass(game), lambda: _queue(game))
    assert (refused, waited) == ("moved-on", True)
    assert Game.objects.get(pk=game.pk).move_count == 2


# The same race between two processes, as between two web workers. Each connects and
# says it is ready; the test holds the game's row and lets them go: both wait on the
# row's lock (PostgreSQL says so), then the test lets go of it and they race for real.
RACER = """
import pathlib, time
import rules
from accounts.models import User
from games import services
from games.errors import GameError
game_id, player_id, what, go = {game_id}, {player_id}, {what!r}, pathlib.Path({go!r})
player = User.objects.get(pk=player_id)
print("ready", flush=True)
deadline = time.monotonic() + 60
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.001)
try:
    if what == "queue":
        move = rules.Place(0, (("L8", "S"),))
        services.queued_move_set(game_id=game_id, player=player, version=1, move=move)
    else:
        services.move_submit(game_id=game_id, player=player, version=1, move=rules.Pass(1))
    print("done", flush=True)
except GameError as refused:
    print(refused.code, flush=True)
"""


def waiting_on_a_lock() -> int:
    """How many other connections to this database wait on a lock now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_a_queued_move_racing_the_previous_move_from_two_processes_plays_once(
    alice, bob, tmp_path
) -> None:
    from games.models import QueuedMove

    game = _queued_race_game(alice, bob)
    db = connection.settings_dict
    login = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    host = db["HOST"] or "localhost"
    port = f":{db['PORT']}" if db["PORT"] else ""
    env = {
        "DATABASE_URL": f"postgres://{login}@{host}{port}/{db['NAME']}",
        "DIAMINO_DATA_DIR": str(tmp_path),
    }
    go = tmp_path / "go"
    racers = {}
    try:
        for what, position in (("queue", 0), ("pass", 1)):
            player = seat_at(game, position).player
            script = RACER.format(game_id=game.pk, player_id=player.pk, what=what, go=str(go))
            racers[what] = python_start(script, env)
        for racer in racers.values():
            assert racer.stdout is not None and racer.stdout.readline().strip() == "ready"
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=game.pk)
            go.touch()
            deadline = time.monotonic() + 30
            while waiting_on_a_lock() < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert waiting_on_a_lock() == 2, "the two processes did not both wait on the game"
        found = {}
        for what, racer in racers.items():
            out, err = racer.communicate(timeout=60)
            assert racer.returncode == 0, err
            found[what] = out.split()[-1]  # the last line: what the service answered
    finally:
        for racer in racers.values():
            if racer.poll() is None:
                racer.kill()
                racer.wait()
    game = Game.objects.get(pk=game.pk)
    mine = game.moves.filter(seat__position=0, number__gt=1)
    assert found["pass"] == "done"
    if found["queue"] == "moved-on":
        assert game.move_count == 2 and not mine.exists()
    else:
        assert found["queue"] == "done"
        assert game.move_count == 3 and list(mine.values_list("words", flat=True)) == [["CHATS"]]
    assert not QueuedMove.objects.exists()
