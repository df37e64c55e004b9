"""Every bad input gets a clear message and leaves the database as it was."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tests.factories import PASSWORD, make_player

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "tuile-verte-1964"


@pytest.fixture
def english(client: Client) -> Client:
    client.post(reverse("set_language"), {"language": "en"})
    return client


def snapshot() -> list[tuple]:
    users = User.objects.order_by("pk").values_list(
        "pk", "username", "email", "password", "is_active", "turn_emails", "invitation_emails"
    )
    addresses = EmailAddress.objects.order_by("pk").values_list("pk", "email", "verified")
    return [*users, *addresses]


@pytest.fixture
def unchanged() -> Callable[[], None]:
    """Call the returned function at the end of a test: it fails if anything changed."""
    before = snapshot()

    def check() -> None:
        assert snapshot() == before

    return check


def sign_up(client: Client, **overrides: str) -> str:
    data = {
        "username": "newcomer",
        "email": "newcomer@example.com",
        "password1": GOOD_PASSWORD,
        "password2": GOOD_PASSWORD,
        **overrides,
    }
    return client.post(reverse("account_signup"), data).content.decode()


def test_it_refuses_a_taken_username_whatever_its_case(
    english: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player("alice")
    with_check = snapshot()
    page = sign_up(english, username="ALICE")
    assert "A user with that username already exists." in page
    assert snapshot() == with_check
    assert mailoutbox == []


def test_it_refuses_a_username_with_an_at_sign_or_the_deleted_prefix(
    english: Client, unchanged: Callable[[], None]
) -> None:
    assert "A username cannot contain “@”." in sign_up(english, username="bob@home")
    assert "are reserved" in sign_up(english, username="ancien-3")
    unchanged()


def test_a_taken_address_creates_nothing_and_warns_its_owner_by_email(
    english: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    # allauth does not tell the visitor that the address is known (no account
    # enumeration); the address's owner is told by email instead.
    make_player("alice", language="en")
    before = snapshot()
    sign_up(english, email="ALICE@example.com")
    assert snapshot() == before
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["alice@example.com"]
    assert "already" in mailoutbox[0].body.lower()


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("12345678", "This password is entirely numeric."),
        ("court", "This password is too short."),
        ("password", "This password is too common."),
    ],
)
def test_it_refuses_a_weak_password(
    english: Client, unchanged: Callable[[], None], password: str, message: str
) -> None:
    page = sign_up(english, password1=password, password2=password)
    assert message in page
    unchanged()


def test_it_refuses_a_wrong_password_at_log_in(english: Client) -> None:
    make_player("alice")
    response = english.post(reverse("account_login"), {"login": "alice", "password": "nope"})
    assert "The username and/or password you specified are not correct." in (
        response.content.decode()
    )
    assert not get_user(english).is_authenticated


def test_log_in_is_rate_limited_after_repeated_failures(english: Client) -> None:
    make_player("alice")
    for _ in range(5):
        english.post(reverse("account_login"), {"login": "alice", "password": "nope"})
    response = english.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})
    assert "Too many failed login attempts" in response.content.decode()
    assert not get_user(english).is_authenticated


def test_a_wrong_confirmation_key_confirms_nothing(english: Client) -> None:
    make_player("alice", verified=False)
    before = snapshot()
    page = english.get("/accounts/confirm-email/not-a-key/").content.decode()
    assert "This email confirmation link expired or is invalid." in page
    assert english.post("/accounts/confirm-email/not-a-key/").status_code == 404
    assert snapshot() == before


def test_an_expired_confirmation_link_confirms_nothing(
    english: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    sign_up(english)
    assert isinstance(mailoutbox[0].body, str)
    found = re.search(r"http://\S+/accounts/confirm-email/\S+/", mailoutbox[0].body)
    assert found is not None
    link = found.group(0)
    before = snapshot()
    with time_machine.travel(timezone.now() + timedelta(days=4)):
        page = english.get(link).content.decode()
        assert english.post(link).status_code == 404
    assert "This email confirmation link expired or is invalid." in page
    assert snapshot() == before


def reset_link(client: Client, outbox: list[mail.EmailMessage], email: str) -> str:
    client.post(reverse("account_reset_password"), {"email": email})
    assert isinstance(outbox[-1].body, str)
    found = re.search(r"http://\S+/accounts/password/reset/key/\S+/", outbox[-1].body)
    assert found is not None
    return found.group(0)


def test_a_tampered_reset_link_changes_no_password(
    english: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player("alice", language="en")
    link = reset_link(english, mailoutbox, "alice@example.com")
    before = snapshot()
    page = english.get(link[:-4] + "beef/", follow=True).content.decode()
    assert "The password reset link was invalid" in page
    assert snapshot() == before


def test_an_expired_reset_link_changes_no_password(
    english: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player("alice", language="en")
    link = reset_link(english, mailoutbox, "alice@example.com")
    before = snapshot()
    with time_machine.travel(timezone.now() + timedelta(days=4)):
        page = english.get(link, follow=True).content.decode()
    assert "The password reset link was invalid" in page
    assert snapshot() == before


def test_a_reset_with_mismatched_passwords_changes_nothing(
    english: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player("alice", language="en")
    link = reset_link(english, mailoutbox, "alice@example.com")
    form_page = english.get(link, follow=True)
    before = snapshot()
    page = english.post(
        form_page.redirect_chain[-1][0], {"password1": GOOD_PASSWORD, "password2": "other-one-99"}
    ).content.decode()
    assert "You must type the same password each time." in page
    assert snapshot() == before
