"""Errors reported: to the log with the request id, to ADMINS by email, to Sentry without personal data."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.core import mail
from django.test import Client

from diamino_site.env import env_addresses
from monitoring.errors import before_send
from tests.site.processes import python_run, settings_of

if TYPE_CHECKING:
    from sentry_sdk.types import Event

pytestmark = pytest.mark.django_db

HAND = "EIUAZKW"
EMAIL = "bob.secret@example.com"


@pytest.fixture
def broken_home(monkeypatch) -> None:
    """The home page fails with a message naming a player's address."""

    def boom(*args, **kwargs):
        raise RuntimeError(f"could not greet {EMAIL}")

    monkeypatch.setattr("diamino_site.views.render", boom)


def test_every_response_has_a_request_id(client: Client) -> None:
    first, second = client.get("/healthz"), client.get("/healthz")
    assert len(first["X-Request-ID"]) == 32
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_the_proxys_request_id_is_kept_and_a_strange_one_replaced(client: Client) -> None:
    given = "6f2c1a9e-proxy-id"
    assert client.get("/healthz", HTTP_X_REQUEST_ID=given)["X-Request-ID"] == given
    strange = "<script>alert(1)</script>"
    assert client.get("/healthz", HTTP_X_REQUEST_ID=strange)["X-Request-ID"] != strange


def test_an_error_goes_to_the_log_with_its_request_id(broken_home, site_log) -> None:
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    request_id = response["X-Request-ID"]
    assert f"ERROR [{request_id}] django.request: Internal Server Error: /" in site_log.getvalue()
    assert "RuntimeError: could not greet" in site_log.getvalue()


def test_a_log_line_outside_a_request_has_no_id(site_log) -> None:
    logging.getLogger("games").warning("between requests")
    assert "WARNING [-] games: between requests" in site_log.getvalue()


def test_admins_get_an_email_for_an_error_with_debug_off(broken_home, settings) -> None:
    settings.DEBUG = False
    settings.ADMINS = [("Ops", "ops@example.com")]
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["ops@example.com"]
    assert "Internal Server Error: /" in mail.outbox[0].subject


def test_admins_are_read_from_the_environment() -> None:
    assert settings_of("ADMINS", {"ADMINS": "Ops <ops@example.com>, b@example.com"}) == [
        "[('Ops', 'ops@example.com'), ('', 'b@example.com')]"
    ]
    assert settings_of("ADMINS", {}) == ["[]"]


def test_env_addresses_refuses_what_is_not_an_address() -> None:
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="ADMINS must be comma-separated addresses"):
        env_addresses("ADMINS", environ={"ADMINS": "Ops <ops>, b@example.com"})


def test_before_send_keeps_the_page_and_drops_what_was_sent_and_who_sent_it() -> None:
    event: Event = {
        "message": f"failed for {EMAIL}",
        "request": {
            "url": "http://testserver/parties/3/",
            "method": "POST",
            "data": {"tiles": HAND},
            "cookies": {"sessionid": "s3ss10n"},
            "headers": {"Cookie": "sessionid=s3ss10n", "User-Agent": "Firefox"},
        },
        "user": {"id": 7, "email": EMAIL, "ip_address": "10.0.0.1"},
        "extra": {"seat": {"hand": HAND, "score": 12}},
        "breadcrumbs": {"values": [{"message": f"mail to {EMAIL}", "data": {"to": [EMAIL]}}]},
    }
    sent = json.dumps(before_send(event, {}))
    for private in (EMAIL, HAND, "s3ss10n", "10.0.0.1"):
        assert private not in sent
    kept = json.loads(sent)
    assert kept["request"] == {
        "url": "http://testserver/parties/3/",
        "method": "POST",
        "headers": {"User-Agent": "Firefox"},
    }
    assert kept["user"] == {"id": 7}
    assert kept["extra"]["seat"]["score"] == 12


# A log-in that fails deep inside, with a hand and the player's address in its frame,
# posted to the WSGI application as gunicorn would (Sentry reads the page from WSGI).
# The private values come from the environment: Python 3.13 shows a ``-c`` script's
# source in its tracebacks, and a frame's source lines are code, not data.
SITE_WITH_A_FAILING_LOGIN = """
import io, os, sentry_sdk, wsgiref.util
from django.core.management import call_command
from diamino_site.wsgi import application
from allauth.account.adapter import DefaultAccountAdapter

call_command("migrate", verbosity=0)
private = {name: os.environ["PRIVATE_" + name] for name in ("HAND", "EMAIL", "PASSWORD", "COOKIE")}

def authenticate(self, request, **credentials):
    hand = private["HAND"]
    tiles = list(hand)
    raise RuntimeError("no log-in for " + credentials.get("email", ""))

DefaultAccountAdapter.authenticate = authenticate
body = ("login=" + private["EMAIL"] + "&password=" + private["PASSWORD"]).encode()
csrf = "k" * 32
environ = {
    "REQUEST_METHOD": "POST",
    "PATH_INFO": "/accounts/login/",
    "QUERY_STRING": "next=/parties/&email=" + private["EMAIL"],
    "CONTENT_TYPE": "application/x-www-form-urlencoded",
    "CONTENT_LENGTH": str(len(body)),
    "HTTP_COOKIE": "sessionid=" + private["COOKIE"] + "; csrftoken=" + csrf,
    "HTTP_X_CSRFTOKEN": csrf,
    "REMOTE_ADDR": "203.0.113.9",
    "wsgi.input": io.BytesIO(body),
}
wsgiref.util.setup_testing_defaults(environ)
answer = {}

def start_response(status, headers, exc_info=None):
    answer.update(status=status.split()[0], **dict(headers))

b"".join(application(environ, start_response))
sentry_sdk.flush(timeout=10)
print(answer["status"], answer["X-Request-ID"])
"""
PRIVATE = {
    "PRIVATE_HAND": HAND,
    "PRIVATE_EMAIL": EMAIL,
    "PRIVATE_PASSWORD": "correct-horse-battery",
    "PRIVATE_COOKIE": "s3ss10n-cookie",
}


def test_sentry_gets_the_error_without_personal_data(
    sentry_endpoint: tuple[str, list[str]], tmp_path: Path
) -> None:
    dsn, received = sentry_endpoint
    result = python_run(
        SITE_WITH_A_FAILING_LOGIN,
        {"DIAMINO_DATA_DIR": str(tmp_path), "SENTRY_DSN": dsn, **PRIVATE},
    )
    status, request_id = result.stdout.split()
    assert status == "500", result.stderr
    everything = "\n".join(received)
    events = [
        json.loads(line) for text in received for line in text.splitlines() if '"exception"' in line
    ]
    assert len(events) == 1, everything
    event = events[0]
    assert event["exception"]["values"][-1]["type"] == "RuntimeError"
    assert event["exception"]["values"][-1]["value"] == "no log-in for [email]"
    assert event["request"]["url"] == "http://127.0.0.1/accounts/login/"
    assert event["request"]["method"] == "POST"
    assert event["tags"]["request_id"] == request_id
    for private in [*PRIVATE.values(), "203.0.113.9"]:
        assert private not in everything, private
