"""What a vacation stops: the player's clocks (accounts/vacations.py asks through a signal).

accounts sits below games, so ``vacation_start`` does not read the clocks: it
sends ``accounts.signals.vacation_starting`` once it holds the player's row,
and ``clocks_stop`` (connected by ``GamesConfig.ready``) locks every game where
the player is to move, in pk order, before the vacation takes the time (the
locking order ``games/clock.py`` describes), and answers with a check: for a
vacation starting at a given moment, the first of those turns whose deadline
has already passed, if any (a vacation cannot rescue a turn already lost).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from accounts.models import User
from games import clock

Overdue = Callable[[datetime], tuple[int, datetime] | None]


def clocks_stop(*, user: User, **_: Any) -> Overdue:
    """Lock the games where ``user`` is to move; the check of their deadlines at a moment."""
    turns = clock.lock_turns_of(user.pk)

    def overdue(now: datetime) -> tuple[int, datetime] | None:
        for game in turns:
            deadline = clock.deadline_of(game, player=user)
            if deadline is not None and deadline <= now:
                return game.pk, deadline
        return None

    return overdue
