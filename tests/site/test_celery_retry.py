"""Celery tasks that meet a lost database connection run again later instead of being lost."""

from __future__ import annotations

import pytest
from django.db import InterfaceError, OperationalError

from infra.celery import app
from notifications import periodic
from notifications.tasks import sweep_outbox


def test_every_task_of_the_site_retries_on_a_lost_connection() -> None:
    app.loader.import_default_modules()
    ours = [t for name, t in app.tasks.items() if not name.startswith("celery.")]
    assert {"notifications.send", "notifications.sweep", "games.bot_move"} <= {t.name for t in ours}
    for task in ours:
        # celery-types' Task has no autoretry_for nor retry_backoff (set by @app.task's options).
        assert {OperationalError, InterfaceError} <= set(task.autoretry_for), task.name  # type: ignore[attr-defined]
        assert task.max_retries is not None, task.name
        assert task.retry_backoff and task.max_retries >= 5, task.name  # type: ignore[attr-defined]


@pytest.mark.parametrize("lost", [OperationalError, InterfaceError])
def test_a_task_whose_connection_is_lost_runs_again(lost, monkeypatch) -> None:
    calls = []

    def sweep() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise lost("server closed the connection unexpectedly")
        return 0

    monkeypatch.setattr(periodic, "sweep", sweep)
    # Eager, the retry runs at once, where a worker would wait 2 s.
    result = sweep_outbox.apply(throw=False)
    assert len(calls) == 2
    assert result.successful() and result.get() == 0


def test_another_error_is_not_retried(monkeypatch) -> None:
    calls = []

    def sweep() -> int:
        calls.append(1)
        raise ValueError("a bug")

    monkeypatch.setattr(periodic, "sweep", sweep)
    with pytest.raises(ValueError):
        sweep_outbox.apply()
    assert len(calls) == 1
