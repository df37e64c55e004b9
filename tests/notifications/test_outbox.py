"""The outbox: a row per notification with the event, sent once, never lost."""

from __future__ import annotations

import smtplib
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend
from django.db import IntegrityError
from django.utils import timezone
from kombu.exceptions import OperationalError

import rules
from games import services
from games.models import Game
from notifications import periodic, sending
from notifications.models import Notification
from notifications.services import notification_write
from notifications.tasks import send_notification
from tests.games.conftest import seat_at
from tests.notifications.conftest import OPENING, new_game, play_chat, rows

pytestmark = pytest.mark.django_db
Status = Notification.Status


class FlakySMTP(LocmemBackend):
    """Refuses the first ``failures`` messages, as an SMTP server that is down would."""

    failures = 0
    calls = 0

    def send_messages(self, messages):
        type(self).calls += 1
        if type(self).calls <= type(self).failures:
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        return super().send_messages(messages)


@pytest.fixture
def flaky_smtp(settings):
    settings.EMAIL_BACKEND = "tests.notifications.test_outbox.FlakySMTP"
    FlakySMTP.failures, FlakySMTP.calls = 3, 0
    return FlakySMTP


def test_a_move_writes_the_next_players_turn_email_in_its_transaction(alice, bob) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    before = Notification.objects.count()
    play_chat(game)
    new = list(Notification.objects.order_by("pk")[before:])
    # Only the next player hears of it: nobody gets an email for their own move.
    assert [(n.kind, n.recipient, n.status) for n in new] == [("turn", second, "pending")]
    assert new[0].context == {"turn": new[0].key.removeprefix("turn:")}


def test_writing_the_same_key_twice_gives_one_row_and_no_error(alice) -> None:
    first = notification_write(recipient=alice, kind="digest", key="digest:test")
    assert first is not None
    assert notification_write(recipient=alice, kind="digest", key="digest:test") is None
    assert Notification.objects.filter(key="digest:test").count() == 1


def test_an_integrity_error_other_than_a_taken_key_is_raised_not_swallowed(alice) -> None:
    # A broken row (here, no key at all) is not "written before": it rolls the event back.
    with pytest.raises(IntegrityError):
        notification_write(recipient=alice, kind="digest", key=None)  # type: ignore[arg-type]  # the broken row on purpose


@pytest.mark.services
def test_a_foreign_key_violation_is_raised_into_the_event_s_transaction(alice) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # Django defers foreign keys to commit
    missing_game = (Game.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    with pytest.raises(IntegrityError):
        notification_write(
            recipient=alice, kind="timeout", key="timeout:nowhere", game_id=missing_game
        )


def test_the_email_goes_when_the_move_commits(alice, bob, committed, mailoutbox) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    with committed():
        play_chat(game)
    assert [m.to for m in mailoutbox] == [[second.email]]
    row = Notification.objects.get(kind="turn", recipient=second)
    assert (row.status, row.attempts) == (Status.SENT, 1)
    assert row.sent_at is not None


def test_a_refused_move_writes_no_notification(alice, bob) -> None:
    game = new_game([alice, bob])
    before = Notification.objects.count()
    with pytest.raises(rules.IllegalMove):
        services.move_submit(
            game_id=game.pk,
            player=seat_at(game, 0).player,
            version=0,
            move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "X"))),
        )
    with pytest.raises(rules.IllegalMove):
        services.move_submit(
            game_id=game.pk, player=seat_at(game, 1).player, version=0, move=rules.Pass(0)
        )
    assert Notification.objects.count() == before


def test_running_the_send_twice_sends_once(alice, bob, mailoutbox) -> None:
    game = new_game([alice, bob])
    play_chat(game)  # no commit: the row waits, pending
    row = Notification.objects.get(kind="turn", recipient=seat_at(game, 1).player)
    assert send_notification.delay(row.pk).get() == "sent"
    assert send_notification.delay(row.pk).get() == "not-claimed"
    assert sending.send_one(row.pk).status == "not-claimed"
    assert len(mailoutbox) == 1


def test_a_row_another_sender_holds_is_left_alone_until_its_lease_expires(
    alice, bob, mailoutbox, settings
) -> None:
    game = new_game([alice, bob])
    play_chat(game)
    row = Notification.objects.get(kind="turn", recipient=seat_at(game, 1).player)
    now = timezone.now()
    assert sending.claim(row.pk, now)  # a worker took it, then died before sending
    assert sending.send_one(row.pk).status == "not-claimed"
    assert periodic.sweep(now + timedelta(minutes=5)) == 0
    assert mailoutbox == []
    later = now + settings.DIAMINO_NOTIFICATION_LEASE + timedelta(seconds=1)
    with time_machine.travel(later, tick=False):
        assert periodic.sweep() == 1
    assert len(mailoutbox) == 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Status.SENT, 2)


def test_smtp_errors_are_retried_with_backoff_and_the_email_is_sent_exactly_once(
    alice, bob, committed, mailoutbox, flaky_smtp
) -> None:
    game = new_game([alice, bob])
    start = timezone.now()
    with time_machine.travel(start, tick=False), committed():
        play_chat(game)
    row = Notification.objects.get(kind="turn", recipient=seat_at(game, 1).player)
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Status.PENDING, 1)
    assert "SMTPServerDisconnected" in row.last_error
    assert row.next_attempt_at == start + timedelta(minutes=1)
    assert row.claimed_at is not None
    delays = [row.next_attempt_at - row.claimed_at]
    moment = start
    for _ in range(10):  # beat's sweep, once a minute, for a while
        moment += timedelta(minutes=1)
        with time_machine.travel(moment, tick=False):
            periodic.sweep()
        attempts = row.attempts
        row.refresh_from_db()
        if row.status == Status.PENDING and row.attempts > attempts:
            assert row.claimed_at is not None
            delays.append(row.next_attempt_at - row.claimed_at)
    assert row.status == Status.SENT
    assert row.attempts == 4, "three refusals, then accepted"
    assert delays == [timedelta(minutes=1), timedelta(minutes=2), timedelta(minutes=4)]
    assert len(mail.outbox) == 1
    assert flaky_smtp.calls == 4


def test_after_too_many_attempts_the_row_is_marked_failed_and_kept(
    alice, bob, settings, flaky_smtp
) -> None:
    settings.DIAMINO_NOTIFICATION_MAX_ATTEMPTS = 2
    flaky_smtp.failures = 99
    game = new_game([alice, bob])
    play_chat(game)
    row = Notification.objects.get(kind="turn", recipient=seat_at(game, 1).player)
    assert sending.send_one(row.pk).status == "retry"
    with time_machine.travel(timezone.now() + timedelta(hours=2), tick=False):
        assert sending.send_one(row.pk).status == "failed"
        assert periodic.sweep() == 0
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Status.FAILED, 2)
    assert "SMTPServerDisconnected" in row.last_error


def test_with_the_broker_down_at_commit_the_move_stands_and_the_sweep_sends_later(
    alice, bob, committed, mailoutbox, monkeypatch
) -> None:
    game = new_game([alice, bob])

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with monkeypatch.context() as patch:
        patch.setattr(send_notification, "apply_async", broker_down)
        with committed():
            play_chat(game)  # does not raise into the player's move
    game.refresh_from_db()
    assert game.move_count == 1
    row = Notification.objects.get(kind="turn", recipient=seat_at(game, 1).player)
    assert row.status == Status.PENDING and mailoutbox == []
    assert periodic.sweep() == 0, "not yet a minute late"
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        assert periodic.sweep() == 1
        assert periodic.sweep() == 0
    row.refresh_from_db()
    assert row.status == Status.SENT
    assert len(mailoutbox) == 1


class StalledQueue:
    """A broker that takes messages while no worker runs: it only records them."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, float | None]] = []

    def apply_async(self, args, countdown=None, expires=None, **kwargs) -> None:
        self.messages.append((args[0], expires))


def test_with_the_workers_down_the_sweep_queues_a_row_once_per_expiry_not_every_minute(
    alice, bob, mailoutbox, monkeypatch, settings
) -> None:
    game = new_game([alice, bob])
    play_chat(game)  # no commit: nothing queued, the row waits for the sweep
    row = Notification.objects.get(kind="turn", recipient=seat_at(game, 1).player)
    stalled = StalledQueue()
    monkeypatch.setattr(send_notification, "apply_async", stalled.apply_async)
    start = timezone.now()
    for minute in range(2, 30):  # nearly half an hour of beat, once a minute
        with time_machine.travel(start + timedelta(minutes=minute), tick=False):
            periodic.sweep()
    expiry = settings.DIAMINO_NOTIFICATION_REQUEUE_AFTER.total_seconds()
    assert stalled.messages == [(row.pk, expiry)] * 6, "one every 5 minutes, each expiring"
    # The workers come back; the waiting messages have expired and are dropped unread.
    monkeypatch.undo()
    with time_machine.travel(start + timedelta(minutes=30), tick=False):
        assert periodic.sweep() == 0, "the last message (minute 27) may still be waiting"
    with time_machine.travel(start + timedelta(minutes=32), tick=False):
        assert periodic.sweep() == 1, "it has expired: queued again, nothing lost"
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Status.SENT, 1)
    assert len(mailoutbox) == 1


def test_with_the_broker_down_the_sweep_tries_again_every_minute(
    alice, bob, mailoutbox, monkeypatch
) -> None:
    game = new_game([alice, bob])
    play_chat(game)
    tries = {"n": 0}

    def broker_down(*args, **kwargs):
        tries["n"] += 1
        raise OperationalError("connection refused")

    monkeypatch.setattr(send_notification, "apply_async", broker_down)
    start = timezone.now()
    for minute in range(2, 6):
        with time_machine.travel(start + timedelta(minutes=minute), tick=False):
            periodic.sweep()
    assert tries["n"] == 4, "no message went out, so none is waiting: no reason to hold back"
    monkeypatch.undo()
    with time_machine.travel(start + timedelta(minutes=6), tick=False):
        assert periodic.sweep() == 1
    assert len(mailoutbox) == 1


def test_every_notification_is_sent_exactly_once_through_failures_and_a_lost_broker(
    alice, bob, carol, committed, mailoutbox, flaky_smtp, monkeypatch
) -> None:
    flaky_smtp.failures = 2
    real_apply_async = send_notification.apply_async
    calls = {"n": 0}

    def down_every_other_time(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] % 2:
            raise OperationalError("connection refused")
        return real_apply_async(*args, **kwargs)

    monkeypatch.setattr(send_notification, "apply_async", down_every_other_time)
    moment = timezone.now()

    def a_while_of_beat_and_redeliveries() -> None:
        nonlocal moment
        for _ in range(8):
            moment += timedelta(minutes=2)
            with time_machine.travel(moment, tick=False):
                periodic.sweep()
                # A duplicate message for every row, as a redelivery would bring.
                for pk in Notification.objects.values_list("pk", flat=True):
                    sending.send_one(pk)

    with time_machine.travel(moment, tick=False), committed():
        game = new_game([alice, bob, carol], hands=(*OPENING, "BONJOURASSEZ"), keep_start=True)
    a_while_of_beat_and_redeliveries()
    with time_machine.travel(moment, tick=False), committed():
        play_chat(game)
    a_while_of_beat_and_redeliveries()
    for position in (1, 2, 0):
        with time_machine.travel(moment, tick=False), committed():
            services.move_submit(
                game_id=game.pk,
                player=seat_at(game, position).player,
                version=Game.objects.get(pk=game.pk).move_count,
                move=rules.Pass(0),
            )
        a_while_of_beat_and_redeliveries()
    kinds = [kind for kind, _who, _status in rows()]
    # The start (first player's turn, two "game started"), two turns passed,
    # then the third pass in succession blocks the game: game over for all.
    assert kinds == [
        "turn",
        "game-started",
        "game-started",
        "turn",
        "turn",
        "turn",
        *["game-over"] * 3,
    ]
    assert set(Notification.objects.values_list("status", flat=True)) == {Status.SENT}
    sent = [m.extra_headers["Message-ID"] for m in mailoutbox]  # one per outbox row
    assert len(sent) == len(set(sent)) == 9
    assert flaky_smtp.calls == 9 + 2


def test_a_deleted_or_inactive_player_gets_nothing_and_the_row_says_why(
    alice, bob, committed, mailoutbox
) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    second.is_active = False
    second.save()
    with committed():
        play_chat(game)
    assert mailoutbox == []
    row = Notification.objects.get(kind="turn", recipient=second)
    assert (row.status, row.reason) == (Status.SKIPPED, "deleted or inactive player")


def test_preferences_changed_after_the_row_was_written_are_honoured_at_send(
    alice, bob, mailoutbox
) -> None:
    game = new_game([alice, bob])
    play_chat(game)
    second = seat_at(game, 1).player
    second.turn_emails = "never"
    second.save()
    row = Notification.objects.get(kind="turn", recipient=second)
    assert sending.send_one(row.pk).status == "skipped"
    assert mailoutbox == []


def test_a_turn_email_not_sent_before_the_player_moved_is_dropped(alice, bob, mailoutbox) -> None:
    game = new_game([alice, bob])
    play_chat(game)
    row = Notification.objects.get(kind="turn", recipient=seat_at(game, 1).player)
    services.move_submit(
        game_id=game.pk, player=seat_at(game, 1).player, version=1, move=rules.Pass(0)
    )
    assert sending.send_one(row.pk).status == "skipped"
    row.refresh_from_db()
    assert row.reason == "the turn is over already"
    assert mailoutbox == []


def test_every_outbox_row_shows_in_the_admin_with_filters(admin_client, alice, bob) -> None:
    game = new_game([alice, bob])
    play_chat(game)
    second = seat_at(game, 1).player
    url = f"/admin/notifications/notification/?status__exact=pending&kind__exact=turn&q={second}"
    response = admin_client.get(url)
    assert response.status_code == 200
    assert rows(status="pending", recipient=second) == [("turn", second.username, "pending")]
    assert f'<td class="field-recipient nowrap">{second}</td>' in response.content.decode()
