"""What a deleted account leaves behind: R-END-4, "a deleted account resigns".

The account's deletion (``accounts.services.user_delete``) sends ``user_deleted``
inside its transaction; ``seats_vacate`` answers it there, so the account is
never gone while a game still waits for it. It goes through the services a
player uses (``game_resign``, ``game_leave``), so the other players are told
as for any resignation, and a 2-player game ends while a larger one goes on.
The delete page shows ``departures_of`` before the player confirms.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from django.db import transaction
from django.dispatch import receiver

from accounts.models import User
from accounts.signals import user_deleted
from games import services
from games.errors import GameError
from games.models import Game, Invitation, QueuedMove, Seat


@dataclass(frozen=True)
class Departures:
    running: list[Game]
    """Running games where the player still has a seat in play: each is resigned."""
    open_tables: list[Game]
    """Tables not started yet where the player sits: each is left (closed, if theirs)."""


def departures_of(player: User) -> Departures:
    """The games a deletion of ``player``'s account would resign and leave, oldest first."""
    seats = Seat.objects.filter(player=player).select_related("game").order_by("game_id")
    running = [
        seat.game
        for seat in seats
        if seat.game.status == Game.Status.RUNNING and seat.status == Seat.Status.ACTIVE
    ]
    open_tables = [seat.game for seat in seats if seat.game.status == Game.Status.OPEN]
    return Departures(running=running, open_tables=open_tables)


@transaction.atomic
def seats_vacate(*, player: User) -> Departures:
    """Resign every running game of ``player``, leave every open table, decline invitations;
    their queued moves go with them."""
    departures = departures_of(player)
    for game in departures.open_tables:
        try:
            services.game_leave(game_id=game.pk, player=player)
        except GameError as refusal:
            if refusal.code == "not-open":  # it started since it was read: resign instead
                _resign(game.pk, player)
    for game in departures.running:
        _resign(game.pk, player)
    Invitation.objects.filter(invitee=player, status=Invitation.Status.PENDING).update(
        status=Invitation.Status.DECLINED
    )
    # Each resignation dropped its queued move; one left in a game the player had
    # already left goes too (it is made from their hand).
    QueuedMove.objects.filter(seat__player=player).delete()
    return departures


def _resign(game_id: int, player: User) -> None:
    # A refusal means already out, under the game's lock: their time ran out
    # first (that time-out is kept, as for any late resignation), or it ended.
    with contextlib.suppress(GameError):
        services.game_resign(game_id=game_id, player=player)


@receiver(user_deleted, dispatch_uid="games.departures")
def _on_user_deleted(sender: type[User], user: User, **kwargs: object) -> None:
    seats_vacate(player=user)
