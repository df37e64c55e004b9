"""Template tags of the leaderboards, and the ratings panel of the player page.

The player page belongs to the accounts app; it shows ratings by including
this panel (``{% player_ratings player %}``), so accounts never imports ratings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import template
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import Mode
from ratings import selectors
from ratings.charts import RatingChart, rating_chart
from ratings.models import Rating, RatingChange

register = template.Library()

# The chart and its table show at most this many of a player's latest games.
HISTORY_GAMES = 100
HISTORY_ROWS = 10


@register.filter
def percent(value: float | None) -> str:
    if value is None:
        return "–"
    return _("%(value)s%%") % {"value": number_format(round(value * 100))}


@dataclass(frozen=True)
class ModePanel:
    mode: str
    label: str
    rating: Rating | None
    stats: selectors.ModeStatistics | None
    chart: RatingChart | None
    recent_changes: list[RatingChange]

    @property
    def scored(self) -> bool:
        return self.mode == Mode.MARQUE


@register.inclusion_tag("ratings/_player_panel.html", takes_context=True)
def player_ratings(context: template.Context, player: User) -> dict[str, Any]:
    """Ratings, statistics per mode, rating charts and the viewer's head-to-head record."""
    request = context.get("request")
    viewer = getattr(request, "user", None)
    ratings = selectors.player_ratings(player)
    stats = {row.mode: row for row in selectors.player_statistics(player)}
    panels = []
    for mode, label in Mode.choices:
        if mode not in ratings and mode not in stats:
            continue
        history = selectors.rating_history(player, mode, HISTORY_GAMES) if mode in ratings else []
        panels.append(
            ModePanel(
                mode=mode,
                label=str(label),
                rating=ratings.get(mode),
                stats=stats.get(mode),
                chart=rating_chart(history),
                recent_changes=history[::-1][:HISTORY_ROWS],
            )
        )
    record = None
    if viewer is not None and viewer.is_authenticated and viewer.pk != player.pk:
        record = selectors.head_to_head(player, viewer)
    return {"player": player, "viewer": viewer, "panels": panels, "record": record}
