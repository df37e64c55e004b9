"""With real PostgreSQL, Redis and a Celery worker: the emails go through the worker, once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.db import connections
from django.utils import timezone
from kombu.exceptions import OperationalError

from infra.celery import app
from notifications import periodic, sending
from notifications.models import Notification
from notifications.tasks import send_notification
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game, play_chat

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def wait_for(condition: Callable[[], bool], timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@contextmanager
def a_worker() -> Iterator[None]:
    """A real Celery worker in a thread, consuming from Redis (mail lands in ``mail.outbox``)."""
    from celery.contrib.testing.worker import start_worker

    assert app.conf.task_always_eager is False
    # celery-types: start_worker wants a Celery[Task], the app's tasks are DatabaseTask (invariant).
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):  # type: ignore[arg-type]
        yield


@pytest.fixture(autouse=True)
def empty_queue() -> None:
    app.control.purge()  # messages left in this Redis database by earlier runs


def test_a_move_puts_the_next_players_email_in_the_outbox_through_the_worker(alice, bob) -> None:
    with a_worker():
        game = new_game([alice, bob], keep_start=True)  # the start's two emails, then the move's
        # Sent before the move: a "your turn" rendered after the player moved is
        # dropped as skipped (games/emails.py), which a slow worker made flaky.
        assert wait_for(lambda: len(mail.outbox) >= 2, timeout=60)
        play_chat(game)
        assert wait_for(lambda: len(mail.outbox) >= 3, timeout=60)
        time.sleep(0.5)  # nothing more arrives
    assert len(mail.outbox) == 3
    second = seat_at(game, 1).player
    row = Notification.objects.get(kind="turn", recipient=second)
    assert row.status == "sent"
    turn = [m for m in mail.outbox if m.extra_headers["Message-ID"] == sending.message_id(row)]
    assert len(turn) == 1 and turn[0].to == [second.email]
    assert "CHAT" in turn[0].body
    assert set(Notification.objects.values_list("status", flat=True)) == {"sent"}


def test_with_the_broker_unreachable_at_commit_the_sweep_sends_it_through_the_worker(
    alice, bob, monkeypatch
) -> None:
    game = new_game([alice, bob])  # the start's rows are dropped: no worker ran yet

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to Redis. Connection refused.")

    with monkeypatch.context() as patch:
        patch.setattr(send_notification, "apply_async", broker_down)
        play_chat(game)  # commits; the queueing fails quietly
    game.refresh_from_db()
    assert game.move_count == 1
    row = Notification.objects.get(kind="turn")
    with a_worker():
        time.sleep(1)
        row.refresh_from_db()
        assert row.status == "pending" and mail.outbox == []
        with time_machine.travel(timezone.now() + timedelta(minutes=2)):
            assert periodic.sweep() == 1
            assert wait_for(lambda: Notification.objects.get(pk=row.pk).status == "sent", 60)
    assert row.recipient is not None
    assert [m.to for m in mail.outbox] == [[row.recipient.email]]


def test_two_senders_racing_for_the_same_row_on_postgresql_send_it_once(alice, bob) -> None:
    game = new_game([alice, bob])
    with monkeypatch_queue_off():
        play_chat(game)
    row = Notification.objects.get(kind="turn")
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def send() -> None:
        try:
            barrier.wait(timeout=10)
            outcomes.append(sending.send_one(row.pk).status)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["not-claimed"] * 3 + ["sent"]
    assert len(mail.outbox) == 1


class monkeypatch_queue_off:
    """Leave the row pending: no message is queued on commit (no worker runs here)."""

    def __enter__(self) -> None:
        self.real = send_notification.apply_async
        setattr(send_notification, "apply_async", lambda *args, **kwargs: None)  # noqa: B010

    def __exit__(self, *exc: object) -> None:
        setattr(send_notification, "apply_async", self.real)  # noqa: B010
