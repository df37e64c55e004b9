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
        "import json, django; django.setup(); from diamino_site.celery import app; "
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


def test_a_plain_redis_broker_goes_through_the_sites_transport() -> None:
    assert _broker_with("redis://127.0.0.1:6379/0") == {
        "transport": "diamino_site.broker:RedisTransport",
        "ssl": False,
    }


def test_a_tls_redis_broker_keeps_kombus_tls_transport() -> None:
    # kombu turns TLS on only for its own "rediss" transport: ours would connect in clear.
    assert _broker_with("rediss://127.0.0.1:6380/0") == {"transport": "rediss", "ssl": True}


def _raw_messages() -> list[dict]:
    """Every message waiting in the queue, oldest first, as the transport wrote it."""
    import json

    with app.connection_for_write() as connection:
        client = connection.default_channel.client  # type: ignore[attr-defined]  # kombu's Redis channel, not in its stubs
        return [json.loads(raw) for raw in reversed(client.lrange("celery", 0, -1))]


def _without_ids(message: dict) -> dict:
    headers = {k: v for k, v in message["headers"].items() if k not in ("id", "root_id")}
    properties = {
        k: v
        for k, v in message["properties"].items()
        if k not in ("correlation_id", "delivery_tag")
    }
    return {**message, "headers": headers, "properties": properties}


@pytest.fixture
def celery_calls(monkeypatch) -> list[str]:
    """The tasks Celery itself made a message for (``send_task``), by name."""
    made: list[str] = []
    send_task = app.send_task

    def counting(name, *args, **kwargs):
        made.append(name)
        return send_task(name, *args, **kwargs)

    monkeypatch.setattr(app, "send_task", counting)
    return made


def test_a_plain_call_after_the_first_sends_the_message_celery_would_make(
    site, celery_calls
) -> None:
    from celery.app.task import Task

    from notifications.tasks import send_notification

    first = send_notification.apply_async((21,))  # Celery makes it; the transport keeps it
    second = send_notification.apply_async((22,))  # the kept message, for 22
    assert celery_calls == ["notifications.send"]
    Task.apply_async(send_notification, (22,))  # Celery's own message for the same call
    made_first, copy, by_celery = _raw_messages()
    assert _without_ids(copy) == _without_ids(by_celery)
    assert copy["headers"]["id"] == second.id != first.id
    assert copy["headers"]["root_id"] == copy["properties"]["correlation_id"] == second.id
    assert len({m["properties"]["delivery_tag"] for m in (made_first, copy, by_celery)}) == 3
    assert copy["headers"]["argsrepr"] == "(22,)"
    assert _queued(3) == [("notifications.send", [n]) for n in (21, 22, 22)]


def test_a_call_with_options_or_other_arguments_is_made_by_celery(site, celery_calls) -> None:
    from notifications.tasks import send_notification

    send_notification.apply_async((31,))
    send_notification.apply_async((32,), countdown=30)
    send_notification.apply_async((33,), expires=60)
    send_notification.apply_async(("34",))
    send_notification.apply_async((), {"notification_id": 35})
    assert celery_calls == ["notifications.send"] * 5
    queued = _raw_messages()
    assert queued[1]["headers"]["eta"] is not None
    assert queued[2]["headers"]["expires"] is not None
    send_notification.apply_async((36,))  # the plain copy was kept: not the ones with options
    assert len(celery_calls) == 5
    assert _raw_messages()[-1]["headers"]["eta"] is None


def test_a_first_call_with_options_is_never_the_copy_of_a_plain_one(site, celery_calls) -> None:
    from celery.app.task import Task

    from notifications.tasks import send_notification

    send_notification.apply_async((51,), priority=9, shadow="other", headers={"x-tenant": "a"})
    send_notification.apply_async((52,))  # Celery again: the first call was not plain
    send_notification.apply_async((53,))  # the copy of the plain one
    assert len(celery_calls) == 2
    Task.apply_async(send_notification, (53,))
    *_, copy, by_celery = _raw_messages()
    assert _without_ids(copy) == _without_ids(by_celery)
    assert copy["headers"]["shadow"] is None and "x-tenant" not in copy["headers"]


def test_a_call_from_inside_a_task_names_its_parent(site, celery_calls) -> None:
    from celery._state import _task_stack  # type: ignore[attr-defined]  # Celery's own, not in its stubs

    from notifications.tasks import send_notification

    send_notification.apply_async((61,))  # a copy is kept for this thread
    # A request as a worker pushes it: celery-types' push_request takes no fields.
    send_notification.push_request(id="the-parent", root_id="the-root", called_directly=False)  # type: ignore[call-arg]
    _task_stack.push(send_notification)  # as a worker runs a task
    try:
        send_notification.apply_async((62,))
    finally:
        _task_stack.pop()
        send_notification.pop_request()
    assert len(celery_calls) == 2
    inner = _raw_messages()[-1]["headers"]
    assert (inner["parent_id"], inner["root_id"]) == ("the-parent", "the-root")


def test_with_a_wrapper_of_apply_async_every_call_is_made_by_celery(
    site, celery_calls, monkeypatch
) -> None:
    """Sentry's Celery integration wraps ``Task.apply_async`` to add each call's trace."""
    import functools
    import itertools

    from celery.app.task import Task

    from notifications.tasks import send_notification

    traces = itertools.count(1)
    original = Task.apply_async

    @functools.wraps(original)
    def traced(self, args=None, kwargs=None, **options):
        options["headers"] = {**(options.get("headers") or {}), "trace": next(traces)}
        return original(self, args, kwargs, **options)

    monkeypatch.setattr(Task, "apply_async", traced)
    for n in (71, 72, 73):
        send_notification.apply_async((n,))
    assert len(celery_calls) == 3
    assert [m["headers"]["trace"] for m in _raw_messages()] == [1, 2, 3]


def test_a_copy_checks_the_arguments_as_celery_does(site) -> None:
    from notifications.tasks import send_notification

    send_notification.apply_async((81,))
    with pytest.raises(TypeError):
        send_notification.apply_async((81, 82, 83))
    assert _queued(1) == [("notifications.send", [81])]
