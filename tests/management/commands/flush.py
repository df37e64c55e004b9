"""``flush`` for the test run: the tables that hold rows emptied, and only those.

pytest-django empties the database after each transactional test (the browser
tests, those with a live server, a real worker or two processes: about 300)
with Django's ``flush``: a TRUNCATE of every table, then ``post_migrate``,
which writes the content types, the permissions and the default site back.
On PostgreSQL that cost about half a second a test (a TRUNCATE gives each
table and index new files, and post_migrate inserts some 150 rows again).

This one, found before Django's own because the app is installed (Django's
documented "overriding commands"), leaves the database as Django's would: one
query finds the tables that hold rows, one transaction DELETEs them (Django's
foreign keys are checked at the commit, so the order does not matter), and
``post_migrate`` is sent by the function Django's flush calls, which puts back
what it owns.
The content types and the permissions are not deleted, as post_migrate would
write the same rows again: only their ids stay (no test reads them). The
sequences are not reset, as with Django's ``flush`` in a test; asked by hand
(``manage.py flush``, which asks and resets them), it is Django's own.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.core.management.sql import emit_post_migrate_signal
from django.db import connections, transaction

# Filled by post_migrate with the same rows whatever the test did.
KEPT = frozenset({"django_content_type", "auth_permission"})


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        if options["interactive"] or options.get("reset_sequences", True):
            super().handle(**options)  # by hand (it asks, and resets the sequences): Django's own
            return
        database = options["database"]
        connection = connections[database]
        tables = [
            table
            for table in connection.introspection.django_table_names(
                only_existing=True, include_views=False
            )
            if table not in KEPT
        ]
        quote = connection.ops.quote_name
        with transaction.atomic(using=database), connection.cursor() as cursor:
            cursor.execute(
                " UNION ALL ".join(
                    f"SELECT %s WHERE EXISTS (SELECT 1 FROM {quote(table)})" for table in tables
                ),
                tables,
            )
            for (table,) in cursor.fetchall():
                cursor.execute(f"DELETE FROM {quote(table)}")
        if not options.get("inhibit_post_migrate"):
            emit_post_migrate_signal(options["verbosity"], False, database)  # as Django's flush
