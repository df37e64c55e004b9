"""A task's log lines and Sentry events carry the id of the request that queued it.

The worker here is Celery's own, in a thread of the test process, fed by the
embedded in-memory broker: tasks are queued as messages and run apart from
the request, as in production, without Redis.
"""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from kombu.exceptions import OperationalError

from accounts.models import User
from infra.celery import app, ping
from monitoring.request_id import HEADER, RequestIdMiddleware
from notifications.models import Notification
from notifications.tasks import send_notification, sweep_outbox
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game
from tests.notifications.test_worker import wait_for
from tests.site.processes import python_run

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Position 0 can open with CHAT on H8.
HANDS = ("CHATEAUXSIRN", "LEPOTIERMANU")
CHAT = {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"}


@app.task(name="tests.relay")
def relay(value: str) -> str:
    """Queues a ping: a task that queues another, as a move's task queues its emails."""
    ping.delay(value)
    return value


@pytest.fixture
def players() -> list[User]:
    return [make_player("alice"), make_player("bob")]


@pytest.fixture
def worker(settings) -> Iterator[None]:
    """A Celery worker in a thread: from here on tasks are queued, not run in place."""
    from celery.contrib.testing.worker import start_worker

    app.conf.task_always_eager = False
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # With CI's Redis the queue may hold messages earlier tests of this worker
    # published and nobody consumed: the worker would chew through them first.
    app.control.purge()
    try:
        # celery-types: start_worker wants a Celery[Task], the app's tasks are DatabaseTask.
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):  # type: ignore[arg-type]
            yield
    finally:
        app.conf.task_always_eager = True


def served(view: Callable[[], object]) -> str:
    """Serve a request whose view calls ``view``, through the request-id middleware; its id."""

    def get_response(request: HttpRequest) -> HttpResponse:
        view()
        return HttpResponse()

    return RequestIdMiddleware(get_response)(RequestFactory().get("/"))[HEADER]


def task_lines(log: io.StringIO, task: str) -> dict[str, list[str]]:
    """The worker's "succeeded" lines of ``task``, by the request id they show."""
    found: dict[str, list[str]] = {}
    pattern = rf"INFO \[(\S+)\] celery\.app\.trace: Task {re.escape(task)}\[[^\]]+\] succeeded in [^:]+: (.*)"
    for request_id, result in re.findall(pattern, log.getvalue()):
        found.setdefault(request_id, []).append(result)
    return found


def test_a_moves_emails_are_sent_by_the_worker_under_the_moves_request_id(
    worker, site_log, players
) -> None:
    # Started here, outside any request: the start's emails are queued with no id.
    game = rig(start_game(players), HANDS)
    assert wait_for(lambda: "-" in task_lines(site_log, "notifications.send"))
    client = Client()
    client.force_login(seat_at(game, 0).player)
    response = client.post(reverse("games:play", args=[game.pk]), CHAT)
    assert response.status_code == 302
    request_id = response[HEADER]
    assert wait_for(lambda: request_id in task_lines(site_log, "notifications.send")), (
        site_log.getvalue()
    )
    assert set(task_lines(site_log, "notifications.send")[request_id]) == {"'sent'"}
    assert any("CHAT" in message.body for message in mail.outbox)


def test_a_task_queued_by_a_task_keeps_the_id_and_the_next_task_has_none(worker, site_log) -> None:
    request_id = served(lambda: relay.delay("from a request"))
    assert wait_for(
        lambda: "'from a request'" in task_lines(site_log, "diamino_site.ping").get(request_id, [])
    )
    assert task_lines(site_log, "tests.relay") == {request_id: ["'from a request'"]}
    # Then, in the same worker, a task queued outside any request: the last id is not its.
    ping.delay("from nowhere")
    assert wait_for(lambda: "-" in task_lines(site_log, "diamino_site.ping"))
    assert task_lines(site_log, "diamino_site.ping") == {
        request_id: ["'from a request'"],
        "-": ["'from nowhere'"],
    }


def test_an_email_the_sweep_sends_again_has_no_request_id(
    worker, site_log, players, monkeypatch, settings
) -> None:
    settings.DIAMINO_NOTIFICATION_SWEEP_AFTER = timedelta(0)  # rather than wait for it to be late
    game = rig(start_game(players), HANDS)
    assert wait_for(lambda: "-" in task_lines(site_log, "notifications.send"))

    def broker_down(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("Error 111 connecting to Redis. Connection refused.")

    client = Client()
    client.force_login(seat_at(game, 0).player)
    with monkeypatch.context() as patch:
        patch.setattr(send_notification, "apply_async", broker_down)
        response = client.post(reverse("games:play", args=[game.pk]), CHAT)
    assert response.status_code == 302
    assert Notification.objects.filter(status="pending").exists()  # the move's, not queued
    sweep_outbox.delay()  # as beat queues it: outside any request
    assert wait_for(lambda: not Notification.objects.exclude(status="sent").exists())
    # The move's id is in its own lines, not in the sweep's nor in the email the sweep sent.
    assert f"WARNING [{response[HEADER]}] notifications.services:" in site_log.getvalue()
    rows = Notification.objects.count()
    assert wait_for(lambda: len(task_lines(site_log, "notifications.send").get("-", [])) == rows)
    assert set(task_lines(site_log, "notifications.send")) == {"-"}
    assert set(task_lines(site_log, "notifications.sweep")) == {"-"}


def test_an_eager_task_leaves_the_requests_id_to_the_rest_of_the_request(site_log) -> None:
    def view() -> None:
        relay.delay("eager")  # the embedded default: run here, inside the request
        logging.getLogger("games").info("after the task")

    request_id = served(view)
    assert task_lines(site_log, "diamino_site.ping") == {request_id: ["'eager'"]}
    assert f"INFO [{request_id}] games: after the task" in site_log.getvalue()


# A request queues a task that fails, then a task that fails is queued outside any
# request; a worker (a thread, on the in-memory broker) runs both with Sentry on.
REQUEST_THEN_NOWHERE = """
import sentry_sdk
from celery.contrib.testing.worker import start_worker
from django.http import HttpResponse
from django.test import RequestFactory
from infra.celery import app
from monitoring.request_id import HEADER, RequestIdMiddleware

@app.task(name="tests.fails")
def fails(label):
    raise RuntimeError(label)

def view(request):
    fails.delay("queued by a request")
    return HttpResponse()

app.conf.task_always_eager = False
with start_worker(app, pool="solo", perform_ping_check=False):
    response = RequestIdMiddleware(view)(RequestFactory().get("/"))
    fails.delay("queued outside a request").get(propagate=False, timeout=30)
sentry_sdk.flush(timeout=10)
print(response[HEADER])
"""


def test_sentry_gets_a_tasks_error_with_the_id_of_the_request_that_queued_it(
    sentry_endpoint: tuple[str, list[str]], tmp_path: Path
) -> None:
    dsn, received = sentry_endpoint
    result = python_run(
        REQUEST_THEN_NOWHERE, {"DIAMINO_DATA_DIR": str(tmp_path), "SENTRY_DSN": dsn}
    )
    request_id = result.stdout.strip()
    events = [
        json.loads(line) for text in received for line in text.splitlines() if '"exception"' in line
    ]
    tags = {
        event["exception"]["values"][-1]["value"]: event.get("tags", {}).get("request_id")
        for event in events
    }
    assert tags == {"queued by a request": request_id, "queued outside a request": None}, (
        result.stderr
    )
