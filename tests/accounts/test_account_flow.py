"""The whole life of an account, as a visitor sees it through pages and emails."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.emails import build_email
from accounts.models import EmailChoice, User
from accounts.permissions import can_play

pytestmark = pytest.mark.django_db

PASSWORD = "tuile-verte-1964"
NEW_PASSWORD = "diable-rouge-2026"


def link_in(message: mail.EmailMessage, pattern: str) -> str:
    assert isinstance(message.body, str)
    match = re.search(rf"https?://\S*{pattern}\S*", message.body)
    assert match, f"no link matching {pattern!r} in:\n{message.body}"
    return match.group(0)


def sign_up(client: Client, username: str = "alice", email: str = "alice@example.com") -> None:
    response = client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302


def log_in(client: Client, login: str, password: str) -> bool:
    client.post(reverse("account_login"), {"login": login, "password": password})
    return get_user(client).is_authenticated


def test_a_visitor_signs_up_confirms_plays_unsubscribes_and_resets_the_password(
    client: Client, mailoutbox: list[mail.EmailMessage], sample_email_templates: None
) -> None:
    sign_up(client)
    alice = User.objects.get(username="alice")
    assert not can_play(alice)
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["alice@example.com"]

    confirm = link_in(mailoutbox[0], "/accounts/confirm-email/")
    page = client.get(confirm)
    assert page.status_code == 200
    client.post(confirm)
    assert can_play(User.objects.get(pk=alice.pk))

    client.post(reverse("account_logout"))
    assert not get_user(client).is_authenticated
    assert log_in(client, "alice", PASSWORD)
    client.post(reverse("account_logout"))
    assert log_in(client, "alice@example.com", PASSWORD)

    response = client.post(
        reverse("accounts:settings"),
        {
            "display_name": "Alice au pays",
            "language": "en",
            "time_zone": "America/Montreal",
            "turn_emails": EmailChoice.DIGEST,
            "invitation_emails": EmailChoice.EACH,
            "game_over_emails": EmailChoice.EACH,
        },
        follow=True,
    )
    assert "Your settings are saved." in response.content.decode()
    alice.refresh_from_db()
    assert (alice.display_name, alice.language, alice.time_zone, alice.turn_emails) == (
        "Alice au pays",
        "en",
        "America/Montreal",
        EmailChoice.DIGEST,
    )

    build_email(alice, "sample", {"game_name": "Partie 7"}, kind="invitations").send()
    unsubscribe = link_in(mailoutbox[-1], "/desabonnement/")
    client.post(reverse("account_logout"))
    assert client.get(unsubscribe).status_code == 200  # asks first
    assert User.objects.get(pk=alice.pk).invitation_emails == EmailChoice.EACH
    page = client.post(unsubscribe)
    assert "alice@example.com will no longer receive emails about invitations" in (
        page.content.decode()
    )
    alice.refresh_from_db()
    assert alice.invitation_emails == EmailChoice.NEVER
    assert alice.game_over_emails == EmailChoice.EACH

    sent = len(mailoutbox)
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    assert len(mailoutbox) == sent + 1
    reset = link_in(mailoutbox[-1], "/accounts/password/reset/key/")
    form_page = client.get(reset, follow=True)
    assert form_page.status_code == 200
    client.post(
        form_page.redirect_chain[-1][0],
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert not log_in(client, "alice", PASSWORD)
    assert log_in(client, "alice", NEW_PASSWORD)


def test_a_new_player_keeps_the_language_they_signed_up_in(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    client.post(reverse("set_language"), {"language": "en"})
    sign_up(client, "bob", "bob@example.com")
    assert User.objects.get(username="bob").language == "en"
    assert "Please confirm" in mailoutbox[0].subject or "Confirm" in mailoutbox[0].subject
