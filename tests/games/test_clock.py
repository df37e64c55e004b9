"""The correspondence clock is computed from when the turn began, and stops on vacation."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from accounts.vacations import vacation_cancel, vacation_end, vacation_start
from games import clock, selectors, services
from tests.games.conftest import seat_at, start_game

T0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def test_without_vacation_the_deadline_is_the_turn_start_plus_the_days_per_move() -> None:
    assert clock.turn_deadline(T0, 3) == T0 + 3 * DAY


def test_a_vacation_inside_the_turn_pushes_the_deadline_by_its_length() -> None:
    pause = (T0 + DAY, T0 + 3 * DAY)
    assert clock.turn_deadline(T0, 3, [pause]) == T0 + 5 * DAY


def test_a_vacation_running_when_the_turn_begins_starts_the_clock_at_its_end() -> None:
    pause = (T0 - DAY, T0 + 2 * DAY)
    assert clock.turn_deadline(T0, 3, [pause]) == T0 + 5 * DAY


def test_a_vacation_after_the_deadline_changes_nothing() -> None:
    assert clock.turn_deadline(T0, 2, [(T0 + 2 * DAY, T0 + 4 * DAY)]) == T0 + 2 * DAY


def test_overlapping_and_successive_vacations_count_once() -> None:
    pauses = [(T0 + DAY, T0 + 3 * DAY), (T0 + 2 * DAY, T0 + 4 * DAY), (T0 + 5 * DAY, T0 + 6 * DAY)]
    # Clock time: 1 day, stop until day 4, 1 day, stop until day 6, 1 day.
    assert clock.turn_deadline(T0, 3, pauses) == T0 + 7 * DAY


def test_the_reminder_comes_a_day_early_or_halfway_through_a_one_day_turn() -> None:
    assert clock.reminder_lead(3) == timedelta(hours=24)
    assert clock.reminder_lead(2) == timedelta(hours=24)
    assert clock.reminder_lead(1) == timedelta(hours=12)


@pytest.mark.django_db
def test_the_game_deadline_stops_while_the_player_to_move_is_on_vacation(alice, bob) -> None:
    with time_machine.travel(T0, tick=False):
        game = start_game([alice, bob])
    first = seat_at(game, 0).player
    assert selectors.deadline_of(game) == T0 + 3 * DAY
    vacation_start(user=first, days=4, now=T0 + DAY)
    assert selectors.deadline_of(game) == T0 + 7 * DAY
    vacation_end(user=first, now=T0 + 2 * DAY)
    assert selectors.deadline_of(game) == T0 + 4 * DAY
    # The other player's vacation does not touch this turn.
    vacation_start(user=seat_at(game, 1).player, days=5, now=T0 + 2 * DAY)
    assert selectors.deadline_of(game) == T0 + 4 * DAY


@pytest.mark.django_db
def test_my_games_lists_deadlines_with_vacations(alice, bob) -> None:
    with time_machine.travel(T0, tick=False):
        game = start_game([alice, bob])
    first = seat_at(game, 0).player
    vacation_start(user=first, days=2, now=T0)
    mine = selectors.my_games(first)["my_turn"]
    assert [(g.pk, g.deadline) for g in mine] == [(game.pk, T0 + 5 * DAY)]


@pytest.mark.django_db
def test_a_resignation_out_of_turn_does_not_restart_the_clock_of_the_player_to_move(
    alice, bob, carol
) -> None:
    with time_machine.travel(T0, tick=False):
        game = start_game([alice, bob, carol])
    with time_machine.travel(T0 + DAY, tick=False):
        services.game_resign(game_id=game.pk, player=seat_at(game, 2).player)
    game.refresh_from_db()
    assert game.to_move == seat_at(game, 0)
    assert selectors.deadline_of(game) == T0 + 3 * DAY


def english_game_at_t0(*players):
    """A game started at T0 by English readers: the game, its first and second players."""
    for player in players:
        player.language = "en"
        player.save()
    with time_machine.travel(T0, tick=False):
        game = start_game(list(players))
    return game, seat_at(game, 0).player, seat_at(game, 1).player


def game_page(game, viewer, at: datetime) -> str:
    client = Client()
    client.force_login(viewer)
    with time_machine.travel(at, tick=False):
        return client.get(reverse("games:page", args=[game.pk])).content.decode()


@pytest.mark.django_db
def test_the_game_page_shows_until_when_a_player_is_on_vacation(alice, bob) -> None:
    game, first, second = english_game_at_t0(alice, bob)
    vacation_start(user=first, days=3, now=T0)
    html = game_page(game, second, T0 + timedelta(hours=1))
    assert "on vacation until" in html
    assert html.count("on vacation until") == 1
    # The deadline shown is pushed by the vacation: 3 days of vacation + 3 of clock.
    deadline = (T0 + 6 * DAY).astimezone(ZoneInfo(second.time_zone)).isoformat()
    assert f'<time datetime="{deadline}">' in html


# --- a vacation booked ahead -----------------------------------------------------------------


def first_day_after(player, moment: datetime) -> date:
    """The player's next local day after ``moment``."""
    return moment.astimezone(ZoneInfo(player.time_zone)).date() + DAY


@pytest.mark.django_db
def test_a_vacation_booked_to_begin_mid_turn_pushes_the_deadline_everywhere(alice, bob) -> None:
    game, first, second = english_game_at_t0(alice, bob)
    assert selectors.deadline_of(game) == T0 + 3 * DAY
    # Booked an hour into the turn, from the next midnight (well before the deadline).
    vacation = vacation_start(
        user=first, days=2, first_day=first_day_after(first, T0), now=T0 + timedelta(hours=1)
    )
    assert T0 < vacation.starts_at < T0 + DAY
    pushed = T0 + 5 * DAY
    assert selectors.deadline_of(game) == pushed
    assert clock.deadlines_of([game]) == {game.pk: pushed}
    assert [(g.pk, g.deadline) for g in selectors.my_games(first)["my_turn"]] == [(game.pk, pushed)]
    html = game_page(game, second, T0 + timedelta(hours=2))
    shown = pushed.astimezone(ZoneInfo(second.time_zone)).isoformat()
    assert f'<time datetime="{shown}">' in html
    # The others see why the deadline is that far: the vacation ahead, not yet "on vacation".
    assert html.count("on vacation from") == 1
    assert "on vacation until" not in html
    # Once it has begun, the badge says until when, as for a vacation started on the spot.
    html = game_page(game, second, vacation.starts_at + timedelta(hours=1))
    assert "on vacation until" in html and "on vacation from" not in html


@pytest.mark.django_db
def test_a_vacation_booked_after_the_deadline_or_by_another_player_is_not_shown(alice, bob) -> None:
    game, first, second = english_game_at_t0(alice, bob)
    vacation_start(user=first, days=2, first_day=first_day_after(first, T0 + 3 * DAY), now=T0)
    vacation_start(user=second, days=2, first_day=first_day_after(second, T0), now=T0)
    assert selectors.deadline_of(game) == T0 + 3 * DAY
    assert "on vacation from" not in game_page(game, second, T0 + timedelta(hours=2))


@pytest.mark.django_db
def test_cancelling_a_vacation_booked_ahead_brings_the_deadline_back(alice, bob) -> None:
    with time_machine.travel(T0, tick=False):
        game = start_game([alice, bob])
    first = seat_at(game, 0).player
    vacation = vacation_start(user=first, days=4, first_day=first_day_after(first, T0), now=T0)
    assert selectors.deadline_of(game) == T0 + 7 * DAY
    vacation_cancel(user=first, vacation_id=vacation.pk, now=T0 + timedelta(hours=2))
    assert selectors.deadline_of(game) == T0 + 3 * DAY


def test_the_vacation_ahead_is_the_first_to_begin_before_the_deadline() -> None:
    later = (T0 + 2 * DAY, T0 + 3 * DAY)
    sooner = (T0 + DAY, T0 + 2 * DAY)
    deadline = T0 + 5 * DAY
    assert clock.vacation_ahead([later, sooner], deadline, T0) == T0 + DAY
    assert clock.vacation_ahead([sooner], deadline, T0 + DAY) is None  # already begun
    assert clock.vacation_ahead([(deadline, deadline + DAY)], deadline, T0) is None
    assert clock.vacation_ahead([sooner], None, T0) is None
