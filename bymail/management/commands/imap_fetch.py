"""`manage.py imap_fetch`: fetch the replies in MAIL_IN_IMAP_URL's mailbox once, then exit.

What the periodic task ``bymail.imap_fetch`` does, for a site without a beat
(the embedded default: a cron line) or by hand. Safe to run beside the beat's
fetch, and again after one was killed: each message is stored once and
played once (``bymail/imap.py``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = (
        "Fetch the unseen messages of MAIL_IN_IMAP_URL's mailbox: store each, play it, "
        "then flag it seen (bymail/imap.py)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--store-only",
            action="store_true",
            help="only store and flag the messages; the sweep (bymail.sweep) processes",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from bymail.imap import fetch

        if not settings.MAIL_IN_IMAP_URL:
            raise CommandError("MAIL_IN_IMAP_URL is not set: no mailbox to fetch")
        new = fetch(settings.MAIL_IN_IMAP_URL, queue=not options["store_only"])
        self.stdout.write(f"{new} new message(s) stored")
