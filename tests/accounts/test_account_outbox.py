"""allauth's emails go through the outbox: written with the request, sent by the worker."""

from __future__ import annotations

import re
import smtplib
from datetime import timedelta

import pytest
import time_machine
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from notifications import periodic
from notifications.models import Notification
from tests.emails import html_of
from tests.factories import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "tuile-verte-1964"


class RefusingBackend(LocmemBackend):
    """An SMTP server answering 451 to every message, as the one in issue 25 did."""

    def send_messages(self, messages):
        raise smtplib.SMTPSenderRefused(451, b"4.3.0 Try again later", "diamino@localhost")


def sign_up(client: Client, username: str = "alice", email: str = "alice@example.com") -> int:
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    return client.post(reverse("account_signup"), data).status_code


def account_rows() -> list[Notification]:
    return list(Notification.objects.filter(kind=Notification.Kind.ACCOUNT).order_by("pk"))


def test_the_confirmation_email_is_an_outbox_row_sent_once(client: Client, mailoutbox) -> None:
    assert sign_up(client) == 302
    [row] = account_rows()
    assert row.status == "sent" and row.attempts == 1
    assert row.recipient == User.objects.get(username="alice")
    assert row.context == {}  # the confirmation link does not stay in the database
    assert len(mailoutbox) == 1
    assert mailoutbox[0].extra_headers["Message-ID"].startswith("<diamino.account.")


def test_account_emails_have_a_text_and_an_html_part_in_the_sites_design(
    client: Client, mailoutbox
) -> None:
    sign_up(client)
    [message] = mailoutbox
    found = re.search(r"https?://\S*/accounts/confirm-email/\S+", message.body)
    assert found is not None
    link = found.group(0)
    html = html_of(message)
    assert f'href="{link}"' in html  # the same link, clickable
    assert "#1d6b48" in html and ">Diamino</a>" in html  # the site's header and colours
    assert "Diamino — http" in message.body  # the site's footer, not allauth's "Hello from"
    assert "Hello from" not in message.body


def test_a_password_reset_speaks_the_recipients_language_not_the_pages(
    client: Client, mailoutbox
) -> None:
    make_player("bob", language="en")
    client.post(reverse("set_language"), {"language": "fr"})
    client.post(reverse("account_reset_password"), {"email": "bob@example.com"})
    [message] = mailoutbox
    assert "Password Reset" in message.subject
    assert 'lang="en"' in html_of(message)


def test_a_french_visitor_gets_the_confirmation_in_french(client: Client, mailoutbox) -> None:
    client.post(reverse("set_language"), {"language": "fr"})
    sign_up(client)
    [message] = mailoutbox
    assert "Confirmez votre adresse" in message.subject
    assert "Vous recevez cet e-mail parce que cette adresse a été saisie" in message.body
    assert "Vous recevez cet e-mail parce que cette adresse a été saisie" in html_of(message)


def test_with_smtp_refusing_sign_up_answers_and_the_email_goes_once_smtp_accepts(
    client: Client, settings, mailoutbox
) -> None:
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    assert sign_up(client) == 302  # not a 500
    assert User.objects.filter(username="alice").exists()
    [row] = account_rows()
    assert row.status == "pending" and "451" in row.last_error
    assert mailoutbox == []

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        periodic.sweep()
        periodic.sweep()  # a second sweep finds nothing left to send
    row.refresh_from_db()
    assert row.status == "sent" and row.attempts == 2
    assert [m.to for m in mailoutbox] == [["alice@example.com"]]


def test_with_smtp_refusing_a_password_reset_answers_normally(client: Client, settings) -> None:
    make_player("bob")
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    response = client.post(reverse("account_reset_password"), {"email": "bob@example.com"})
    assert response.status_code == 302
    [row] = account_rows()
    assert row.status == "pending"


def test_a_reset_for_an_unknown_address_goes_to_that_address(client: Client, mailoutbox) -> None:
    client.post(reverse("account_reset_password"), {"email": "nobody@example.com"})
    [row] = account_rows()
    assert row.recipient is None and row.status == "sent"
    assert [m.to for m in mailoutbox] == [["nobody@example.com"]]


def test_staff_cannot_read_a_pending_reset_link_in_the_admin(client: Client, settings) -> None:
    make_player("bob")
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    client.post(reverse("account_reset_password"), {"email": "bob@example.com"})
    [row] = account_rows()
    found = re.search(r"https?://\S*/accounts/password/reset/key/\S+", row.context["text"])
    assert found is not None
    link = found.group(0)
    staff = Client()
    staff.force_login(make_player("root", is_staff=True, is_superuser=True))
    page = staff.get(reverse("admin:notifications_notification_change", args=[row.pk]))
    assert page.status_code == 200
    assert link not in page.content.decode()
    assert "/accounts/password/reset/key/" not in page.content.decode()


def test_with_smtp_refusing_an_address_change_answers_and_its_confirmation_waits(
    settings, mailoutbox
) -> None:
    alice = make_player("alice", language="en")
    client = Client()
    client.force_login(alice)
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    response = client.post(
        reverse("account_email"), {"action_add": "", "email": "alice@new.example"}
    )
    assert response.status_code == 302
    [row] = account_rows()
    assert row.status == "pending" and row.recipient == alice
    assert row.context["to"] == ["alice@new.example"]

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        periodic.sweep()
    assert [m.to for m in mailoutbox] == [["alice@new.example"]]
    assert "Confirm" in mailoutbox[0].subject  # alice's language, English


def test_a_reset_still_waiting_when_the_account_is_deleted_is_never_sent(
    client: Client, settings, mailoutbox
) -> None:
    from accounts.services import user_delete

    bob = make_player("bob")
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    client.post(reverse("account_reset_password"), {"email": "bob@example.com"})
    user_delete(user=bob)
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        periodic.sweep()
    [row] = account_rows()
    assert row.status != "sent" and mailoutbox == []


def test_an_account_email_given_up_by_the_sweep_forgets_its_link(client: Client, settings) -> None:
    make_player("bob")
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    client.post(reverse("account_reset_password"), {"email": "bob@example.com"})
    [row] = account_rows()
    assert row.context  # the rendered email, its link included, waits here
    # A sender claimed it on its last attempt and died: the lease runs out.
    Notification.objects.filter(pk=row.pk).update(
        status="sending",
        attempts=settings.DIAMINO_NOTIFICATION_MAX_ATTEMPTS,
        claimed_at=timezone.now() - settings.DIAMINO_NOTIFICATION_LEASE - timedelta(minutes=1),
    )
    periodic.sweep()
    row.refresh_from_db()
    assert row.status == "failed" and row.context == {}


def test_without_the_outbox_an_account_email_fails_the_request_rather_than_vanish() -> None:
    from django.core.exceptions import ImproperlyConfigured

    from accounts.signals import account_email_rendered
    from notifications.account_emails import account_email_write

    make_player("alice")
    account_email_rendered.disconnect(dispatch_uid="account-email-write")
    try:
        with pytest.raises(
            ImproperlyConfigured, match=re.escape("alice@example.com would be lost")
        ):
            Client().post(reverse("account_reset_password"), {"email": "alice@example.com"})
    finally:
        account_email_rendered.connect(account_email_write, dispatch_uid="account-email-write")
    assert account_rows() == []
    Client().post(reverse("account_reset_password"), {"email": "alice@example.com"})
    assert len(account_rows()) == 1
