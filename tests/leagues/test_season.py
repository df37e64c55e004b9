"""Whole seasons, run by beat's task at the season's times, from registration to the next
season's divisions: a league at tables of 2 and one at tables of 4, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
import time_machine

from games.models import Game, Seat
from leagues import services, tasks
from leagues.models import LeagueGame, Placement, Season
from leagues.services import LeagueError
from tests.factories import make_player
from tests.leagues.lifecycle import T0, Heard, make_league, make_season, play_out, rated_players

# Real commits: the signals go out on commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def heard():
    listener = Heard()
    yield listener
    listener.close()


def levels(season: Season) -> list[list[str]]:
    """Each division's players in seed order, top division first."""
    return [
        [p.player.username for p in d.placements.order_by("seed").select_related("player")]
        for d in season.divisions.order_by("level")
    ]


def outcomes(season: Season) -> dict[str, str]:
    return {p.player.username: p.outcome for p in season.placements.select_related("player")}


def test_a_season_of_a_two_player_league_from_registration_to_the_next_divisions(heard) -> None:
    league = make_league(table_size=2, division_min=2, division_max=4)
    season = make_season(league)
    players = rated_players("p", 7)  # p0 best rated … p6
    idle = players[3]  # registers and never moves
    with time_machine.travel(T0, tick=False) as traveller:
        assert tasks.seasons_advance.delay().get() == dict.fromkeys(
            ["open", "schedule", "start", "last_week", "close"], 0
        )
        with pytest.raises(LeagueError) as refused:
            services.registration_create(season_id=season.pk, player=players[0])
        assert refused.value.code == "registration-not-open"

        traveller.shift(timedelta(hours=2))
        assert tasks.seasons_advance()["open"] == 1
        season.refresh_from_db()
        assert season.state == Season.State.REGISTRATION
        assert heard.names(season) == ["registration_opened"]
        for player in reversed(players):  # registration order is not the seeding
            services.registration_create(season_id=season.pk, player=player)

        traveller.move_to(T0 + timedelta(days=1, minutes=1))
        done = tasks.seasons_advance()
        assert done["schedule"] == 1 and done["start"] == 1
        season.refresh_from_db()
        assert season.state == Season.State.RUNNING
        assert heard.names(season) == ["registration_opened", "season_started"]
        # New players by rating: 7 players, 2 to 4 a division, as equal as can be.
        assert levels(season) == [["p0", "p1", "p2", "p3"], ["p4", "p5", "p6"]]
        # Everyone meets everyone of their division once; first moves split as parity allows.
        top, bottom = season.divisions.order_by("level")
        assert top.league_games.count() == 6 and bottom.league_games.count() == 3
        first_movers = Counter(
            Seat.objects.filter(game__league_game__division=top, position=0).values_list(
                "player__username", flat=True
            )
        )
        assert sorted(first_movers.values()) == [1, 1, 2, 2]  # n even: (n-2)/2 or n/2 each
        assert Game.objects.filter(status=Game.Status.RUNNING).count() == 9
        assert not Game.objects.exclude(first_player_draw=[]).exists()  # the schedule decides

        # A second run does nothing more.
        assert sum(tasks.seasons_advance().values()) == 0
        assert LeagueGame.objects.count() == 9

        play_out(season, players, idle=[idle], traveller=traveller)
        assert not services.season_close(season_id=season.pk)  # not the end yet

        traveller.move_to(season.ends_at - timedelta(days=7) + timedelta(minutes=1))
        assert tasks.seasons_advance()["last_week"] == 1
        assert tasks.seasons_advance()["last_week"] == 0
        assert heard.names(season)[-1] == "season_last_week"

        traveller.move_to(season.ends_at + timedelta(minutes=1))
        assert tasks.seasons_advance()["close"] == 1
        season.refresh_from_db()
        assert season.state == Season.State.FINISHED
        assert heard.names(season)[-1] == "season_finished"

    # The standings: the strongest at every table won; p3 timed out everywhere.
    ranks = {
        p.player.username: (p.final_rank, p.points)
        for p in season.placements.select_related("player")
    }
    assert ranks["p0"] == (1, 3.0) and ranks["p1"] == (2, 2.0) and ranks["p2"] == (3, 1.0)
    assert ranks["p3"] == (4, 0.0)
    assert ranks["p4"] == (1, 2.0) and ranks["p5"] == (2, 1.0) and ranks["p6"] == (3, 0.0)
    # About a quarter (at least one) up and down, never from the top up or the bottom down;
    # the idle player is not carried over.
    assert outcomes(season) == {
        "p0": "kept",
        "p1": "kept",
        "p2": "relegated",
        "p3": "inactive",
        "p4": "promoted",
        "p5": "kept",
        "p6": "kept",
    }
    assert list(
        Placement.objects.filter(champion=True).values_list("player__username", flat=True)
    ) == ["p0"]

    # The next season opened with the players carried over registered.
    following = Season.objects.get(league=league, number=2)
    assert following.state == Season.State.REGISTRATION
    assert heard.names(following) == ["registration_opened"]
    carried = following.registrations.filter(carried_over=True)
    assert sorted(carried.values_list("player__username", flat=True)) == [
        "p0",
        "p1",
        "p2",
        "p4",
        "p5",
        "p6",
    ]
    newcomer = make_player("nouveau")
    assert season.finished_at is not None
    with time_machine.travel(season.finished_at + timedelta(hours=1), tick=False):
        services.registration_create(season_id=following.pk, player=newcomer)
    with time_machine.travel(following.starts_at + timedelta(minutes=1), tick=False):
        done = tasks.seasons_advance()
    assert done["schedule"] == 1 and done["start"] == 1
    # Returning players by result: the promoted p4 up, kept players never lower, the place
    # the idle p3 left to the best kept player below (p5), the relegated p2 down; the
    # newcomer below them all.
    assert levels(following) == [["p0", "p1", "p4", "p5"], ["p6", "p2", "nouveau"]]


def test_a_season_of_a_four_player_league_from_registration_to_the_next_divisions(
    heard,
) -> None:
    league = make_league(
        name="Ligue à quatre", slug="ligue-a-quatre", table_size=4, division_min=4, division_max=6
    )
    season = make_season(league, closes=T0 + timedelta(days=1), starts=T0 + timedelta(days=2))
    players = rated_players("q", 10)  # two divisions of 5
    idle = players[9]
    with time_machine.travel(T0 + timedelta(hours=2), tick=False) as traveller:
        assert tasks.seasons_advance()["open"] == 1
        for player in players:
            services.registration_create(season_id=season.pk, player=player)

        # Registration closes a day before the start: the divisions are placed first.
        traveller.move_to(T0 + timedelta(days=1, minutes=1))
        done = tasks.seasons_advance()
        assert (done["schedule"], done["start"]) == (1, 0)
        season.refresh_from_db()
        assert season.state == Season.State.SCHEDULED
        assert levels(season) == [["q0", "q1", "q2", "q3", "q4"], ["q5", "q6", "q7", "q8", "q9"]]
        assert not Game.objects.exists()

        traveller.move_to(T0 + timedelta(days=2, minutes=1))
        assert tasks.seasons_advance()["start"] == 1
        top, bottom = season.divisions.order_by("level")
        # Five players at tables of 4: five tables, four games each.
        assert top.league_games.count() == 5 and bottom.league_games.count() == 5
        for division in (top, bottom):
            per_player = Counter(
                Seat.objects.filter(game__league_game__division=division).values_list(
                    "player__username", flat=True
                )
            )
            assert set(per_player.values()) == {4}
        assert all(g.seats.count() == 4 for g in Game.objects.all())

        play_out(season, players, idle=[idle], traveller=traveller)
        traveller.move_to(season.ends_at - timedelta(days=6))
        assert tasks.seasons_advance()["last_week"] == 1
        traveller.move_to(season.ends_at + timedelta(minutes=1))
        done = tasks.seasons_advance()
        assert done["close"] == 1 and done["last_week"] == 0
    season.refresh_from_db()
    assert season.state == Season.State.FINISHED
    assert heard.names(season) == [
        "registration_opened",
        "season_started",
        "season_last_week",
        "season_finished",
    ]
    # q0 is the strongest at every table it sits at (4 of the 5): 4 points, champion; q1
    # wins the one table without q0. The others' order comes from the scores.
    top_rows = list(top.placements.order_by("final_rank").select_related("player"))
    assert [(p.player.username, p.points) for p in top_rows[:2]] == [("q0", 4.0), ("q1", 1.0)]
    assert top_rows[0].champion and not any(p.champion for p in top_rows[1:])
    relegated = top_rows[-1].player.username
    # One of five goes down from the top, none up; one up from the bottom, none down;
    # the idle q9 is not carried over.
    expected = dict.fromkeys(["q0", "q1", "q2", "q3", "q4"], "kept")
    expected[relegated] = "relegated"
    expected.update({"q5": "promoted", "q6": "kept", "q7": "kept", "q8": "kept", "q9": "inactive"})
    assert outcomes(season) == expected
    following = Season.objects.get(league=league, number=2)
    assert following.registrations.count() == 9
    assert not following.registrations.filter(player=idle).exists()
    with time_machine.travel(following.starts_at + timedelta(minutes=1), tick=False):
        done = tasks.seasons_advance()
    assert done["start"] == 1
    # 9 players, 4 to 6 a division: 5 and 4. The kept four (by last season's rank) and the
    # promoted q5 on top, the relegated player last of the division below.
    first, second = levels(following)
    assert first[:4] == [p.player.username for p in top_rows[:4]]
    assert first[4] == "q5"
    assert sorted(second[:3]) == ["q6", "q7", "q8"] and second[3] == relegated
    assert LeagueGame.objects.filter(division__season=following).count() == 5 + 1
