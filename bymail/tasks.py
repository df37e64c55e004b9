"""Celery tasks: process one stored reply, sweep what was left, fetch the IMAP mailbox."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="bymail.process", ignore_result=True)
def process_inbound(inbound_id: int) -> str | None:
    from bymail.process import inbound_process

    return inbound_process(inbound_id)


@shared_task(name="bymail.sweep", ignore_result=True)
def sweep_inbound() -> int:
    """Stored replies not processed yet (a crash, a lost task): processed now.

    Then the raw bytes of replies processed over MAIL_IN_KEEP_RAW_DAYS ago are emptied.
    """
    from bymail.process import inbound_purge_raw, inbound_sweep

    done = inbound_sweep()
    inbound_purge_raw()
    return done


@shared_task(name="bymail.imap_fetch", ignore_result=True)
def imap_fetch() -> int:
    """New messages in MAIL_IN_IMAP_URL's mailbox: stored, then flagged handled."""
    from django.conf import settings

    from bymail.imap import fetch

    if not settings.MAIL_IN_IMAP_URL:
        return 0
    return fetch(settings.MAIL_IN_IMAP_URL)
