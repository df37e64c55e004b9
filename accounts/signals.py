"""Signals other apps listen to."""

from __future__ import annotations

from django.dispatch import Signal

# Sent inside the deletion's transaction, after the personal data is gone, with
# ``user`` (the anonymised row). Games use it to settle the player's open seats.
user_deleted = Signal()

# Sent by the allauth adapter (``accounts/adapter.py``) for each email allauth sends,
# rendered in the request, with ``message``, ``template_prefix`` and ``recipient``
# (the account, or None for an address with none). The outbox receives it
# (``notifications/account_emails.py``): a worker sends it.
account_email_rendered = Signal()

# Sent by ``vacations.vacation_start`` with ``user`` (their row locked), before the
# vacation takes the time. What the vacation stops answers (games/vacations.py: the
# clocks): it locks what it must, and returns a check, called with the vacation's start
# when it starts now, that gives (game id, deadline) for a turn already lost, or None.
vacation_starting = Signal()
