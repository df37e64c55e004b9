"""Notifications a game event causes; called inside the service's transaction.

For now these only mark the hook points; the outbox (a row per email,
written in the same transaction and sent by a Celery task) comes with the
notifications issue.
"""

from __future__ import annotations

from games.models import Game, Invitation, Move


def invitation(invitation: Invitation) -> None:
    """``invitation.invitee`` was invited to a table."""


def game_started(game: Game) -> None:
    """The table is full (or its creator started it): everyone learns who plays first."""


def move_played(game: Game, move: Move) -> None:
    """A move was played: the next player's turn, or the game is over."""


def game_annulled(game: Game) -> None:
    """Staff annulled the game; ``game.annulled_reason`` says why."""
