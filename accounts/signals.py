"""Signals other apps listen to."""

from __future__ import annotations

from django.dispatch import Signal

# Sent inside the deletion's transaction, after the personal data is gone, with
# ``user`` (the anonymised row). Games use it to settle the player's open seats.
user_deleted = Signal()
