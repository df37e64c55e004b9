"""The site's Redis transport (diamino_site/broker.py): kombu's, one client per channel."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from diamino_site.celery import app
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


def test_tasks_published_through_the_sites_transport_reach_the_queue_in_order(site) -> None:
    from notifications.tasks import send_notification

    with app.connection_for_write() as connection:
        assert type(connection.transport).__name__ == "RedisTransport"
    for notification_id in (11, 12, 13):
        send_notification.apply_async((notification_id,))
    assert _queued(3) == [("notifications.send", [n]) for n in (11, 12, 13)]
