"""The clock with travelled time: reminder once, time-out at the deadline, vacation, digest."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import formats, timezone, translation

import rules
from accounts.models import EmailChoice, Vacation
from accounts.vacations import VacationRefused, vacation_cancel, vacation_start
from games import deadlines, selectors, services
from games.errors import GameError
from games.models import Game, Seat
from games.tasks import run_clock, send_digests
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game
from tests.notifications.conftest import new_game, rows

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)
DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
THREE_HANDS = ("CHATEAUXSIRN", "LEPOTIERMANU", "BONJOURASSEZ")


# English readers everywhere here: the French of the newest sentences comes later.
@pytest.fixture
def alice(db):
    return make_player("alice", language="en", time_zone="America/New_York")


@pytest.fixture
def bob(db):
    return make_player("bob", language="en", time_zone="Europe/Paris")


@pytest.fixture
def carol(db):
    return make_player("carol", language="en", time_zone="UTC")


@pytest.fixture
def tick(committed):
    """Run beat's clock task at ``moment``, as the worker would (and commit)."""

    def run(moment: datetime) -> dict[str, int]:
        with time_machine.travel(moment, tick=False), committed():
            return run_clock.delay().get()

    return run


def started_at_t0(players, **kwargs) -> Game:
    with time_machine.travel(T0, tick=False):
        return new_game(players, **kwargs)


def subjects(mailoutbox) -> list[tuple[str, str]]:
    return [(m.to[0], m.subject) for m in mailoutbox]


# --- reminders -------------------------------------------------------------------------


def test_a_reminder_goes_once_a_day_before_the_deadline(alice, bob, tick, mailoutbox) -> None:
    game = started_at_t0([alice, bob])
    first = seat_at(game, 0).player
    assert tick(T0 + 2 * DAY - MINUTE) == {"timeouts": 0, "reminders": 0}
    assert tick(T0 + 2 * DAY + MINUTE) == {"timeouts": 0, "reminders": 1}
    assert tick(T0 + 2 * DAY + 6 * MINUTE) == {"timeouts": 0, "reminders": 0}
    assert tick(T0 + 2 * DAY + 12 * 60 * MINUTE) == {"timeouts": 0, "reminders": 0}
    assert len(mailoutbox) == 1
    (to, subject), message = subjects(mailoutbox)[0], mailoutbox[0]
    assert to == first.email
    assert f" {game.pk} before " in subject  # "Reminder: play in Game N before <date>"
    assert "you run out of time and leave the game" in message.body
    assert "http://127.0.0.1:8000/compte/vacances/" in message.body


def test_a_one_day_game_reminds_halfway_not_at_the_start(alice, bob, tick, mailoutbox) -> None:
    with time_machine.travel(T0, tick=False):
        game = services.game_create(creator=alice, mode="marque", seats=2, days_per_move=1)
        services.game_join(game_id=game.pk, player=bob)
    assert tick(T0 + 11 * 60 * MINUTE)["reminders"] == 0
    assert tick(T0 + 12 * 60 * MINUTE + MINUTE)["reminders"] == 1


def test_the_reminder_email_is_its_own_choice_whatever_the_turn_emails(
    alice, bob, tick, mailoutbox
) -> None:
    game = started_at_t0([alice, bob])
    first = seat_at(game, 0).player
    first.turn_emails = EmailChoice.NEVER  # no turn email, but the reminder is kept (#35)
    first.save()
    tick(T0 + 2 * DAY + MINUTE)
    assert [to for to, _subject in subjects(mailoutbox)] == [first.email]
    first.reminder_emails = False
    first.save()
    with time_machine.travel(T0 + 2 * DAY + 2 * MINUTE, tick=False):
        services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    second = seat_at(game, 1).player
    second.reminder_emails = False
    second.save()
    tick(T0 + 4 * DAY + 3 * MINUTE)
    assert len(mailoutbox) == 1
    assert rows(kind="reminder")[-1] == ("reminder", second.username, "skipped")


def test_a_digest_reader_still_gets_the_reminder(alice, bob, tick, mailoutbox) -> None:
    game = started_at_t0([alice, bob])
    first = seat_at(game, 0).player
    first.turn_emails = EmailChoice.DIGEST
    first.save()
    tick(T0 + 2 * DAY + MINUTE)
    assert [to for to, _subject in subjects(mailoutbox)] == [first.email]


def test_no_reminder_while_the_player_is_on_vacation_but_one_when_back(
    alice, bob, tick, mailoutbox
) -> None:
    game = started_at_t0([alice, bob])
    first = seat_at(game, 0).player
    # In the reminder window, before beat ran, the player leaves for a day (12 h of clock left).
    vacation_start(user=first, days=1, now=T0 + 2 * DAY + 12 * 60 * MINUTE)
    assert tick(T0 + 2 * DAY + 13 * 60 * MINUTE)["reminders"] == 0
    assert tick(T0 + 3 * DAY + 11 * 60 * MINUTE)["reminders"] == 0
    assert tick(T0 + 3 * DAY + 13 * 60 * MINUTE)["reminders"] == 1
    assert len(mailoutbox) == 1


# --- time-outs -------------------------------------------------------------------------


def test_at_the_deadline_the_player_to_move_times_out_and_a_two_player_game_ends(
    alice, bob, tick, mailoutbox
) -> None:
    game = started_at_t0([alice, bob])
    first, second = seat_at(game, 0), seat_at(game, 1)
    assert tick(T0 + 3 * DAY - MINUTE)["timeouts"] == 0
    mailoutbox.clear()  # the reminder
    assert tick(T0 + 3 * DAY + MINUTE)["timeouts"] == 1
    game.refresh_from_db()
    first.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.end == Game.End.LAST_PLAYER
    assert first.status == Seat.Status.TIMED_OUT  # R-END-4
    assert game.moves.get().kind == "timeout"
    second.refresh_from_db()
    assert second.is_winner and second.rank == 1 and first.rank == 2
    # Everyone hears the game is over; nobody twice.
    assert sorted(to for to, _s in subjects(mailoutbox)) == sorted([alice.email, bob.email])
    assert tick(T0 + 3 * DAY + 10 * MINUTE)["timeouts"] == 0
    assert len(mailoutbox) == 2


def test_a_time_out_in_a_three_player_game_skips_the_seat_and_tells_everyone(
    alice, bob, carol, tick, mailoutbox
) -> None:
    game = started_at_t0([alice, bob, carol], hands=THREE_HANDS)
    first, second, third = (seat_at(game, p).player for p in range(3))
    mailoutbox.clear()
    deadline = T0 + 3 * DAY
    assert tick(deadline + MINUTE)["timeouts"] == 1
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert game.to_move == seat_at(game, 1)
    got = dict(subjects(mailoutbox))
    assert set(got) == {first.email, second.email, third.email}
    # alice and carol read English, bob French: the subjects' fixed part is checked in English.
    assert got[second.email].endswith(f"Your turn in game {game.pk}") or got[second.email].endswith(
        f"À vous de jouer dans la partie {game.pk}"
    )
    assert "ran out of time" in got[first.email]
    assert got[third.email].startswith(f"[Diamino] {first} ran out of time")
    turn_email = next(m.body for m in mailoutbox if m.to == [second.email])
    assert f"by {first}: " in turn_email  # the last move shown is the time-out
    # The next player's clock started at the time-out; their time-out leaves one player.
    mailoutbox.clear()
    assert tick(deadline + 3 * DAY - MINUTE)["timeouts"] == 0
    mailoutbox.clear()  # the reminder
    assert tick(deadline + 3 * DAY + 2 * MINUTE)["timeouts"] == 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.end == Game.End.LAST_PLAYER
    assert [s.status for s in game.seats.order_by("position")] == [
        "timed-out",
        "timed-out",
        "active",
    ]
    assert seat_at(game, 2).is_winner
    assert sorted(to for to, _subject in subjects(mailoutbox)) == sorted(
        [first.email, second.email, third.email]
    )
    assert all(  # "Game N is over", "La partie N est terminée"
        subject.endswith((f"Game {game.pk} is over", f"La partie {game.pk} est terminée"))
        for _to, subject in subjects(mailoutbox)
    )


def test_a_move_before_the_deadline_means_no_time_out(alice, bob, tick) -> None:
    game = started_at_t0([alice, bob])
    with time_machine.travel(T0 + 3 * DAY - MINUTE, tick=False):
        services.move_submit(
            game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
        )
    assert tick(T0 + 3 * DAY + MINUTE)["timeouts"] == 0
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.move_count == 1


def test_a_vacation_stops_the_clock_until_it_ends(alice, bob, tick) -> None:
    game = started_at_t0([alice, bob])
    vacation_start(user=seat_at(game, 0).player, days=2, now=T0 + DAY)
    assert tick(T0 + 3 * DAY + MINUTE)["timeouts"] == 0
    assert tick(T0 + 5 * DAY - MINUTE)["timeouts"] == 0
    assert tick(T0 + 5 * DAY + MINUTE)["timeouts"] == 1


def test_one_games_failure_does_not_stop_the_other_time_outs(
    alice, bob, carol, tick, monkeypatch
) -> None:
    with time_machine.travel(T0, tick=False):
        broken = start_game([alice, bob])
        fine = start_game([alice, carol])
    real = services.game_timeout

    def timeout(*, game_id: int, seat_id: int):
        if game_id == broken.pk:
            raise RuntimeError("corrupt game")
        return real(game_id=game_id, seat_id=seat_id)

    monkeypatch.setattr(services, "game_timeout", timeout)
    assert tick(T0 + 3 * DAY + MINUTE)["timeouts"] == 1
    assert Game.objects.get(pk=fine.pk).status == Game.Status.FINISHED
    assert Game.objects.get(pk=broken.pk).status == Game.Status.RUNNING


# --- a deadline that passed before beat ran ------------------------------------------------
# Once the deadline has passed the time-out is certain, whoever touches the game first.


def test_a_vacation_asked_after_the_deadline_is_refused_and_the_time_out_follows(
    alice, bob, tick
) -> None:
    game = started_at_t0([alice, bob])
    late = seat_at(game, 0).player
    with translation.override("en"), pytest.raises(VacationRefused) as refusal:
        vacation_start(user=late, days=7, now=T0 + 3 * DAY + 2 * MINUTE)
    assert refusal.value.code == "out-of-time"
    assert f"Your time to play in game {game.pk} ran out on" in refusal.value.message
    assert not Vacation.objects.filter(user=late).exists()
    assert tick(T0 + 3 * DAY + 5 * MINUTE)["timeouts"] == 1
    assert seat_at(game, 0).status == Seat.Status.TIMED_OUT
    # The turn is gone, and so is the reason to refuse: the vacation can start now.
    assert vacation_start(user=late, days=7, now=T0 + 3 * DAY + 6 * MINUTE)


def test_a_vacation_asked_a_minute_before_the_deadline_stops_the_clock(alice, bob, tick) -> None:
    game = started_at_t0([alice, bob])
    vacation_start(user=seat_at(game, 0).player, days=2, now=T0 + 3 * DAY - MINUTE)
    assert tick(T0 + 3 * DAY + MINUTE)["timeouts"] == 0
    assert tick(T0 + 5 * DAY + 2 * MINUTE)["timeouts"] == 1


def test_a_vacation_is_refused_for_a_lost_turn_even_when_another_game_is_fine(
    alice, bob, carol, tick
) -> None:
    with time_machine.travel(T0, tick=False):
        lost = start_game([alice, bob])
    player = seat_at(lost, 0).player
    with time_machine.travel(T0 + 2 * DAY, tick=False):
        fine = start_game([player, carol])
    with translation.override("en"), pytest.raises(VacationRefused) as refusal:
        vacation_start(user=player, days=3, now=T0 + 3 * DAY + MINUTE)
    assert f"game {lost.pk}" in refusal.value.message and f"game {fine.pk}" not in (
        refusal.value.message
    )


def test_a_move_sent_after_the_deadline_is_refused_and_the_time_out_is_kept(alice, bob) -> None:
    game = started_at_t0([alice, bob])
    late = seat_at(game, 0).player
    with time_machine.travel(T0 + 3 * DAY + MINUTE, tick=False), pytest.raises(GameError) as error:
        services.move_submit(game_id=game.pk, player=late, version=0, move=rules.Pass(0))
    assert (error.value.code, error.value.status) == ("timed-out", 409)
    with translation.override("fr"):
        assert str(error.value.message) == (
            "Votre délai pour jouer était dépassé\u00a0: vous avez quitté cette partie."
        )
    game.refresh_from_db()
    assert [m.kind for m in game.moves.all()] == ["timeout"]
    assert game.status == Game.Status.FINISHED and seat_at(game, 1).is_winner
    assert seat_at(game, 0).status == Seat.Status.TIMED_OUT


def test_a_move_sent_just_before_the_deadline_is_played(alice, bob) -> None:
    game = started_at_t0([alice, bob])
    with time_machine.travel(T0 + 3 * DAY - MINUTE, tick=False):
        move = services.move_submit(
            game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
        )
    assert move.kind == "pass"


def test_a_move_after_the_deadline_counts_the_vacations(alice, bob) -> None:
    game = started_at_t0([alice, bob])
    vacation_start(user=seat_at(game, 0).player, days=2, now=T0 + DAY)
    with time_machine.travel(T0 + 4 * DAY, tick=False):
        move = services.move_submit(
            game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
        )
    assert move.kind == "pass"


def test_resigning_after_one_s_own_deadline_is_a_time_out(alice, bob, carol) -> None:
    game = started_at_t0([alice, bob, carol], hands=THREE_HANDS)
    late = seat_at(game, 0).player
    with time_machine.travel(T0 + 3 * DAY + MINUTE, tick=False), pytest.raises(GameError) as error:
        services.game_resign(game_id=game.pk, player=late)
    assert error.value.code == "timed-out"
    assert [m.kind for m in game.moves.all()] == ["timeout"]
    assert seat_at(game, 0).status == Seat.Status.TIMED_OUT


def test_a_resignation_out_of_turn_after_the_other_s_deadline_comes_second(alice, bob) -> None:
    game = started_at_t0([alice, bob])
    with time_machine.travel(T0 + 3 * DAY + MINUTE, tick=False), pytest.raises(GameError) as error:
        services.game_resign(game_id=game.pk, player=seat_at(game, 1).player)
    assert error.value.code == "not-running"
    game.refresh_from_db()
    assert [m.kind for m in game.moves.all()] == ["timeout"]
    assert game.status == Game.Status.FINISHED
    assert seat_at(game, 1).is_winner and seat_at(game, 1).status == Seat.Status.ACTIVE


def test_in_a_bigger_game_the_resignation_follows_the_time_out(alice, bob, carol) -> None:
    game = started_at_t0([alice, bob, carol], hands=THREE_HANDS)
    with time_machine.travel(T0 + 3 * DAY + MINUTE, tick=False):
        move = services.game_resign(game_id=game.pk, player=seat_at(game, 2).player)
    assert move.kind == "resign"
    assert [m.kind for m in game.moves.order_by("number")] == ["timeout", "resign"]
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and seat_at(game, 1).is_winner


# --- a day given by another player (games/services/time_given.py) -------------------------------------------


def give_a_day(game: Game, giver, at: datetime) -> None:
    game.refresh_from_db()
    with time_machine.travel(at, tick=False):
        services.time_give(
            game_id=game.pk,
            giver=giver,
            version=game.move_count,
            extra_days=game.turn_extra_days,
        )


def test_after_a_day_given_the_time_out_comes_a_day_later(alice, bob, tick) -> None:
    game = started_at_t0([alice, bob])
    give_a_day(game, seat_at(game, 1).player, T0 + DAY)
    assert tick(T0 + 3 * DAY + MINUTE)["timeouts"] == 0
    assert tick(T0 + 4 * DAY - MINUTE)["timeouts"] == 0
    assert seat_at(game, 0).status == Seat.Status.ACTIVE
    assert tick(T0 + 4 * DAY + MINUTE)["timeouts"] == 1
    assert seat_at(game, 0).status == Seat.Status.TIMED_OUT


def test_after_a_day_given_the_reminder_comes_a_day_later(alice, bob, tick, mailoutbox) -> None:
    game = started_at_t0([alice, bob])
    give_a_day(game, seat_at(game, 1).player, T0 + DAY)
    assert tick(T0 + 2 * DAY + MINUTE)["reminders"] == 0
    assert tick(T0 + 3 * DAY + MINUTE)["reminders"] == 1
    assert "before March 6, 2026" in mailoutbox[-1].subject  # 15:00 UTC, the 6th in NY or Paris


def test_a_turn_reminded_before_a_day_was_given_is_reminded_again_before_the_new_deadline(
    alice, bob, tick, mailoutbox
) -> None:
    # PLAYERS.md 3: never a time-out by surprise. The first reminder named a deadline
    # that no longer holds; the real one gets its own reminder, a day before it.
    game = started_at_t0([alice, bob])
    first = seat_at(game, 0).player
    assert tick(T0 + 2 * DAY + MINUTE)["reminders"] == 1
    assert "before March 5, 2026" in mailoutbox[-1].subject
    give_a_day(game, seat_at(game, 1).player, T0 + 2 * DAY + 2 * 60 * MINUTE)
    assert tick(T0 + 2 * DAY + 3 * 60 * MINUTE)["reminders"] == 0  # a day and more to go
    assert tick(T0 + 3 * DAY + MINUTE) == {"timeouts": 0, "reminders": 1}
    assert mailoutbox[-1].to == [first.email]
    assert "before March 6, 2026" in mailoutbox[-1].subject
    assert tick(T0 + 3 * DAY + 6 * MINUTE)["reminders"] == 0  # one per turn and deadline


def test_a_move_after_the_old_deadline_and_before_the_new_one_is_played(alice, bob) -> None:
    game = started_at_t0([alice, bob])
    give_a_day(game, seat_at(game, 1).player, T0 + DAY)
    with time_machine.travel(T0 + 3 * DAY + MINUTE, tick=False):
        move = services.move_submit(
            game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
        )
    assert move.kind == "pass"


def test_the_day_given_does_not_carry_over_to_the_next_turn(alice, bob, tick) -> None:
    game = started_at_t0([alice, bob])
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    give_a_day(game, second, T0 + DAY)
    with time_machine.travel(T0 + 2 * DAY, tick=False):
        services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    # The second player has their own three days from the move, and no more.
    assert tick(T0 + 5 * DAY - MINUTE)["timeouts"] == 0
    assert tick(T0 + 5 * DAY + MINUTE)["timeouts"] == 1
    assert seat_at(game, 1).status == Seat.Status.TIMED_OUT


# --- the daily digest ------------------------------------------------------------------


def test_the_digest_goes_once_a_day_at_the_local_hour(
    alice, bob, carol, committed, mailoutbox, settings
) -> None:
    settings.DIAMINO_DIGEST_HOUR = 8
    with time_machine.travel(T0, tick=False):
        one = new_game([alice, bob])
        two = new_game([carol, bob])
    for game in (one, two):  # make bob the player to move in both
        first = seat_at(game, 0).player
        if first != bob:
            with time_machine.travel(T0, tick=False):
                services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    bob.turn_emails = EmailChoice.DIGEST  # Europe/Paris: 8:00 is 7:00 UTC in March
    bob.save()
    mailoutbox.clear()

    def hourly(moment: datetime) -> int:
        with time_machine.travel(moment, tick=False), committed():
            return send_digests.delay().get()

    day = datetime(2026, 3, 3, tzinfo=UTC)
    sent_by_hour = {hour: hourly(day.replace(hour=hour)) for hour in range(24)}
    assert sent_by_hour[7] == 1
    assert sum(sent_by_hour.values()) == 1
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == [bob.email]
    for game in (one, two):
        assert f"/parties/{game.pk}/" in message.body
    assert "(Europe/Paris)" in message.body
    # The next day, again once.
    next_day = day + DAY
    assert [hourly(next_day.replace(hour=h)) for h in range(6, 10)] == [0, 1, 0, 0]
    assert len(mailoutbox) == 2


def test_no_digest_when_no_game_waits_and_none_for_each_or_never_readers(
    alice, bob, committed, mailoutbox
) -> None:
    game = started_at_t0([alice, bob])
    waiting = seat_at(game, 1).player  # not their turn
    waiting.turn_emails = EmailChoice.DIGEST
    waiting.save()
    to_move = seat_at(game, 0).player  # their turn, but they read each email
    with committed(), time_machine.travel(datetime(2026, 3, 3, 12, tzinfo=UTC), tick=False):
        assert deadlines.write_digests() == 0
    assert mailoutbox == []
    to_move.turn_emails = EmailChoice.NEVER
    to_move.save()
    with committed(), time_machine.travel(datetime(2026, 3, 3, 13, tzinfo=UTC), tick=False):
        assert deadlines.write_digests() == 0


def test_a_turn_that_comes_after_the_digest_time_waits_for_the_next_days_digest(
    alice, bob, committed, mailoutbox, settings
) -> None:
    settings.DIAMINO_DIGEST_HOUR = 8
    afternoon = datetime(2026, 3, 3, 14, tzinfo=UTC)  # 15:00 in Paris, past the 8:00 digest
    with time_machine.travel(afternoon, tick=False):
        game = new_game([alice, bob])
        first = seat_at(game, 0).player
        if first != bob:  # bob's turn comes now
            services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    bob.turn_emails = EmailChoice.DIGEST
    bob.save()
    mailoutbox.clear()

    def hourly(moment: datetime) -> int:
        with time_machine.travel(moment, tick=False), committed():
            return send_digests.delay().get()

    # Not at the next hourly run: bob's digest of the day was due at 8:00, before the turn.
    assert [hourly(afternoon + h * HOUR) for h in range(1, 17)] == [0] * 16
    assert mailoutbox == []
    assert hourly(datetime(2026, 3, 4, 7, tzinfo=UTC)) == 1  # the next 8:00 in Paris
    (message,) = mailoutbox
    assert f"/parties/{game.pk}/" in message.body


# --- a vacation booked ahead -------------------------------------------------------------


def next_local_day(player, moment: datetime) -> date:
    return moment.astimezone(ZoneInfo(player.time_zone)).date() + DAY


def booked_ahead(players, *, days: int, first_day_after: datetime, now: datetime):
    """A game started at T0, and its first player's vacation from their day after ``first_day_after``."""
    game = started_at_t0(players)
    first = seat_at(game, 0).player
    vacation = vacation_start(
        user=first, days=days, first_day=next_local_day(first, first_day_after), now=now
    )
    return game, first, vacation


def shown(player, moment: datetime) -> str:
    """``moment`` as an email to ``player`` writes it."""
    with translation.override(player.language), timezone.override(ZoneInfo(player.time_zone)):
        return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def test_a_vacation_booked_to_begin_mid_turn_moves_the_reminder_and_the_time_out(
    alice, bob, tick, mailoutbox
) -> None:
    # Booked an hour into the turn, from the next local midnight, for 2 days.
    game, first, vacation = booked_ahead([alice, bob], days=2, first_day_after=T0, now=T0 + HOUR)
    assert T0 < vacation.starts_at < T0 + 3 * DAY
    assert tick(T0 + 2 * DAY + MINUTE) == {"timeouts": 0, "reminders": 0}
    assert tick(T0 + 3 * DAY + MINUTE) == {"timeouts": 0, "reminders": 0}
    assert tick(T0 + 4 * DAY + MINUTE) == {"timeouts": 0, "reminders": 1}
    # The reminder names the deadline the game page shows.
    assert selectors.deadline_of(game) == T0 + 5 * DAY
    (to, subject), message = subjects(mailoutbox)[0], mailoutbox[0]
    assert to == first.email
    assert subject.endswith(f" before {shown(first, T0 + 5 * DAY)}")
    assert shown(first, T0 + 5 * DAY) in message.body
    assert tick(T0 + 5 * DAY - MINUTE)["timeouts"] == 0
    assert tick(T0 + 5 * DAY + MINUTE)["timeouts"] == 1


def test_a_cancelled_vacation_ahead_leaves_the_reminder_and_time_out_where_they_were(
    alice, bob, tick, mailoutbox
) -> None:
    _game, first, vacation = booked_ahead([alice, bob], days=2, first_day_after=T0, now=T0)
    vacation_cancel(user=first, vacation_id=vacation.pk, now=T0 + HOUR)
    assert tick(T0 + 2 * DAY + MINUTE) == {"timeouts": 0, "reminders": 1}
    assert subjects(mailoutbox)[0][1].endswith(f" before {shown(first, T0 + 3 * DAY)}")
    assert tick(T0 + 3 * DAY + MINUTE)["timeouts"] == 1


def test_a_turn_reminded_before_a_vacation_was_booked_is_reminded_again_after_it(
    alice, bob, tick, mailoutbox
) -> None:
    # The first reminder named a deadline the vacation moved: the player hears of the new one
    # a day before it, once back.
    game = started_at_t0([alice, bob])
    first = seat_at(game, 0).player
    assert tick(T0 + 2 * DAY + MINUTE)["reminders"] == 1
    vacation = vacation_start(
        user=first, days=3, first_day=next_local_day(first, T0 + 2 * DAY), now=T0 + 2 * DAY + HOUR
    )
    pushed = T0 + 6 * DAY
    assert selectors.deadline_of(game) == pushed
    # Back within a day of the new deadline (the vacation began within a day of the old one).
    assert pushed - DAY < vacation.ends_at < pushed
    assert tick(vacation.starts_at + HOUR)["reminders"] == 0
    assert tick(vacation.ends_at - MINUTE)["reminders"] == 0  # still away
    assert tick(vacation.ends_at + MINUTE) == {"timeouts": 0, "reminders": 1}
    assert subjects(mailoutbox)[-1][1].endswith(f" before {shown(first, pushed)}")
    assert tick(vacation.ends_at + 6 * MINUTE)["reminders"] == 0  # one per turn and deadline
    assert tick(pushed + MINUTE)["timeouts"] == 1
