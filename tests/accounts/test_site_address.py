"""Emails link to the address the site is served on, and call it by its name."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core import mail
from django.urls import reverse

from accounts.emails import build_email
from tests.factories import make_player

ROOT = Path(__file__).resolve().parents[2]


def dry_run(*args: str, **env: str) -> str:
    """The commands ``make`` would run, without running them."""
    environ = {k: v for k, v in os.environ.items() if k not in ("SITE_URL", "HOST", "PORT")}
    result = subprocess.run(
        ["make", "-n", *args],
        cwd=ROOT,
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@needs_make
def test_make_run_on_another_port_gives_the_site_that_address():
    commands = dry_run("run", "PORT=8101")
    assert re.search(
        r"SITE_URL='http://127\.0\.0\.1:8101' \S+ manage\.py runserver 127\.0\.0\.1:8101", commands
    )


@needs_make
def test_make_run_keeps_a_site_url_that_is_set():
    commands = dry_run("run", "PORT=8101", SITE_URL="https://diamino.example")
    assert "SITE_URL='https://diamino.example'" in commands
    assert "8101'" not in commands


@needs_make
def test_the_worker_and_beat_link_emails_to_the_same_address():
    for target in ("worker", "beat"):
        assert "SITE_URL='http://127.0.0.1:8101'" in dry_run(target, "PORT=8101")


@pytest.mark.django_db
def test_the_sign_up_email_names_the_site_and_links_to_where_it_is_served(client, settings):
    settings.SITE_URL = "http://127.0.0.1:8101"
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    client.post(
        reverse("account_signup"),
        {
            "username": "alice",
            "email": "alice@example.com",
            "password1": "tuile-verte-1964",
            "password2": "tuile-verte-1964",
        },
        HTTP_HOST="127.0.0.1:8101",
    )
    (message,) = mail.outbox
    assert "Diamino" in message.body
    assert "127.0.0.1:8101" in message.body
    assert "8000" not in message.body


@pytest.mark.django_db
def test_a_configured_site_name_is_used_in_the_sign_up_email(client, settings):
    settings.SITE_NAME = "Club Diamino de Lyon"
    client.post(
        reverse("account_signup"),
        {
            "username": "alice",
            "email": "alice@example.com",
            "password1": "tuile-verte-1964",
            "password2": "tuile-verte-1964",
        },
    )
    assert "Club Diamino de Lyon" in mail.outbox[0].body


@pytest.mark.django_db
def test_game_emails_link_to_the_site_url(settings, sample_email_templates):
    settings.SITE_URL = "http://127.0.0.1:8101"
    alice = make_player("alice")
    message = build_email(alice, "sample", {}, kind="turn")
    assert "http://127.0.0.1:8101/" in message.body
    assert "8000" not in message.body + message.extra_headers["List-Unsubscribe"]


@pytest.mark.django_db
@pytest.mark.parametrize("flow", ["signup", "reset", "unknown"])
def test_account_links_follow_site_url_behind_a_proxy_that_sends_its_own_host(
    client, settings, flow: str
):
    """nginx's default proxy_pass sends Host: 127.0.0.1:8000; the links must still work."""
    settings.SITE_URL = "https://diamino.example"
    settings.ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = True
    proxy = {"HTTP_HOST": "127.0.0.1:8000"}
    if flow == "signup":
        client.post(
            reverse("account_signup"),
            {
                "username": "alice",
                "email": "alice@example.com",
                "password1": "tuile-verte-1964",
                "password2": "tuile-verte-1964",
            },
            **proxy,
        )
    else:
        if flow == "reset":
            make_player("alice")
        client.post(reverse("account_reset_password"), {"email": "alice@example.com"}, **proxy)
    body = mail.outbox[-1].body
    assert isinstance(body, str)
    links = re.findall(r"https?://\S+", body)
    assert links, body
    assert all(link.startswith("https://diamino.example/") for link in links), links
    assert "127.0.0.1:8000" not in body
