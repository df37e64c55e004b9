"""The home page and /healthz answer."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.db import DatabaseError
from django.test import Client


@pytest.mark.django_db
def test_home_page_answers_in_french_by_default(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="fr">' in html
    assert "hx-headers" in html and "X-CSRFToken" in html


@pytest.mark.django_db
def test_home_page_answers_in_english_when_asked(client: Client) -> None:
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert '<html lang="en">' in response.content.decode()


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
    from diamino_site.celery import app

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
