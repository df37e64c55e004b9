"""The leaderboards cost the same number of queries for 5 players as for 500."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.models import Game, Seat
from ratings.models import Rating, RatingChange
from tests.ratings.conftest import BASE, player

# What a page may cost: session and user, then count, page rows and my place.
MAX_QUERIES = 6

URLS = (
    "/classement/",
    "/classement/?tri=moyenne&joueurs=4&periode=annee&min=1",
    "/classement/niveau/marque/?provisoires=1",
)


def finished_at(game: Game) -> datetime:
    """When the finished ``game`` ended (the field is nullable)."""
    assert game.finished_at is not None
    return game.finished_at


def populate(prefix: str, count: int) -> list[User]:
    """``count`` players, each in three finished four-player avec-marque games,
    with a rating and its history; rows are written in bulk, not through services."""
    users = User.objects.bulk_create(
        [User(username=f"{prefix}{i}", password="!", language="en") for i in range(count)]
    )
    rng = random.Random(count)
    tables = []
    for round_ in range(3):
        order = users[:]
        rng.shuffle(order)
        tables += [order[i : i + 4] for i in range(0, len(order) - len(order) % 4, 4)]
        if len(order) % 4 == 1:
            tables[-1].append(order[-1])
        elif len(order) % 4:
            tables.append(order[len(order) - len(order) % 4 :])
        del round_
    when = [BASE + timedelta(minutes=i) for i in range(len(tables))]
    games = Game.objects.bulk_create(
        Game(
            mode="marque",
            word_list="fr-1",
            seats_wanted=len(table),
            status=Game.Status.FINISHED,
            creator=table[0],
            started_at=finished - timedelta(days=3),
            finished_at=finished,
        )
        for table, finished in zip(tables, when, strict=True)
    )
    Seat.objects.bulk_create(
        Seat(
            game=game,
            player=user,
            position=position,
            score=rng.randint(-30, 80),
            rank=position + 1,
            is_winner=position == 0,
        )
        for game, table in zip(games, tables, strict=True)
        for position, user in enumerate(table)
    )
    Rating.objects.bulk_create(
        Rating(player=user, mode="marque", mu=mu, sigma=4.0, ordinal=mu - 12.0, games=3)
        for user in users
        for mu in [rng.uniform(15, 35)]
    )
    RatingChange.objects.bulk_create(
        RatingChange(
            game=game,
            player=user,
            mode="marque",
            finished_at=finished_at(game),
            rank=position + 1,
            players=len(table),
            mu_before=25.0,
            sigma_before=5.0,
            mu_after=26.0,
            sigma_after=4.8,
            games_after=1,
        )
        for game, table in zip(games, tables, strict=True)
        for position, user in enumerate(table)
    )
    return users


def duels(me: User, opponents: list[User]) -> None:
    """A two-player game between ``me`` and each opponent, with its rating history."""
    games = Game.objects.bulk_create(
        Game(
            mode="marque",
            word_list="fr-1",
            seats_wanted=2,
            status=Game.Status.FINISHED,
            creator=me,
            finished_at=BASE + timedelta(days=30, hours=i),
        )
        for i in range(len(opponents))
    )
    Seat.objects.bulk_create(
        Seat(game=game, player=user, position=position, score=10 - position, rank=position + 1)
        for game, opponent in zip(games, opponents, strict=True)
        for position, user in enumerate((me, opponent))
    )
    RatingChange.objects.bulk_create(
        RatingChange(
            game=game,
            player=me,
            mode="marque",
            finished_at=finished_at(game),
            rank=1,
            players=2,
            mu_before=25.0 + i / 10,
            sigma_before=5.0,
            mu_after=25.1 + i / 10,
            sigma_after=5.0,
            games_after=4 + i,
        )
        for i, game in enumerate(games)
    )


def queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as context:
        response = client.get(url)
    assert response.status_code == 200
    return len(context)


@pytest.mark.django_db
def test_a_leaderboard_page_costs_the_same_queries_for_5_and_500_players(client: Client) -> None:
    me = player("moi")
    few = populate("a", 4)
    # I play in the first game, so my row is on the board.
    Seat.objects.filter(player=few[0]).update(player=me)
    Rating.objects.filter(player=few[0]).update(player=me)
    client.force_login(me)
    small = {url: queries(client, url) for url in URLS}
    populate("b", 496)
    assert User.objects.filter(seats__isnull=False).distinct().count() >= 500
    large = {url: queries(client, url) for url in URLS}
    assert large == small
    assert max(large.values()) <= MAX_QUERIES


@pytest.mark.django_db
def test_the_player_page_costs_the_same_queries_with_many_opponents(client: Client) -> None:
    viewer = player("moi")
    client.force_login(viewer)
    few = populate("a", 5)
    url = few[0].get_absolute_url()
    small = queries(client, url)
    others = populate("b", 495)
    duels(few[0], others[:150])
    duels(viewer, others[150:160])
    large = queries(client, url)
    assert large == small
