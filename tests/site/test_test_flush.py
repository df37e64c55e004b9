"""The test run's ``flush`` (tests/management/commands/flush.py) leaves what Django's leaves."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.contrib.sites.models import Site
from django.core.management import call_command
from django.db import connection

from games import services
from tests.factories import make_player


def rows_per_table() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.django_table_names(only_existing=True):
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


@pytest.mark.django_db(transaction=True)
def test_after_a_flush_only_what_post_migrate_writes_is_left() -> None:
    camille, hugo = make_player("camille"), make_player("hugo")
    game = services.game_create(creator=camille, mode="marque", seats=2)
    services.game_join(game_id=game.pk, player=hugo)
    Site.objects.update(domain="changed.example", name="changed")
    permissions, content_types = Permission.objects.count(), ContentType.objects.count()
    filled = {table for table, count in rows_per_table().items() if count}
    assert {"accounts_user", "games_game", "games_seat"} <= filled

    call_command("flush", verbosity=0, interactive=False, reset_sequences=False)

    left = {table: count for table, count in rows_per_table().items() if count}
    assert set(left) == {"django_content_type", "auth_permission", "django_site"}, left
    assert (Permission.objects.count(), ContentType.objects.count()) == (
        permissions,
        content_types,
    )
    site = Site.objects.get()
    assert (site.domain, site.name) == ("example.com", "example.com")  # post_migrate's default


@pytest.mark.django_db(transaction=True)
def test_without_post_migrate_the_default_site_is_not_put_back() -> None:
    call_command(
        "flush", verbosity=0, interactive=False, reset_sequences=False, inhibit_post_migrate=True
    )
    assert not Site.objects.exists()
