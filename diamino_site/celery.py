"""The Celery application: configured from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "diamino_site.settings")

app = Celery("diamino_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def map_the_dawg(**_: object) -> None:
    """Map the move generator's DAWG in the worker's parent, before it forks its
    pool: the pool processes inherit the mapping and share its pages (rules/dawg.py)."""
    from rules.dawg import warm

    warm()


@app.task(name="diamino_site.ping")
def ping(value: str) -> str:
    """Echo: lets /healthz and the tests see a task make the round trip."""
    return value
