"""An SMTP server that refuses (451) or is not there: sign-up and reset answer, mail goes once.

A real SMTP server runs in the test (``tests/faults/smtp_server.py``) and a real
Celery worker sends from the outbox through a private Redis, as in production.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from infra.celery import app
from notifications.models import Notification
from tests.factories import make_player
from tests.faults.redis_server import (  # noqa: F401 (fixtures)
    redis_server,
    site_on_private_redis,
)
from tests.faults.smtp_server import SmtpServer, smtp_server  # noqa: F401 (fixture)
from tests.notifications.test_worker import a_worker, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

PASSWORD = "tuile-verte-1964"


@pytest.fixture
def outbox(site_on_private_redis, smtp_server: SmtpServer, settings) -> SmtpServer:  # noqa: F811
    # Production waits a minute before the first retry; the tests a second.
    settings.DIAMINO_NOTIFICATION_RETRY_BASE = timedelta(seconds=1)
    settings.DIAMINO_NOTIFICATION_RETRY_CAP = timedelta(seconds=2)
    app.control.purge()
    return smtp_server


def account_rows() -> list[Notification]:
    return list(Notification.objects.filter(kind="account").order_by("pk"))


def sign_up(client: Client) -> int:
    data = {"username": "newcomer", "email": "newcomer@example.com"}
    data |= {"password1": PASSWORD, "password2": PASSWORD}
    return client.post(reverse("account_signup"), data).status_code


def test_with_smtp_answering_451_sign_up_and_reset_answer_and_each_email_goes_once(
    outbox: SmtpServer,
) -> None:
    make_player("alice")
    outbox.refusing = True
    client = Client()
    with a_worker():
        assert sign_up(client) == 302  # the page, not a 500
        assert User.objects.filter(username="newcomer").exists()
        reset = client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
        assert reset.status_code == 302
        assert wait_for(lambda: outbox.refused >= 2)  # the worker tried, the server refused
        assert wait_for(lambda: all("451" in row.last_error for row in account_rows()))
        assert outbox.received == []

        outbox.refusing = False
        assert wait_for(lambda: {row.status for row in account_rows()} == {"sent"})
        time.sleep(1.5)  # nothing more arrives
    assert outbox.recipients() == ["alice@example.com", "newcomer@example.com"]
    assert all(row.attempts >= 2 for row in account_rows())


def test_with_the_smtp_port_closed_sign_up_answers_and_the_email_goes_once_it_opens(
    outbox: SmtpServer,
) -> None:
    outbox.stop()
    client = Client()
    with a_worker():
        assert sign_up(client) == 302
        assert wait_for(lambda: "Connection refused" in account_rows()[0].last_error)
        outbox.start()
        assert wait_for(lambda: account_rows()[0].status == "sent")
        time.sleep(1.5)
    assert outbox.recipients() == ["newcomer@example.com"]
    [message] = outbox.received
    assert message.is_multipart()  # text and HTML
    assert {part.get_content_type() for part in message.walk()} >= {"text/plain", "text/html"}
