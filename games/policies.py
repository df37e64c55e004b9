"""Who may do what, decided once: the services refuse with these, the pages ask them.

Each function returns the refusal (``GameError``) or None. A service raises
it; a read (``games/selectors.py``) only wants to know whether to offer the
button, so the page and the service never disagree.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

import rules
from games import clock
from games.errors import GameError, not_running
from games.models import Game, Seat


def seats_refusal(mode: str, seats: int) -> GameError | None:
    """A table of ``seats`` players in ``mode`` is refused unless the rules allow it."""
    allowed = rules.player_counts(mode)
    if seats in allowed:
        return None
    return GameError(
        "bad-seats",
        _("This mode is played by %(low)d to %(high)d players.")
        % {"low": allowed.start, "high": allowed.stop - 1},
    )


def gift_refusal(giver: Seat, receiver: Seat | None) -> GameError | None:
    """Why ``giver`` may not give the seat to move (``receiver``) a day, whatever the clock.

    The service asks this under the game's lock before it looks at the
    deadline and the version the page showed; then ``gift_cap_refusal``.
    """
    if giver.status != Seat.Status.ACTIVE:
        return GameError(
            "not-active", _("You have left this game: you can no longer give time."), status=409
        )
    if receiver is None:
        return not_running()
    if receiver.pk == giver.pk:
        return GameError(
            "own-turn",
            _("You cannot give yourself more time. Going away? Take a vacation."),
            status=409,
        )
    if receiver.player.is_computer:
        return GameError(
            "computer", _("A computer player has no deadline: it needs no more time."), status=409
        )
    return None


def gift_cap_refusal(game: Game, receiver: Seat) -> GameError | None:
    """The turn has had its ``clock.MAX_EXTRA_DAYS``: no more days on it."""
    if game.turn_extra_days < clock.MAX_EXTRA_DAYS:
        return None
    return GameError(
        "gift-cap",
        _(
            "%(name)s has already been given %(days)d more days on this turn: "
            "that is the most allowed."
        )
        % {"name": receiver.player, "days": clock.MAX_EXTRA_DAYS},
        status=409,
    )
