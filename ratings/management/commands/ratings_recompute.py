"""Rebuild the ratings from the games, or check that they are what a rebuild would give.

Run it once after installing the app (games finished before it had no ratings)
and after changing ``ratings.services.is_rated``.
"""

from __future__ import annotations

import math
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Mode
from ratings import services
from ratings.models import Rating


class Command(BaseCommand):
    help = "Replay every rated game of each mode (or --check the stored ratings)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--mode", choices=Mode.values, help="Only this mode.")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Change nothing; fail if the stored ratings differ from a replay.",
        )

    def handle(self, *args: Any, mode: str | None, check: bool, **options: Any) -> None:
        for each in [mode] if mode else Mode.values:
            if check:
                self._check(each)
            else:
                replayed = services.ratings_recompute(mode=each)
                self.stdout.write(f"{each}: {replayed} games replayed")

    def _check(self, mode: str) -> None:
        expected = services.fresh_ratings(mode)
        stored = {
            player_id: (mu, sigma, games)
            for player_id, mu, sigma, games in Rating.objects.filter(mode=mode).values_list(
                "player_id", "mu", "sigma", "games"
            )
        }
        wrong = [
            player_id
            for player_id in expected.keys() | stored.keys()
            if not _same(expected.get(player_id), stored.get(player_id))
        ]
        if wrong:
            raise CommandError(f"{mode}: {len(wrong)} ratings differ from a replay: {wrong[:20]}")
        self.stdout.write(f"{mode}: {len(stored)} ratings match a replay")


def _same(expected: services.PlayerRating | None, stored: tuple | None) -> bool:
    if expected is None or stored is None:
        return expected is None and stored is None
    mu, sigma, games = stored
    return (
        math.isclose(expected.mu, mu, rel_tol=1e-9)
        and math.isclose(expected.sigma, sigma, rel_tol=1e-9)
        and expected.games == games
    )
