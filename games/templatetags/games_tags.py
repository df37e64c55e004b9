"""Template tags for pages outside the games app (the player page, the account deletion)."""

from __future__ import annotations

from django import template

from games import departures
from games.models import Game, Seat

register = template.Library()


@register.simple_tag
def recent_games(player, limit: int = 20) -> list[Seat]:
    """The player's seats in started games, newest first (public facts only)."""
    return list(
        Seat.objects.filter(player=player)
        .exclude(game__status=Game.Status.OPEN)
        .select_related("game")
        .order_by("-game__started_at")[:limit]
    )


@register.simple_tag
def departures_of(player) -> departures.Departures:
    """What deleting ``player``'s account would resign and leave (R-END-4), for its page.

    A tag, so that accounts does not import games (the apps' layers, pyproject.toml).
    """
    return departures.departures_of(player)
