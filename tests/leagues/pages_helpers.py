"""Leagues and seasons for the page and email tests, made through h5's services."""

from __future__ import annotations

import random
from datetime import timedelta

from django.utils import timezone

from accounts.models import User
from leagues import services
from leagues.models import Division, League, Season
from tests.factories import make_player


def make_league(
    *, table_size: int = 2, slug: str = "lundi", name: str = "Ligue du lundi"
) -> League:
    return League.objects.create(
        name=name,
        slug=slug,
        table_size=table_size,
        days_per_move=3,
        season_days=28,
        division_min=4,
        division_max=8,
    )


def open_season(league: League, *, number: int = 1) -> Season:
    """A season whose registration is open now and closes in a week."""
    now = timezone.now()
    return Season.objects.create(
        league=league,
        number=number,
        state=Season.State.REGISTRATION,
        registration_opens_at=now - timedelta(days=1),
        registration_opened_at=now - timedelta(days=1),
        registration_closes_at=now + timedelta(days=7),
        starts_at=now + timedelta(days=7),
        ends_at=now + timedelta(days=35),
    )


def make_players(n: int, *, prefix: str = "joueur", language: str = "en") -> list[User]:
    return [make_player(f"{prefix}{i}", language=language) for i in range(1, n + 1)]


def running_season(
    players: list[User], *, table_size: int = 2, league: League | None = None
) -> tuple[Season, Division]:
    """A season with ``players`` registered, placed and started; its top division."""
    league = league or make_league(table_size=table_size)
    season = open_season(league)
    for player in players:
        services.registration_create(season_id=season.pk, player=player)
    closes = season.registration_closes_at
    assert services.season_schedule(season_id=season.pk, now=closes)
    assert services.season_start(season_id=season.pk, now=closes, rng=random.Random(7))
    season.refresh_from_db()
    division = season.divisions.order_by("level", "number").first()
    assert division is not None
    return season, division
