"""Display names that look like another player's name are removed, and their players told.

The rule of ``accounts/names.py`` holds from now on for every name saved; this
brings the names saved before it into line. A display name that looks like
another account's username goes, and of two look-alike display names the one
of the account that joined later goes (``display_name_collisions``). Removed,
not suffixed: "Alice 2" would still pass for Alice; the player is shown by
their username until they choose another name. Each is told by an email in the
outbox (an account email, rendered here in the player's language), which the
outbox's sweep sends.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations


def clear_look_alikes(apps: Any, schema_editor: Any) -> None:
    from accounts.names import display_name_cleared_email, display_name_collisions

    User = apps.get_model("accounts", "User")
    Notification = apps.get_model("notifications", "Notification")
    accounts = User.objects.order_by("date_joined", "pk").values_list(
        "pk", "username", "display_name", "bot_level"
    )
    cleared = display_name_collisions(
        (pk, username, display_name, bool(bot)) for pk, username, display_name, bot in accounts
    )
    for user in User.objects.filter(pk__in=cleared).order_by("pk"):
        old_name = user.display_name
        user.display_name = ""
        user.save(update_fields=["display_name"])
        if not user.email or user.deleted_at is not None:
            continue
        Notification.objects.get_or_create(
            key=f"account:display-name-cleared:{user.pk}",
            defaults={
                "recipient": user,
                "kind": "account",
                "context": display_name_cleared_email(
                    username=user.username,
                    email=user.email,
                    old_name=old_name,
                    language=user.language,
                ),
            },
        )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_play_by_email"),
        ("notifications", "0007_mail_answer_kind"),
    ]

    operations = [migrations.RunPython(clear_look_alikes, migrations.RunPython.noop)]
