"""Races settled by the season row's lock, on PostgreSQL: two workers at one step do it once.

Two threads, two connections, released together by a barrier. On SQLite (the
embedded default) these skip: it has one writer at a time, so there is no race
to settle; the unique constraints that back the locks are tested there too
(``test_services.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
import time_machine
from django.db import connection, connections

from games import services as games
from games.models import Game
from leagues import services
from leagues.models import LeagueGame, Placement, Registration, Season
from leagues.services import LeagueError
from tests.factories import make_player
from tests.leagues.lifecycle import make_league, make_season, rated_players

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def together(work: Callable[[], object], times: int = 2) -> list[object]:
    """``work`` in ``times`` threads at once; what each returned or raised."""
    barrier = threading.Barrier(times)
    outcomes: list[object] = []

    def run() -> None:
        try:
            barrier.wait(timeout=10)
            outcomes.append(work())
        except Exception as exc:  # the outcome is what the test compares
            outcomes.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


def test_two_workers_starting_the_same_season_create_its_games_once() -> None:
    assert connection.vendor == "postgresql"
    league = make_league(division_min=3, division_max=4)
    season = make_season(league, state=Season.State.REGISTRATION)
    for player in rated_players("p", 8):
        Registration.objects.create(season=season, player=player)
    with time_machine.travel(season.starts_at + timedelta(minutes=1)):
        outcomes = together(lambda: services.season_schedule(season_id=season.pk))
        assert sorted(outcomes, key=str) == [False, True]
        assert Placement.objects.count() == 8
        outcomes = together(lambda: services.season_start(season_id=season.pk))
    assert sorted(outcomes, key=str) == [False, True]
    # Two divisions of 4 players, a round robin each: 6 games each, created once.
    assert LeagueGame.objects.count() == 12 and Game.objects.count() == 12
    assert Season.objects.get(pk=season.pk).state == Season.State.RUNNING


def test_two_workers_running_beat_at_once_advance_every_season_once() -> None:
    league = make_league(division_min=2, division_max=4)
    season = make_season(league, state=Season.State.REGISTRATION)
    for player in rated_players("p", 4):
        Registration.objects.create(season=season, player=player)
    with time_machine.travel(season.starts_at + timedelta(minutes=1)):
        outcomes = together(services.seasons_advance)
    starts = sorted(outcome["start"] for outcome in outcomes)  # type: ignore[index]
    assert starts == [0, 1]
    assert Game.objects.count() == 6


def test_two_tabs_registering_the_same_player_register_once() -> None:
    season = make_season(make_league(), state=Season.State.REGISTRATION)
    alice = make_player("alice")
    outcomes = together(lambda: services.registration_create(season_id=season.pk, player=alice))
    registered = [o for o in outcomes if isinstance(o, Registration)]
    refused = [o for o in outcomes if isinstance(o, LeagueError)]
    assert len(registered) == 1 and [e.code for e in refused] == ["already-registered"]
    assert Registration.objects.filter(season=season, player=alice).count() == 1


def test_two_workers_closing_the_same_season_close_it_once() -> None:
    league = make_league(division_min=2, division_max=4)
    season = make_season(league, state=Season.State.REGISTRATION)
    players = rated_players("p", 4)
    for player in players:
        Registration.objects.create(season=season, player=player)
    with time_machine.travel(season.starts_at + timedelta(minutes=1)):
        services.season_schedule(season_id=season.pk)
        services.season_start(season_id=season.pk)
    for game in Game.objects.all():
        games.game_resign(game_id=game.pk, player=game.seat_list()[0].player)
    with time_machine.travel(season.ends_at + timedelta(minutes=1)):
        outcomes = together(lambda: services.season_close(season_id=season.pk))
    assert sorted(outcomes, key=str) == [False, True]
    following = Season.objects.get(league=league, number=2)
    assert following.registrations.count() == 4
    assert Season.objects.count() == 2
