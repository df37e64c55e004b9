from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import connection

TEST_TEMPLATES = Path(__file__).parent / "templates"


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> None:
    """allauth counts attempts in the cache; local-memory caches outlive a test."""
    cache.clear()


@pytest.fixture
def sample_email_templates(settings) -> None:
    """An email triple that exists only for tests, built on the real base templates."""
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], TEST_TEMPLATES]}
    ]


@pytest.fixture(autouse=True)
def requests_commit() -> Iterator[None]:
    """Each request's on-commit callbacks run when it ends, as its commit would run them.

    allauth's emails are outbox rows whose sending is queued on commit
    (``notifications/account_emails.py``); the test's transaction never commits, so without
    this no email would leave during the test.
    """

    def run_pending(**kwargs) -> None:
        pending, connection.run_on_commit = connection.run_on_commit, []
        # django-stubs says 2-tuples; Django 5 keeps (savepoints, callback, robust).
        for _savepoints, callback, _robust in pending:  # type: ignore[misc]
            callback()

    request_finished.connect(run_pending, dispatch_uid="tests.accounts.requests_commit")
    yield
    request_finished.disconnect(dispatch_uid="tests.accounts.requests_commit")
