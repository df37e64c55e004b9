"""`make mail-in`: the SMTP server that receives the replies to the turn emails."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from games.reply_address import mail_in_domain


class Command(BaseCommand):
    help = (
        "Receive the replies to the turn emails over SMTP on MAIL_IN_HOST:MAIL_IN_PORT, "
        "store each before answering 250, then play it (bymail/smtp.py)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=None, help="default: MAIL_IN_HOST")
        parser.add_argument("--port", type=int, default=None, help="default: MAIL_IN_PORT")
        parser.add_argument(
            "--store-only",
            action="store_true",
            help="only store and acknowledge; the sweep (bymail.sweep) processes",
        )
        parser.add_argument(
            "--sweep",
            action="store_true",
            help="process the stored messages left unprocessed, then exit",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["sweep"]:
            from bymail.process import inbound_sweep

            done = inbound_sweep(after_seconds=0)
            self.stdout.write(f"{done} stored message(s) processed")
            return
        from bymail.process import inbound_sweep
        from bymail.smtp import controller

        # What a previous run stored and did not process (a crash) goes first.
        inbound_sweep(after_seconds=0)
        server = controller(options["host"], options["port"], store_only=options["store_only"])
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        server.start()
        self.stdout.write(
            f"mail-in: SMTP on {server.hostname}:{server.port} for reply+…@"
            f"{mail_in_domain()}; Ctrl-C to stop",
        )
        if not settings.MAIL_IN_ENABLED:
            self.stdout.write(
                "mail-in: MAIL_IN_ENABLED is off, so the turn emails ask for no reply; "
                "set MAIL_IN_ENABLED=1 for the site (README, play by email)"
            )
        self.stdout.flush()
        try:
            stop.wait()
        finally:
            server.stop()
