"""What the leagues' life sends, for anyone who listens.

Not for the leagues' own emails: those are outbox rows written inside the
step's transaction (``leagues/notify.py``), so a crash between the commit and
a receiver cannot lose them. Each signal is sent once the service's
transaction has committed (``on_commit``),
with ``season`` (the ``Season`` row) as a keyword argument; a step done twice
(two workers, beat running again) sends nothing the second time, since the
service does nothing then.
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

from leagues.models import Season

# The season's registration has opened (players carried over are already registered).
registration_opened = Signal()
# Every game of every division is created and started.
season_started = Signal()
# The season's last week has begun.
season_last_week = Signal()
# The standings are final: ranks, promotions, relegations and champions written.
season_finished = Signal()


def send_on_commit(signal: Signal, season: Season) -> None:
    """``signal`` with ``season`` once the current transaction commits."""
    transaction.on_commit(lambda: signal.send(sender=Season, season=season))
