"""Mark the events written skipped for the digest before it claimed them (#35 review).

Until now a digest listed the rows skipped with the reason "the player reads the
daily digest instead" written since the recipient's previous digest; it now lists
the rows marked waiting in their context (``notifications.services.DIGEST_MARK``),
and marks them told when it is sent. The rows of before are marked waiting when no
digest was sent to their recipient after them (a digest sent after one told it,
under the old rule), and they are at most 14 days old (older ones the digest would
not tell anyway: ``DIGEST_MAX_AGE``). Going back leaves the marks (the old code
ignores them).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import migrations
from django.db.models import Max
from django.utils import timezone

DIGEST_REASON = "the player reads the daily digest instead"
LINE_KINDS = ("invitation", "game-started", "game-over", "timeout", "annulled")


def mark_waiting(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    old = Notification.objects.filter(
        channel="email",
        kind__in=LINE_KINDS,
        status="skipped",
        reason=DIGEST_REASON,
        created_at__gte=timezone.now() - timedelta(days=14),
    )
    last_sent = dict(
        Notification.objects.filter(
            kind="digest", status="sent", recipient_id__in=old.values("recipient_id")
        )
        .values("recipient_id")
        .annotate(last=Max("created_at"))
        .values_list("recipient_id", "last")
    )
    for row in old.iterator():
        if "digest" in row.context:
            continue
        sent = last_sent.get(row.recipient_id)
        if sent is not None and row.created_at < sent:
            continue
        row.context = {**row.context, "digest": "waiting"}
        row.save(update_fields=["context"])


class Migration(migrations.Migration):
    dependencies = [("notifications", "0010_push_subscriptions")]

    operations = [migrations.RunPython(mark_waiting, migrations.RunPython.noop)]
