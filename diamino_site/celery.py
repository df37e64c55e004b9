"""The Celery application: configured from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "diamino_site.settings")

# QuickFailTask: a broker that hangs never holds a page up (diamino_site/broker.py).
app = Celery("diamino_site", task_cls="diamino_site.broker:QuickFailTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="diamino_site.ping")
def ping(value: str) -> str:
    """Echo: lets /healthz and the tests see a task make the round trip."""
    return value
