"""Tasks queued with Redis as the broker: kombu's Redis transport, in order, TLS with rediss://."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from infra.celery import app
from tests.faults.redis_server import (  # noqa: F401 (fixtures)
    RedisServer,
    redis_server,
    site_on_private_redis,
)


@pytest.fixture
def site(site_on_private_redis: RedisServer) -> Iterator[RedisServer]:  # noqa: F811
    yield site_on_private_redis


def _queued(count: int) -> list[tuple[str, list[int]]]:
    """The next ``count`` task messages waiting in the queue, as a worker reads them."""
    found = []
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue("celery", no_ack=True)
        for _ in range(count):
            message = queue.get(timeout=2)
            found.append((message.headers["task"], message.payload[0]))
        queue.close()
    return found


def test_queued_tasks_reach_the_queue_in_order(site) -> None:
    from notifications.tasks import send_notification

    for notification_id in (11, 12, 13):
        send_notification.delay(notification_id)
    assert _queued(3) == [("notifications.send", [n]) for n in (11, 12, 13)]


def _broker_with(redis_url: str) -> dict[str, str]:
    """The broker connection Celery makes under the settings for ``redis_url`` (a fresh process)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DIAMINO_")) and k not in ("REDIS_URL", "DATABASE_URL")
    }
    script = (
        "import json, django; django.setup(); from infra.celery import app; "
        "c = app.connection_for_write(); "
        "print(json.dumps({'transport': c.transport_cls, 'ssl': bool(c.ssl)}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[2],
        env={**clean, "DJANGO_SETTINGS_MODULE": "diamino_site.settings", "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_plain_redis_broker_connects_in_clear() -> None:
    assert _broker_with("redis://127.0.0.1:6379/0") == {"transport": "redis", "ssl": False}


def test_a_tls_redis_broker_connects_with_tls() -> None:
    assert _broker_with("rediss://127.0.0.1:6380/0") == {"transport": "rediss", "ssl": True}
