"""The home page and /healthz answer."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.db import DatabaseError
from django.test import Client

from tests.factories import page_language
from tests.faults.postgres_server import ROOT, site_env
from tests.faults.redis_server import RedisServer, redis_server  # noqa: F401 (fixture)
from tests.ports import free_port


@pytest.mark.django_db
def test_home_page_answers_in_french_by_default(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert page_language(html) == "fr"
    assert "hx-headers" in html and "X-CSRFToken" in html


@pytest.mark.django_db
def test_home_page_answers_in_english_when_asked(client: Client) -> None:
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert page_language(response.content.decode()) == "en"


@pytest.mark.django_db
def test_healthz_reports_database_and_broker(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True


@pytest.mark.django_db
def test_healthz_says_503_when_the_database_fails(client: Client, monkeypatch) -> None:
    from django.db.backends.utils import CursorWrapper

    def broken(*args, **kwargs):
        raise DatabaseError("down")

    monkeypatch.setattr(CursorWrapper, "execute", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == {"ok": False, "detail": "DatabaseError"}


@pytest.mark.django_db
def test_healthz_says_503_when_the_broker_is_unreachable(client: Client, settings) -> None:
    from infra.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    previous = app.conf.broker_url
    # celery-types declares broker_url a read-only property; Celery's conf sets it.
    app.conf.broker_url = "redis://127.0.0.1:1/0"  # type: ignore[misc]  # nothing listens on port 1
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = previous  # type: ignore[misc]
    assert response.status_code == 503
    assert response.json()["broker"]["ok"] is False


@pytest.mark.django_db
def test_the_favicon_is_served_at_the_root_and_as_svg(client: Client) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/x-icon"
    # The test client's response is typed an HttpResponse; this view's is a FileResponse.
    assert b"".join(icon.streaming_content)[:4] == b"\x00\x00\x01\x00"  # type: ignore[attr-defined]  # an ICO header
    html = client.get("/").content.decode()
    hrefs = re.findall(r'<link rel="icon" href="([^"]+)"', html)
    assert hrefs[0] == "/favicon.ico" and hrefs[1].endswith("favicon.svg")
    # The test client does not serve /static/ (runserver or WhiteNoise's manifest do): the file is there.
    assert finders.find(hrefs[1].split("/static/", 1)[1])


# An uptime checker gives up after about 2 s; /healthz must name the fault before that.
QUICK = 1.5


@pytest.mark.django_db
def test_healthz_names_a_hanging_redis_within_a_second_and_a_half(
    client: Client,
    settings,
    redis_server: RedisServer,  # noqa: F811 (the fixture imported above)
) -> None:
    from infra.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    previous = app.conf.broker_url
    app.conf.broker_url = redis_server.url  # type: ignore[misc]  # as in the test above
    try:
        assert client.get("/healthz").status_code == 200  # the broker answers
        redis_server.hang()  # SIGSTOP: connections are accepted and never answered
        start = time.monotonic()
        response = client.get("/healthz")
        took = time.monotonic() - start
    finally:
        redis_server.resume()
        app.conf.broker_url = previous  # type: ignore[misc]
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["broker"] == {"ok": False, "detail": "TimeoutError"}
    assert body["database"]["ok"] is True
    assert took < QUICK, f"/healthz took {took:.2f} s with Redis frozen"


HEALTH_IN_A_FRESH_PROCESS = """
import json, time
import django
django.setup()
from django.test import Client
client = Client()
client.get("/robots.txt")  # the first request's imports, as in a worker already serving
start = time.monotonic()
response = client.get("/healthz")
print(json.dumps({"status": response.status_code, "body": response.json(),
                  "took": time.monotonic() - start}))
"""


def _healthz_on(database_url: str, data_dir: Path) -> dict:
    """/healthz in a process of its own whose database is ``database_url``."""
    env = site_env(database_url, data_dir, DJANGO_ALLOWED_HOSTS="testserver")
    done = subprocess.run(
        [sys.executable, "-c", HEALTH_IN_A_FRESH_PROCESS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_healthz_names_an_unreachable_postgresql_within_a_second_and_a_half(
    tmp_path: Path,
) -> None:
    # A "server" that never answers: the kernel completes the TCP handshake on a
    # listening socket nobody accepts from, and the connection waits there, as
    # with a frozen PostgreSQL or a host behind a firewall that holds packets.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        answer = _healthz_on(f"postgres://postgres@127.0.0.1:{port}/diamino", tmp_path)
    assert answer["status"] == 503
    assert answer["body"]["database"]["ok"] is False
    assert answer["body"]["database"]["detail"] == "no answer within 1 s"
    assert answer["took"] < QUICK, f"/healthz took {answer['took']:.2f} s"

    refused = _healthz_on(f"postgres://postgres@127.0.0.1:{free_port()}/diamino", tmp_path)
    assert refused["status"] == 503
    assert refused["body"]["database"] == {"ok": False, "detail": "OperationalError"}
    assert refused["took"] < QUICK
