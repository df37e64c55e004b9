"""The rating-history chart, drawn on the server as SVG.

Python computes every coordinate in a fixed ``viewBox``; the template only
writes them out, so the chart scales to any width (a phone included) and
needs no JavaScript. Points are equally spaced by game, not by date: a
correspondence player may play ten games in a week and none for a month.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils import formats, timezone

if TYPE_CHECKING:
    from ratings.models import RatingChange

WIDTH = 400
HEIGHT = 200
LEFT = 44  # room for the rating labels
RIGHT = 10
TOP = 12
BOTTOM = 30  # room for the dates
# Above this many games the dots would touch: the line alone says enough.
MAX_DOTS = 60
STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    value: int
    game_id: int | None
    date: str


@dataclass(frozen=True)
class Tick:
    y: float
    value: int


@dataclass(frozen=True)
class RatingChart:
    points: tuple[Point, ...]
    ticks: tuple[Tick, ...]
    first: int
    current: int
    low: int
    high: int
    games: int
    first_date: str
    last_date: str
    show_dots: bool
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_edge: int = WIDTH - RIGHT
    baseline: int = HEIGHT - BOTTOM

    @property
    def polyline(self) -> str:
        return " ".join(f"{point.x:.1f},{point.y:.1f}" for point in self.points)


def _scale(low: int, high: int) -> tuple[int, int, int]:
    """Round bounds and the smallest round step that fits ``low..high`` in at most 5 bands."""
    for step in STEPS:
        bottom, top = (low // step) * step, -(-high // step) * step
        if top == bottom:
            top += step
        if (top - bottom) // step <= 5:
            return bottom, top, step
    step = -(-(high - low) // (5 * STEPS[-1])) * STEPS[-1] + STEPS[-1]
    return (low // step) * step, -(-high // step) * step, step


def _date(change: RatingChange) -> str:
    return formats.date_format(timezone.localtime(change.finished_at), "SHORT_DATE_FORMAT")


def rating_chart(changes: Sequence[RatingChange]) -> RatingChart | None:
    """The chart of ``changes`` (oldest first): the rating before the first, then after each."""
    if not changes:
        return None
    values = [changes[0].display_before] + [change.display_after for change in changes]
    low, high = min(values), max(values)
    bottom, top, step = _scale(low, high)
    plot_height = HEIGHT - TOP - BOTTOM
    plot_width = WIDTH - LEFT - RIGHT

    def y(value: int) -> float:
        return TOP + (top - value) / (top - bottom) * plot_height

    def x(index: int) -> float:
        return LEFT + index / (len(values) - 1) * plot_width

    points = [Point(x(0), y(values[0]), values[0], None, "")]
    points += [
        Point(x(index), y(value), value, change.game_id, _date(change))
        for index, (change, value) in enumerate(zip(changes, values[1:], strict=True), start=1)
    ]
    ticks = tuple(Tick(y(value), value) for value in range(bottom, top + 1, step))
    return RatingChart(
        points=tuple(points),
        ticks=ticks,
        first=values[0],
        current=values[-1],
        low=low,
        high=high,
        games=len(changes),
        first_date=_date(changes[0]),
        last_date=_date(changes[-1]),
        show_dots=len(points) <= MAX_DOTS,
    )
