"""The leagues' verbs one by one: every refusal changes nothing; staff's moves, withdrawals
and suspensions keep the divisions consistent."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.utils import translation

import rules
from accounts.computers import computer_user
from accounts.models import BotLevel
from accounts.services import user_delete
from games.models import Game, Seat
from games.services import game_create_organised, game_resign, move_submit
from leagues import services, tasks
from leagues.models import Placement, Registration, Season, Suspension
from leagues.services import (
    LeagueError,
    Returning,
    division_sizes,
    moving_count,
    place_levels,
)
from monitoring.models import TaskRun
from tests.factories import make_player
from tests.leagues.lifecycle import T0, make_league, make_season, rated_players

pytestmark = pytest.mark.django_db

KEPT, PROMOTED, RELEGATED = (
    Placement.Outcome.KEPT,
    Placement.Outcome.PROMOTED,
    Placement.Outcome.RELEGATED,
)


def refused(code: str, call, *args, **kwargs) -> LeagueError:
    with pytest.raises(LeagueError) as info:
        call(*args, **kwargs)
    assert info.value.code == code
    return info.value


def snapshot() -> tuple:
    """Everything a league verb could write."""
    return (
        list(Registration.objects.values_list("season_id", "player_id").order_by("pk")),
        list(Placement.objects.values_list("division_id", "player_id", "seed").order_by("pk")),
        list(Season.objects.values_list("state", "starts_at").order_by("pk")),
        Game.objects.count(),
        Suspension.objects.count(),
    )


@pytest.fixture
def open_season(db) -> Season:
    season = make_season(make_league(), state=Season.State.REGISTRATION)
    return season


# --- registration ------------------------------------------------------------------


def test_a_player_registers_once(open_season) -> None:
    alice = make_player("alice")
    registration = services.registration_create(season_id=open_season.pk, player=alice)
    assert registration.player == alice and not registration.carried_over
    before = snapshot()
    error = refused(
        "already-registered", services.registration_create, season_id=open_season.pk, player=alice
    )
    with translation.override("en"):
        assert str(error.message) == "You are already registered for this season."
    with translation.override("fr"):
        assert str(error.message) == "Vous êtes déjà inscrit à cette saison."
    assert snapshot() == before


@pytest.mark.parametrize(
    "state", [Season.State.SCHEDULED, Season.State.RUNNING, Season.State.FINISHED]
)
def test_registration_is_refused_outside_its_window(state) -> None:
    season = make_season(make_league(), state=state)
    before = snapshot()
    error = refused(
        "registration-closed",
        services.registration_create,
        season_id=season.pk,
        player=make_player("late"),
    )
    with translation.override("fr"):
        assert str(error.message) == "Les inscriptions à cette saison sont closes."
    assert snapshot() == before


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("fr", "Les inscriptions à cette saison ouvrent le 4 janvier 2027 11:00."),
        ("en", "Registration for this season opens on Jan. 4, 2027, 11:00 AM."),
    ],
)
def test_registration_before_its_opening_time_is_refused_with_the_date(
    language: str, expected: str
) -> None:
    season = make_season(make_league())  # opens at T0 + 1 h: 11:00 in Paris, the site's time zone
    before = snapshot()
    with (
        time_machine.travel(season.registration_opens_at - timedelta(minutes=1), tick=False),
        translation.override(language),
    ):
        error = refused(
            "registration-not-open",
            services.registration_create,
            season_id=season.pk,
            player=make_player("early"),
        )
        assert str(error.message) == expected
    assert snapshot() == before


def test_a_player_registers_at_the_opening_time_even_before_beat_opens_the_season() -> None:
    season = make_season(make_league())
    with time_machine.travel(season.registration_opens_at, tick=False):
        services.registration_create(season_id=season.pk, player=make_player("first"))
    season.refresh_from_db()
    assert season.state == Season.State.REGISTRATION
    assert season.registration_opened_at == season.registration_opens_at
    assert season.registrations.get().player.username == "first"


def test_the_pages_open_every_season_due_once_and_only_in_active_leagues() -> None:
    due = make_season(make_league())
    later = make_season(make_league(slug="plus-tard"), opens=T0 + timedelta(hours=3))
    asleep = make_season(make_league(slug="en-sommeil", active=False))
    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        assert services.seasons_open_due() == 1
        assert services.seasons_open_due() == 0
    states = {s.pk: s.state for s in Season.objects.all()}
    assert states == {
        due.pk: Season.State.REGISTRATION,
        later.pk: Season.State.ANNOUNCED,
        asleep.pk: Season.State.ANNOUNCED,
    }


def test_registration_is_refused_to_a_suspended_player(open_season) -> None:
    staff = make_player("modo", is_staff=True)
    bob, carol = make_player("bob"), make_player("carol")
    Suspension.objects.create(player=bob, league=open_season.league, reason="abandons")
    Suspension.objects.create(player=carol, league=None, reason="insultes", until=T0)
    before = snapshot()
    with time_machine.travel(T0 - timedelta(days=1), tick=False), translation.override("en"):
        error = refused(
            "suspended", services.registration_create, season_id=open_season.pk, player=bob
        )
        assert error.message == "You are suspended from this league: you cannot register."
        error = refused(
            "suspended", services.registration_create, season_id=open_season.pk, player=carol
        )
        assert "until Jan. 4, 2027" in error.message  # the date it ends
    assert snapshot() == before
    # A suspension that has ended no longer bars; one of another league never did.
    with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
        services.registration_create(season_id=open_season.pk, player=carol)
    other = make_league(name="Autre", slug="autre")
    Suspension.objects.filter(player=bob).update(league=other)
    services.registration_create(season_id=open_season.pk, player=bob)
    assert open_season.registrations.count() == 2
    assert staff.pk  # staff exist but play no part here


def test_registration_is_refused_to_unverified_and_computer_players(open_season) -> None:
    before = snapshot()
    refused(
        "unverified",
        services.registration_create,
        season_id=open_season.pk,
        player=make_player("nouveau", verified=False),
    )
    refused(
        "no-player",
        services.registration_create,
        season_id=open_season.pk,
        player=computer_user(BotLevel.DEBUTANT),
    )
    refused("no-season", services.registration_create, season_id=999, player=make_player("x"))
    assert snapshot() == before


def test_a_player_takes_their_registration_back_only_while_it_is_open(open_season) -> None:
    alice = make_player("alice")
    refused("not-registered", services.registration_delete, season_id=open_season.pk, player=alice)
    services.registration_create(season_id=open_season.pk, player=alice)
    Season.objects.filter(pk=open_season.pk).update(state=Season.State.SCHEDULED)
    before = snapshot()
    refused(
        "registration-closed",
        services.registration_delete,
        season_id=open_season.pk,
        player=alice,
    )
    assert snapshot() == before
    Season.objects.filter(pk=open_season.pk).update(state=Season.State.REGISTRATION)
    services.registration_delete(season_id=open_season.pk, player=alice)
    assert not open_season.registrations.exists()


def test_opening_registration_happens_once_and_not_before_its_time() -> None:
    season = make_season(make_league())
    with time_machine.travel(season.registration_opens_at - timedelta(minutes=1), tick=False):
        assert not services.season_open_registration(season_id=season.pk)
    with time_machine.travel(season.registration_opens_at, tick=False):
        assert services.season_open_registration(season_id=season.pk)
        assert not services.season_open_registration(season_id=season.pk)
    season.refresh_from_db()
    assert season.state == Season.State.REGISTRATION
    assert season.registration_opened_at == season.registration_opens_at


def test_too_few_players_push_the_season_back(open_season) -> None:
    league = open_season.league
    league.division_min = 4
    league.save()
    for player in rated_players("p", 3):
        services.registration_create(season_id=open_season.pk, player=player)
    starts = open_season.starts_at
    with time_machine.travel(open_season.registration_closes_at, tick=False):
        assert not services.season_schedule(season_id=open_season.pk)
    open_season.refresh_from_db()
    assert open_season.state == Season.State.REGISTRATION
    assert open_season.starts_at == starts + timedelta(days=league.registration_days)
    assert not open_season.divisions.exists()


# --- placing players ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "low", "high", "sizes"),
    [
        (7, 2, 4, [4, 3]),
        (20, 6, 10, [10, 10]),
        (21, 6, 10, [7, 7, 7]),
        (11, 6, 10, [11]),  # the minimum wins
        (5, 6, 10, []),
        (26, 10, 12, [9, 9, 8]),  # never past the schedule's 12
        (2, 2, 2, [2]),
    ],
)
def test_division_sizes(n, low, high, sizes) -> None:
    assert division_sizes(n, low, high) == sizes
    assert sum(sizes) in (0, n)


@pytest.mark.parametrize(
    ("n", "moving"),
    [(2, 1), (3, 1), (4, 1), (6, 2), (8, 2), (10, 3), (12, 3), (14, 4), (18, 5)],
)
def test_about_a_quarter_moves_and_at_least_one(n, moving) -> None:
    assert moving_count(n) == moving


def test_promoted_players_land_higher_and_kept_players_never_lower() -> None:
    # Last season: level 1 (1, 2 kept, 3 relegated), level 2 (4 promoted, 5, 6 kept).
    returning = [
        Returning(1, 1, KEPT, 1),
        Returning(2, 1, KEPT, 2),
        Returning(3, 1, RELEGATED, 3),
        Returning(4, 2, PROMOTED, 1),
        Returning(5, 2, KEPT, 2),
        Returning(6, 2, KEPT, 3),
    ]
    assert place_levels(returning, [7, 8], [4, 4], 2) == [[1, 2, 4, 5], [6, 3, 7, 8]]
    # Fewer places on top than guaranteed players: the top takes one more.
    assert place_levels(returning, [], [2, 2, 2], 2) == [[1, 2, 4], [5, 6, 3]]
    # A division left too small at the bottom is merged into the one above.
    assert place_levels(returning[:4], [9], [3, 2], 3) == [[1, 2, 4, 3, 9]]


# --- staff: moving players before the start ----------------------------------------


def finished_season_with_results(league) -> Season:
    """Season 1 over: level 1 a0 kept, a1 relegated; level 2 b0 promoted, b1 kept."""
    season = make_season(
        league,
        opens=T0 - timedelta(days=40),
        closes=T0 - timedelta(days=35),
        ends=T0 - timedelta(days=10),
        state=Season.State.FINISHED,
    )
    for level, names in ((1, ["a0", "a1"]), (2, ["b0", "b1"])):
        division = season.divisions.create(level=level)
        for rank, name in enumerate(names, start=1):
            outcome = {"a0": KEPT, "a1": RELEGATED, "b0": PROMOTED, "b1": KEPT}[name]
            Placement.objects.create(
                season=season,
                division=division,
                player=make_player(name),
                seed=rank,
                final_rank=rank,
                outcome=outcome,
            )
    return season


@pytest.fixture
def scheduled(db) -> Season:
    league = make_league(division_min=2, division_max=3)
    first = finished_season_with_results(league)
    season = make_season(league, number=2, state=Season.State.REGISTRATION)
    for placement in first.placements.all():
        Registration.objects.create(season=season, player=placement.player, carried_over=True)
    for player in rated_players("n", 2):
        services.registration_create(season_id=season.pk, player=player)
    with time_machine.travel(season.registration_closes_at, tick=False):
        assert services.season_schedule(season_id=season.pk)
    season.refresh_from_db()
    return season


def placement_of(season: Season, name: str) -> Placement:
    return season.placements.select_related("division").get(player__username=name)


def seeds(season: Season) -> list[list[str]]:
    return [
        list(d.placements.order_by("seed").values_list("player__username", flat=True))
        for d in season.divisions.order_by("level")
    ]


def test_staff_move_a_player_between_divisions_before_the_start(scheduled) -> None:
    staff = make_player("modo", is_staff=True)
    assert seeds(scheduled) == [["a0", "b0", "b1"], ["a1", "n0", "n1"]]
    top, bottom = scheduled.divisions.order_by("level")
    services.placement_move(
        placement_id=placement_of(scheduled, "a1").pk, division_id=top.pk, by=staff
    )
    assert seeds(scheduled) == [["a0", "b0", "b1", "a1"], ["n0", "n1"]]
    # The seeds stay 1, 2, 3… in both divisions.
    for division in (top, bottom):
        assert list(division.placements.order_by("seed").values_list("seed", flat=True)) == list(
            range(1, division.placements.count() + 1)
        )


def test_moves_that_break_a_guarantee_or_a_division_are_refused(scheduled) -> None:
    staff = make_player("modo", is_staff=True)
    top, bottom = scheduled.divisions.order_by("level")
    before = snapshot()
    # b0 was promoted from level 2: it must play in division 1; b1 kept at 2, a0 kept at 1.
    error = refused(
        "guaranteed-level",
        services.placement_move,
        placement_id=placement_of(scheduled, "b0").pk,
        division_id=bottom.pk,
        by=staff,
    )
    with translation.override("fr"):
        assert "division 1" in str(error.message)
    refused(
        "guaranteed-level",
        services.placement_move,
        placement_id=placement_of(scheduled, "a0").pk,
        division_id=bottom.pk,
        by=staff,
    )
    refused(
        "same-division",
        services.placement_move,
        placement_id=placement_of(scheduled, "n0").pk,
        division_id=bottom.pk,
        by=staff,
    )
    other = make_season(make_league(name="Autre", slug="autre"), state=Season.State.SCHEDULED)
    refused(
        "bad-division",
        services.placement_move,
        placement_id=placement_of(scheduled, "n0").pk,
        division_id=other.divisions.create(level=1).pk,
        by=staff,
    )
    assert snapshot()[:2] == before[:2]
    # Leaving a division with fewer players than a table is refused too.
    services.placement_move(
        placement_id=placement_of(scheduled, "n0").pk, division_id=top.pk, by=staff
    )
    before = snapshot()
    refused(
        "too-few",
        services.placement_move,
        placement_id=placement_of(scheduled, "n1").pk,
        division_id=top.pk,
        by=staff,
    )
    assert snapshot() == before


def test_players_cannot_be_moved_once_the_season_has_started(scheduled) -> None:
    staff = make_player("modo", is_staff=True)
    with time_machine.travel(scheduled.starts_at, tick=False):
        assert services.season_start(season_id=scheduled.pk)
    top = scheduled.divisions.get(level=1)
    before = snapshot()
    refused(
        "not-scheduled",
        services.placement_move,
        placement_id=placement_of(scheduled, "n0").pk,
        division_id=top.pk,
        by=staff,
    )
    assert snapshot() == before


# --- staff: withdrawing and suspending ---------------------------------------------


def test_a_player_withdrawn_mid_season_resigns_their_remaining_games(scheduled) -> None:
    staff = make_player("modo", is_staff=True)
    with time_machine.travel(scheduled.starts_at, tick=False):
        assert services.season_start(season_id=scheduled.pk)
    a1 = placement_of(scheduled, "a1").player
    games = Game.objects.filter(league_game__division__season=scheduled, seats__player=a1)
    assert games.count() == 2 and set(games.values_list("status", flat=True)) == {"running"}
    assert services.placement_withdraw(season_id=scheduled.pk, player=a1, by=staff) == 2
    assert set(games.values_list("status", flat=True)) == {"finished"}
    assert set(Seat.objects.filter(player=a1).values_list("status", flat=True)) == {"resigned"}
    assert placement_of(scheduled, "a1").outcome == Placement.Outcome.WITHDRAWN
    before = snapshot()
    refused(
        "already-withdrawn",
        services.placement_withdraw,
        season_id=scheduled.pk,
        player=a1,
        by=staff,
    )
    refused(
        "not-placed",
        services.placement_withdraw,
        season_id=scheduled.pk,
        player=make_player("nobody"),
        by=staff,
    )
    assert snapshot() == before


def test_a_player_withdrawn_before_the_start_leaves_their_division(scheduled) -> None:
    staff = make_player("modo", is_staff=True)
    n1 = placement_of(scheduled, "n1").player
    assert services.placement_withdraw(season_id=scheduled.pk, player=n1, by=staff) == 0
    assert seeds(scheduled) == [["a0", "b0", "b1"], ["a1", "n0"]]
    assert not scheduled.registrations.filter(player=n1).exists()


def test_a_suspension_drops_registrations_not_started_and_bars_new_ones(open_season) -> None:
    staff = make_player("modo", is_staff=True)
    bob = make_player("bob")
    services.registration_create(season_id=open_season.pk, player=bob)
    before = snapshot()
    refused("no-reason", services.suspension_create, player=bob, reason="  ", by=staff)
    refused(
        "bad-until",
        services.suspension_create,
        player=bob,
        reason="abandons",
        by=staff,
        until=T0 - timedelta(days=400),
    )
    assert snapshot() == before
    suspension = services.suspension_create(
        player=bob, reason="abandons", by=staff, league=open_season.league
    )
    assert suspension.created_by == staff
    assert not open_season.registrations.filter(player=bob).exists()
    refused("suspended", services.registration_create, season_id=open_season.pk, player=bob)


# --- the games a season creates -----------------------------------------------------


def test_an_organised_game_plays_in_the_order_given_with_no_draw() -> None:
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    game = game_create_organised(players=[carol, alice, bob], mode="marque", days_per_move=3)
    seats = game.seat_list()
    assert [s.player.username for s in seats] == ["carol", "alice", "bob"]
    assert game.to_move is not None
    assert game.to_move.player == carol and game.first_player_draw == []
    assert game.status == Game.Status.RUNNING and game.rated
    # No "game started" email: the league's season-started email lists every game.
    from notifications.models import Notification

    assert not Notification.objects.exists()


def test_the_close_waits_for_every_game_and_leaves_withdrawn_players_behind(scheduled) -> None:
    staff = make_player("modo", is_staff=True)
    with time_machine.travel(scheduled.starts_at, tick=False):
        assert services.season_start(season_id=scheduled.pk)
    a0 = placement_of(scheduled, "a0").player
    services.placement_withdraw(season_id=scheduled.pk, player=a0, by=staff)
    after_end = scheduled.ends_at + timedelta(minutes=1)
    # A game still running at the end: the close waits for it.
    assert not services.season_close(season_id=scheduled.pk, now=after_end)
    assert Season.objects.get(pk=scheduled.pk).state == Season.State.RUNNING
    for game in Game.objects.filter(status=Game.Status.RUNNING):
        # The first seat plays a move, then the second resigns.
        first, second = game.seat_list()
        move_submit(game_id=game.pk, player=first.player, version=0, move=rules.Pass(0))
        game_resign(game_id=game.pk, player=second.player)
    assert services.season_close(season_id=scheduled.pk, now=after_end)
    assert not services.season_close(season_id=scheduled.pk, now=after_end)  # once
    assert placement_of(scheduled, "a0").outcome == Placement.Outcome.WITHDRAWN
    following = Season.objects.get(league=scheduled.league, number=3)
    assert following.state == Season.State.REGISTRATION
    assert not following.registrations.filter(player=a0).exists()
    assert following.registrations.count() == 5


def test_beat_runs_the_leagues_step_and_records_its_runs() -> None:
    entry = next(
        e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "leagues.advance"
    )
    assert entry["schedule"] == 300.0
    tasks.seasons_advance.delay()
    assert TaskRun.objects.filter(task="leagues.advance").exists()


def test_a_division_left_smaller_than_a_table_is_merged_at_the_start(scheduled) -> None:
    staff = make_player("modo", is_staff=True)
    # The bottom division (a1, n0, n1) loses two players before the start.
    for name in ("n0", "n1"):
        player = placement_of(scheduled, name).player
        services.placement_withdraw(season_id=scheduled.pk, player=player, by=staff)
    with time_machine.travel(scheduled.starts_at, tick=False):
        assert services.season_start(season_id=scheduled.pk)
    assert seeds(scheduled) == [["a0", "b0", "b1", "a1"]]
    assert scheduled.divisions.get().level == 1
    # One round robin of four: six games, a1 in three of them.
    assert Game.objects.count() == 6
    assert Game.objects.filter(seats__player__username="a1").count() == 3


def test_the_last_week_is_announced_once_and_never_after_the_end(scheduled) -> None:
    with time_machine.travel(scheduled.starts_at, tick=False):
        assert services.season_start(season_id=scheduled.pk)
    ends = scheduled.ends_at
    assert not services.season_last_week(season_id=scheduled.pk, now=ends - timedelta(days=8))
    assert not services.season_last_week(season_id=scheduled.pk, now=ends + timedelta(hours=1))
    assert services.season_last_week(season_id=scheduled.pk, now=ends - timedelta(days=6))
    assert not services.season_last_week(season_id=scheduled.pk, now=ends - timedelta(days=5))


def test_a_double_round_robin_league_plays_every_pair_twice_once_each_way() -> None:
    league = make_league(double_round_robin=True, division_min=2, division_max=4)
    season = make_season(league, state=Season.State.REGISTRATION)
    for player in rated_players("p", 4):
        services.registration_create(season_id=season.pk, player=player)
    with time_machine.travel(season.starts_at, tick=False):
        assert services.season_schedule(season_id=season.pk)
        assert services.season_start(season_id=season.pk)
    orders = [
        tuple(g.seat_list()[i].player.username for i in range(2))
        for g in Game.objects.filter(league_game__division__season=season)
    ]
    assert len(orders) == 12 and len(set(orders)) == 12  # every ordered pair once


def test_a_deleted_account_leaves_its_seasons(scheduled) -> None:
    later = make_season(scheduled.league, number=3, state=Season.State.REGISTRATION)
    a0 = placement_of(scheduled, "a0").player
    services.registration_create(season_id=later.pk, player=a0)
    with time_machine.travel(scheduled.starts_at, tick=False):
        assert services.season_start(season_id=scheduled.pk)
    user_delete(user=a0)
    assert not later.registrations.filter(player=a0).exists()
    assert scheduled.placements.get(player=a0).outcome == Placement.Outcome.WITHDRAWN
    assert not Game.objects.filter(
        status=Game.Status.RUNNING, seats__player=a0, seats__status=Seat.Status.ACTIVE
    ).exists()


def test_players_tied_on_every_tie_break_at_the_line_go_in_seed_order(
    scheduled, monkeypatch
) -> None:
    """Standings in which all three players of each division share rank 1 (tied on
    points, score differences and head-to-head), listed worst seed first: the better
    seed goes up first and down last, whatever order the standings list them in."""
    from fractions import Fraction

    from leagues import results
    from leagues.standings import Row

    def all_tied(division, players):
        seeds = {p.player_id: p.seed for p in division.placements.all()}
        worst_first = sorted(players, key=lambda player: -seeds[player.pk])
        return [Row(player, rank=1, points=Fraction(1), played=2) for player in worst_first]

    monkeypatch.setattr(results, "division_standings", all_tied)
    with time_machine.travel(scheduled.starts_at, tick=False):
        assert services.season_start(season_id=scheduled.pk)
    for game in Game.objects.filter(status=Game.Status.RUNNING):
        first, second = game.seat_list()
        move_submit(game_id=game.pk, player=first.player, version=0, move=rules.Pass(0))
        game_resign(game_id=game.pk, player=second.player)
    assert services.season_close(season_id=scheduled.pk, now=scheduled.ends_at + timedelta(1))
    for division in scheduled.divisions.all():
        placements = list(division.placements.order_by("seed"))
        assert len(placements) == 3 and {p.final_rank for p in placements} == {1}
        outcomes = [p.outcome for p in placements]
        if division.level == 1:
            assert outcomes == [KEPT, KEPT, RELEGATED]
            assert all(p.champion for p in placements)  # a shared first place
        else:
            assert outcomes == [PROMOTED, KEPT, KEPT]
