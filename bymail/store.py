"""Storing an inbound message: the one step before it is acknowledged.

``message_store`` writes the raw bytes in one short transaction (SQLite: the
write lock is held for one insert, so `make mail-in` works beside `make run`
on the same file) and queues its processing once committed. It returns only
after the commit: the caller (the SMTP server, the IMAP fetch) acknowledges
the message then, and not before. A message already stored for the same
reply address (same Message-ID, or the same bytes when it has none) is not
stored again, and is acknowledged all the same: the sender's retry, or a
duplicate delivery, plays once. One message sent to two seats' reply
addresses is stored once for each and plays for each (the processing then
keeps it to once per seat, ``bymail.process``).
"""

from __future__ import annotations

import hashlib
import logging
import re
from email import message_from_bytes
from email.message import Message
from email.policy import compat32
from email.utils import getaddresses
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction

from bymail.models import InboundMessage
from games.reply_address import PREFIX, is_noreply_address, mail_in_domain

log = logging.getLogger(__name__)

_ID = re.compile(r"<[^<>\s]{1,250}>")


def is_ours(address: str) -> bool:
    """A reply address of this site (its token is checked later), or the no-reply address."""
    address = address.strip().strip("<>").lower()
    if is_noreply_address(address):
        return True
    local, _, domain = address.rpartition("@")
    return domain == mail_in_domain() and local.startswith(PREFIX)


def addressed_to(message: Message) -> str:
    """The reply address a message came to, from its headers (IMAP has no envelope)."""
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        for _name, address in getaddresses([str(v) for v in message.get_all(name, [])]):
            if is_ours(address):
                return address
    return ""


def addresses_to(message: Message) -> list[str]:
    """Every reply address of ours a message came to, from its headers (IMAP has no envelope).

    The copy's own (``Delivered-To``, ``X-Original-To``) when the mail server
    wrote it: each copy is then one recipient's. Otherwise all of ours in ``To``
    and ``Cc``, once each: one copy of a message sent to two seats plays for both.
    """
    for names in (("Delivered-To", "X-Original-To"), ("To", "Cc")):
        found: list[str] = []
        for name in names:
            for _name, address in getaddresses([str(v) for v in message.get_all(name, [])]):
                if is_ours(address) and address.lower() not in {a.lower() for a in found}:
                    found.append(address)
        if found:
            return found[:1] if names[0] == "Delivered-To" else found
    return []


def message_id_of(raw: bytes) -> str:
    """The message's Message-ID, ``<…>``; a hash of its bytes when it has none."""
    headers = message_from_bytes(raw, policy=compat32)
    found = _ID.search(str(headers.get("Message-ID", "") or ""))
    if found:
        return found.group(0)
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def message_store(
    raw: bytes, *, via: str, envelope_from: str = "", recipient: str = "", queue: bool = True
) -> tuple[InboundMessage, bool]:
    """Store ``raw`` once; returns the row and whether it was new. Raises on a database error.

    Committed when it returns (call it outside any transaction): the caller may
    acknowledge the message then. ``queue``: its processing is queued once
    committed; the SMTP server queues it itself, after answering.
    """
    message_id = message_id_of(raw)
    size = len(raw)
    cap = 4 * settings.MAIL_IN_MAX_BYTES  # what the SMTP server refuses outright (552)
    if size > cap:  # from IMAP: the headers are enough to answer "too big"
        head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0][:cap]
        raw = head + b"\r\n\r\n[body not kept: %d bytes]\r\n" % size
    try:
        with transaction.atomic():
            row = InboundMessage.objects.create(
                message_id=message_id,
                raw=raw,
                size=size,
                via=via,
                envelope_from=envelope_from[:320],
                recipient=recipient[:320],
            )
            if queue:
                transaction.on_commit(partial(inbound_queue, row.pk))
    except IntegrityError:
        existing = InboundMessage.objects.filter(
            message_id=message_id, recipient=recipient[:320]
        ).first()
        if existing is None:  # not a duplicate after all: a real database error
            raise
        log.info("inbound %s stored already (%s): a duplicate", message_id, existing.state)
        return existing, False
    log.info("inbound %s stored (%s bytes, via %s)", message_id, len(raw), via)
    return row, True


def inbound_queue(inbound_id: int) -> bool:
    """Hand the stored message to a worker; never raises (the sweep finds it otherwise)."""
    from bymail.tasks import process_inbound

    try:
        process_inbound.delay(inbound_id)
    except Exception:
        log.warning("inbound %s not queued; the sweep will process it", inbound_id, exc_info=True)
        return False
    return True
