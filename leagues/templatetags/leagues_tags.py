"""The leagues' pieces on other pages: the player page's history, a division's standings,
the lobby's season announcements.

The player page (accounts) and the lobby (games) sit below leagues in the
layers, so they never import it: their templates load ``league_history`` and
``league_announcements``. ("My games" gets its league
badges through ``games.badges``, registered by ``LeaguesConfig.ready``.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

from accounts.models import User
from leagues import pages

register = template.Library()


@register.filter
def get_item(mapping: Mapping[Any, Any] | None, key: Any) -> Any:
    """``mapping[key]``, or None: a dict looked up by a variable in a template."""
    return mapping.get(key) if mapping else None


@register.inclusion_tag("leagues/_player_history.html", takes_context=True)
def league_history(context: template.Context, player: User) -> dict[str, Any]:
    """Every season ``player`` was placed in, newest first, with the result once known."""
    return {"placements": list(pages.player_history(player)), "user": context.get("user")}


@register.inclusion_tag("leagues/_lobby_announcements.html")
def league_announcements() -> dict[str, Any]:
    """The seasons a player can register for now or soon, each with a link to its league."""
    return {"announcements": pages.announcements()}
