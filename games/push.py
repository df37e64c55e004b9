"""What a web push about a game shows (``notifications/push.py`` sends it).

Rendered when the push is sent, from fresh rows, in the player's language
(the sender sets it): a title, a line, the game's address, and a tag per game
so a device shows one notification per game. It names the game and whose turn
it is, who invited the player, who won; never a hand, a tile or a chat message's text.
The same line says each event in what a player's quiet hours held
(``notifications/quiet.py``) and in the daily digest (``games/emails.py``). A "your
turn" (or its reminder, or a day given) for a turn that has passed is skipped.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

from games import clock
from games.models import Game, Invitation
from notifications import kinds
from notifications.models import Notification

Kind = Notification.Kind


def payload(row: Notification) -> dict[str, Any]:
    if row.game_id is None:
        raise kinds.Skip("the game is gone")
    game = Game.objects.select_related("to_move__player").filter(pk=row.game_id).first()
    if game is None:
        raise kinds.Skip("the game is gone")
    to_move = game.to_move.player if game.to_move is not None else None
    if row.kind in (Kind.TURN, Kind.REMINDER, Kind.TIME_GIFT):
        if game.status != Game.Status.RUNNING or to_move is None or to_move != row.recipient:
            raise kinds.Skip("no longer the player's turn")
        turn = row.context.get("turn")
        if turn and turn != clock.turn_key(game):
            raise kinds.Skip("that turn has passed")
    number = {"game": game.pk}
    bodies: dict[str, str] = {
        Kind.TURN: _("Your turn in game #%(game)s.") % number,
        Kind.REMINDER: _("Your turn in game #%(game)s: the deadline is near.") % number,
        Kind.TIME_GIFT: _("You were given more time in game #%(game)s.") % number,
        Kind.GAME_STARTED: _("Game #%(game)s has started.") % number,
        Kind.INVITATION: _("You are invited to game #%(game)s.") % number,
        Kind.GAME_OVER: _("Game #%(game)s is over.") % number,
        Kind.TIMEOUT: _("A player ran out of time in game #%(game)s.") % number,
        Kind.CHAT: _("New message in game #%(game)s.") % number,
        # Never pushed on its own; a line of what quiet hours held (notifications/quiet.py).
        Kind.ANNULLED: _("Game #%(game)s was annulled.") % number,
    }
    if row.kind == Kind.TURN and row.context.get("queued") == "not-played":
        bodies[Kind.TURN] = (
            _("Your queued move was not played in game #%(game)s: your turn.") % number
        )
    if row.kind == Kind.INVITATION:
        bodies[Kind.INVITATION] = _invited(row, number)
    if row.kind == Kind.GAME_OVER:
        bodies[Kind.GAME_OVER] = _game_over(game, number)
    if row.kind not in bodies:
        raise kinds.Skip(f"no web push for {row.kind}")
    return {
        "title": settings.SITE_NAME,
        "body": bodies[row.kind],
        "url": settings.SITE_URL.rstrip("/") + reverse("games:page", args=[game.pk]),
        "tag": f"game-{game.pk}",
        "game": game.pk,
        "to_move": to_move.name_shown if to_move is not None else None,
    }


def _invited(row: Notification, number: dict[str, int]) -> str:
    """Who invited the player, when the invitation is still there."""
    invitation = (
        Invitation.objects.select_related("invited_by")
        .filter(pk=row.context.get("invitation"))
        .first()
    )
    if invitation is None:
        return _("You are invited to game #%(game)s.") % number
    return _("%(inviter)s invited you to game #%(game)s.") % {
        **number,
        "inviter": invitation.invited_by.name_shown,
    }


def _game_over(game: Game, number: dict[str, int]) -> str:
    """Who won, when the game was finished (an annulled one has no winner)."""
    seats = game.seats.select_related("player").order_by("position")
    winners = [seat.player.name_shown for seat in seats if seat.is_winner]
    if game.status != Game.Status.FINISHED or not winners:
        return _("Game #%(game)s is over.") % number
    if len(winners) == 1:
        return _("Game #%(game)s is over: %(winner)s won.") % {**number, "winner": winners[0]}
    return _("Game #%(game)s is over: %(winners)s share the win.") % {
        **number,
        "winners": ", ".join(winners),
    }
