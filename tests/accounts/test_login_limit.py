"""The log-in limit stops a stranger guessing without locking the owner out."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user
from django.core import mail
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


def _visitor_address(env: dict[str, str]) -> str:
    """The address allauth's limits count for a request through a proxy, in a fresh process."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DIAMINO_"))}
    script = (
        "import django; django.setup(); "
        "from django.test import RequestFactory; "
        "from allauth.account.adapter import get_adapter; "
        "print(get_adapter().get_client_ip(RequestFactory().get('/', REMOTE_ADDR='10.0.0.1', "
        "HTTP_X_FORWARDED_FOR='203.0.113.7')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[2],
        env={**clean, "DJANGO_SETTINGS_MODULE": "diamino_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def test_behind_a_proxy_each_visitor_is_counted_by_their_own_address() -> None:
    # Without it every visitor is the proxy (10.0.0.1), and one stranger's failed
    # log-ins would stop everyone logging in.
    assert _visitor_address({"DJANGO_BEHIND_PROXY": "1"}) == "203.0.113.7"
    assert _visitor_address({}) == "10.0.0.1"  # no proxy: the header is not trusted


def test_a_password_reset_lets_the_owner_in_again_from_where_they_were_stopped(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    make_player("alice")
    owner = from_address("198.51.100.4")
    for _ in range(5):
        log_in(owner, "forgotten")
    assert TOO_MANY in log_in(owner, PASSWORD)
    owner.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    link = re.search(r"https?://\S*/accounts/password/reset/key/\S*", str(mailoutbox[-1].body))
    assert link is not None
    form_page = owner.get(link.group(0), follow=True)
    new = {"password1": "diable-rouge-2026", "password2": "diable-rouge-2026"}
    owner.post(form_page.redirect_chain[-1][0], new)
    assert TOO_MANY not in log_in(owner, "diable-rouge-2026")
    assert get_user(owner).is_authenticated
    stranger = from_address("203.0.113.9")  # the reset forgot the owner's address only
    for _ in range(5):
        log_in(stranger, "guess")
    assert TOO_MANY in log_in(stranger, "diable-rouge-2026")
