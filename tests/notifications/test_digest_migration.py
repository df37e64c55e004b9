"""Migration 0011: the events skipped for the digest before it claimed them are kept for it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from notifications.models import Notification
from tests.factories import make_player

BEFORE = [("notifications", "0010_push_subscriptions")]
AFTER = [("notifications", "0011_digest_events_waiting")]
DIGEST_REASON = "the player reads the daily digest instead"


@pytest.mark.django_db(transaction=True)
def test_events_of_before_wait_for_the_digest_unless_a_digest_sent_after_them_told_them() -> None:
    bob = make_player("bob")
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps.get_model("notifications", "Notification")
    now = timezone.now()

    def row(key: str, age: timedelta, kind: str = "invitation", **fields: object) -> int:
        fields = {"status": "skipped", "reason": DIGEST_REASON, **fields}
        pk = old.objects.create(recipient_id=bob.pk, kind=kind, key=key, **fields).pk
        old.objects.filter(pk=pk).update(created_at=now - age)
        return pk

    told = row("told", timedelta(days=2))
    row("digest", timedelta(days=1), kind="digest", status="sent", reason="")
    waiting = row("waiting", timedelta(hours=1), kind="game-over")
    too_old = row("too-old", timedelta(days=20))
    turned_off = row("off", timedelta(hours=1), reason="turned off in the player's settings")
    executor.loader.build_graph()
    executor.migrate(AFTER)

    marks = {
        pk: Notification.objects.get(pk=pk).context.get("digest")
        for pk in (told, waiting, too_old, turned_off)
    }
    assert marks == {told: None, waiting: "waiting", too_old: None, turned_off: None}
    # And back: the marks stay, the old code reads none of them.
    executor.loader.build_graph()
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    assert Notification.objects.get(pk=waiting).context == {"digest": "waiting"}
