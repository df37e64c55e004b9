"""Template tags for pages outside the games app (the player page)."""

from __future__ import annotations

from django import template

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
