"""The log-in limit stops a stranger guessing without locking the owner out."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, make_player

pytestmark = pytest.mark.django_db

TOO_MANY = "Too many failed login attempts"


def from_address(address: str) -> Client:
    client = Client(REMOTE_ADDR=address)
    client.post(reverse("set_language"), {"language": "en"})
    return client


def log_in(client: Client, password: str) -> str:
    return client.post(
        reverse("account_login"), {"login": "alice", "password": password}
    ).content.decode()


def test_a_strangers_failed_attempts_do_not_stop_the_owner_from_another_address() -> None:
    make_player("alice")
    stranger = from_address("203.0.113.9")
    for _ in range(5):
        assert TOO_MANY not in log_in(stranger, "guess")
    owner = from_address("198.51.100.4")
    assert TOO_MANY not in log_in(owner, PASSWORD)
    assert get_user(owner).is_authenticated


def test_the_stranger_is_stopped_even_with_the_right_password() -> None:
    make_player("alice")
    stranger = from_address("203.0.113.9")
    for _ in range(5):
        log_in(stranger, "guess")
    assert TOO_MANY in log_in(stranger, PASSWORD)
    assert not get_user(stranger).is_authenticated


def test_one_address_guessing_many_accounts_is_stopped_by_the_per_address_limit() -> None:
    for name in ("alice", "bruno", "chloe"):
        make_player(name)
    stranger = from_address("203.0.113.9")
    pages = [
        stranger.post(reverse("account_login"), {"login": name, "password": "guess"})
        for name in ("alice", "bruno", "chloe") * 4
    ]
    assert TOO_MANY in pages[-1].content.decode()  # ten a minute per address, whatever the account
