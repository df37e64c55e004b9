"""The leagues' pieces on other apps' pages: the player page's history, "My games"' badges.

The player page (accounts) and "My games" (games) sit below leagues in the
layers, so they never import it: their templates load these tags.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import template

from accounts.models import User
from games.models import Game
from leagues import pages
from leagues.models import Division

register = template.Library()


@register.filter
def get_item(mapping: Mapping[Any, Any] | None, key: Any) -> Any:
    """``mapping[key]``, or None: a dict looked up by a variable in a template."""
    return mapping.get(key) if mapping else None


@register.inclusion_tag("leagues/_player_history.html", takes_context=True)
def league_history(context: template.Context, player: User) -> dict[str, Any]:
    """Every season ``player`` was placed in, newest first, with the result once known."""
    return {"placements": list(pages.player_history(player)), "user": context.get("user")}


@register.simple_tag
def league_divisions(*game_lists: Iterable[Game]) -> dict[int, Division]:
    """The division of each listed game that belongs to a league, by game id (one query)."""
    ids = [game.pk for games in game_lists if games for game in games]
    return pages.league_of_games(ids) if ids else {}
