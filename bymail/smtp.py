"""The SMTP server of `make mail-in` (aiosmtpd): replies stored, then acknowledged.

The site's mail server hands it the replies (a Postfix transport line, README).
It accepts only the reply addresses, ``reply+<token>@MAIL_IN_DOMAIN``, and the
no-reply address (``RCPT TO`` anything else: 550). For each message, ``DATA``
is answered 250 only once the message is stored and committed
(``bymail.store.message_store``); a database error answers 451, and the
sending server tries again later. A message larger than four times
``MAIL_IN_MAX_BYTES`` is refused outright (552); a smaller one over the limit
is stored and answered with the reason.

The database work runs on one thread of its own (Django's ORM is synchronous),
one short transaction per message: `make mail-in` beside `make run` on one
SQLite file holds the write lock for an insert at a time. Processing follows
the acknowledgement: a Celery task where a broker is configured, on that same
thread on the embedded default (eager tasks); ``store_only`` leaves it all to
the sweep (``bymail.sweep``, every minute).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from django.conf import settings
from django.db import close_old_connections

from bymail.store import inbound_queue, is_ours, message_store
from games.reply_address import is_noreply_address, read_reply_address

log = logging.getLogger(__name__)


def _store(raw: bytes, envelope_from: str, recipient: str) -> tuple[int, bool]:
    close_old_connections()
    try:
        row, new = message_store(
            raw, via="smtp", envelope_from=envelope_from, recipient=recipient, queue=False
        )
        return row.pk, new
    finally:
        close_old_connections()


def _queue(inbound_id: int) -> None:
    close_old_connections()
    try:
        inbound_queue(inbound_id)
    finally:
        close_old_connections()


class ReplyHandler:
    """aiosmtpd's handler: RCPT checked, DATA stored before 250."""

    def __init__(self, *, store_only: bool = False) -> None:
        self.store_only = store_only
        # One thread for the database: SQLite writes one at a time, and so do we.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mail-in-db")

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: Any
    ) -> str:
        if not is_ours(address) or (
            not is_noreply_address(address) and read_reply_address(address) is None
        ):  # another address, or a reply+ address whose token is forged or garbled
            return "550 5.1.1 No such recipient here: only replies to Diamino's emails"
        if envelope.rcpt_tos:  # one reply address per message, so one game and one seat
            return "452 4.5.3 One recipient per message, please"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)
        loop = asyncio.get_running_loop()
        mail_from = envelope.mail_from or ""
        recipient = envelope.rcpt_tos[0] if envelope.rcpt_tos else ""
        try:
            pk, new = await loop.run_in_executor(
                self.executor, _store, raw, "<>" if mail_from == "" else mail_from, recipient
            )
        except Exception:
            log.exception("an inbound message could not be stored: 451, the sender retries")
            return "451 4.3.0 Could not store the message now; please try again later"
        if new and not self.store_only:
            loop.run_in_executor(self.executor, _queue, pk)
        return "250 2.0.0 Stored" if new else "250 2.0.0 Stored already"


def controller(
    host: str | None = None, port: int | None = None, *, store_only: bool = False
) -> Controller:
    """A server on ``host:port`` (MAIL_IN_HOST:MAIL_IN_PORT), not started yet."""
    handler = ReplyHandler(store_only=store_only)
    return Controller(
        handler,
        hostname=host or settings.MAIL_IN_HOST,
        port=port or settings.MAIL_IN_PORT,
        data_size_limit=4 * settings.MAIL_IN_MAX_BYTES,
        ident="Diamino mail-in",
    )
