"""Replies fetched from a hosted mailbox over IMAP (MAIL_IN_IMAP_URL), for a site without its own MX.

``fetch(url)`` (the periodic task ``bymail.imap_fetch``, or ``manage.py
imap_fetch``) logs in, selects the mailbox and, for each message not yet
flagged ``\\Seen``, reads it without marking it (``BODY.PEEK[]``), stores it
(``bymail.store.message_store``, committed; its processing queued) and only
then flags it ``\\Seen``. A crash (a killed process, a dropped connection)
before the store leaves the message unseen and unstored: the next fetch plays
it. A crash between the store and the flag fetches it again next time; the
store, keyed by Message-ID and reply address, keeps it once, and the message
is only flagged — or, when the crash came before its processing did, that
stored row is queued again (the processing claims it once: never two moves,
never two answers). The mailbox should be the site's alone (a person reading
it in a client would mark messages seen before the site gets them).

``imaps://user:password@host:993/INBOX`` (TLS), or ``imap://`` (plain, for a
server on the same host); the user and password are URL-quoted.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Mailbox:
    tls: bool
    host: str
    port: int
    user: str
    password: str
    folder: str


def mailbox_of(url: str) -> Mailbox:
    parts = urlsplit(url)
    if parts.scheme not in {"imap", "imaps"} or not parts.hostname:
        raise ValueError("MAIL_IN_IMAP_URL must look like imaps://user:password@host:993/INBOX")
    tls = parts.scheme == "imaps"
    return Mailbox(
        tls=tls,
        host=parts.hostname,
        port=parts.port or (993 if tls else 143),
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        folder=unquote(parts.path.lstrip("/")) or "INBOX",
    )


def fetch(url: str, *, limit: int = 100, queue: bool = True) -> int:
    """Store the unseen messages, flagging each seen once stored; how many were new.

    ``queue``: each stored message's processing is queued (off: the sweep,
    ``bymail.sweep``, processes them).
    """
    from email import message_from_bytes
    from email.policy import compat32

    from bymail.models import InboundMessage
    from bymail.store import addresses_to, inbound_queue, message_store

    box = mailbox_of(url)
    client: imaplib.IMAP4 = (
        imaplib.IMAP4_SSL(box.host, box.port, timeout=30)
        if box.tls
        else imaplib.IMAP4(box.host, box.port, timeout=30)
    )
    new = 0
    try:
        client.login(box.user, box.password)
        status, _ = client.select(_quoted(box.folder))
        if status != "OK":
            raise imaplib.IMAP4.error(f"cannot select {box.folder!r}")
        status, data = client.uid("SEARCH", "UNSEEN")
        if status != "OK":
            raise imaplib.IMAP4.error("UID SEARCH UNSEEN failed")
        uids = [uid for uid in (data[0] or b"").split() if uid.isdigit()][:limit]
        for uid in uids:
            status, parts = client.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
            raw = next(
                (p[1] for p in parts if isinstance(p, tuple) and len(p) == 2),
                None,
            )
            if status != "OK" or not isinstance(raw, bytes):
                log.warning("IMAP message %s could not be fetched; next time", uid)
                continue
            headers = message_from_bytes(raw, policy=compat32)
            # One row per reply address it came to: a reply to two seats plays for each.
            for recipient in addresses_to(headers) or [""]:
                row, was_new = message_store(raw, via="imap", recipient=recipient, queue=queue)
                new += was_new
                if not was_new and queue and row.state == InboundMessage.State.RECEIVED:
                    # Stored by a fetch that died before processing it: now, not at the sweep.
                    inbound_queue(row.pk)
            # Stored and committed: now it may be marked handled.
            client.uid("STORE", uid.decode(), "+FLAGS", "(\\Seen)")
    finally:
        with contextlib.suppress(imaplib.IMAP4.error, OSError):
            client.logout()
    log.info("IMAP: %s new message(s) from %s@%s", new, box.user, box.host)
    return new


def _quoted(folder: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9._/-]+", folder):
        return folder
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'
