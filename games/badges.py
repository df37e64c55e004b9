"""Badges other apps put on the games of "My games" (a league's division…): games knows none.

An app above games registers, from its ``AppConfig.ready``, a function that
takes game ids and returns a ``Badge`` for each of those it has one for
(``leagues.pages.game_badges``). ``attach`` gives every listed game its
``badges`` (a list, in the order the apps registered), with one call per app
for the whole page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from games.models import Game


@dataclass(frozen=True)
class Badge:
    """A link shown beside a game: its words, where it leads, its kind (its CSS class)."""

    label: str
    url: str
    kind: str


Source = Callable[[list[int]], dict[int, Badge]]

_SOURCES: list[Source] = []


def register(source: Source) -> None:
    if source not in _SOURCES:
        _SOURCES.append(source)


def attach(games: Iterable[Game]) -> None:
    """Set ``game.badges`` on each of ``games``."""
    listed = list(games)
    ids = [game.pk for game in listed]
    found = [source(ids) for source in _SOURCES] if ids else []
    for game in listed:
        game.badges = [by_game[game.pk] for by_game in found if game.pk in by_game]
