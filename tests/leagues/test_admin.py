"""The staff's league actions in the admin: each asks on a confirmation page, then acts
through the services; a refusal is a message and changes nothing."""

from __future__ import annotations

import pytest
import time_machine
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client
from django.urls import reverse

from games.models import Game
from leagues import services
from leagues.models import League, Placement, Registration, Season, Suspension
from tests.factories import make_player
from tests.leagues.lifecycle import make_league, make_season, rated_players

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(make_player("admin", is_staff=True, is_superuser=True, language="en"))
    return client


@pytest.fixture
def scheduled(db) -> Season:
    season = make_season(
        make_league(division_min=2, division_max=3), state=Season.State.REGISTRATION
    )
    for player in rated_players("p", 6):
        services.registration_create(season_id=season.pk, player=player)
    with time_machine.travel(season.registration_closes_at, tick=False):
        assert services.season_schedule(season_id=season.pk)
    return season


def placement(name: str) -> Placement:
    return Placement.objects.select_related("division").get(player__username=name)


def action(client: Client, model: str, name: str, pks: list[int], **data: object):
    url = reverse(f"admin:leagues_{model}_changelist")
    return client.post(
        url, {"action": name, ACTION_CHECKBOX_NAME: [str(pk) for pk in pks], **data}, follow=True
    )


def test_moving_a_player_asks_for_the_division_then_moves_them(staff_client, scheduled) -> None:
    p5 = placement("p5")
    top = scheduled.divisions.get(level=1)
    page = action(staff_client, "placement", "move_players", [p5.pk])
    assert page.status_code == 200
    html = page.content.decode()
    assert "Move players to another division" in html and "p5" in html
    assert placement("p5").division.level == 2  # nothing done yet
    page = action(
        staff_client, "placement", "move_players", [p5.pk], apply="yes", division=str(top.pk)
    )
    assert "P5 moved to Division 1." in page.content.decode()
    assert placement("p5").division == top and placement("p5").seed == 4


def test_a_refused_move_is_a_message_and_changes_nothing(staff_client, scheduled) -> None:
    with time_machine.travel(scheduled.starts_at, tick=False):
        services.season_start(season_id=scheduled.pk)
    p5 = placement("p5")
    top = scheduled.divisions.get(level=1)
    page = action(
        staff_client, "placement", "move_players", [p5.pk], apply="yes", division=str(top.pk)
    )
    assert "P5: nothing done. Players can be moved only" in page.content.decode()
    assert placement("p5").division.level == 2


def test_withdrawing_a_player_mid_season_asks_then_resigns_their_games(
    staff_client, scheduled
) -> None:
    with time_machine.travel(scheduled.starts_at, tick=False):
        services.season_start(season_id=scheduled.pk)
    p0 = placement("p0")
    page = action(staff_client, "placement", "withdraw_players", [p0.pk])
    assert "Withdraw players" in page.content.decode()
    assert Game.objects.filter(status=Game.Status.RUNNING).count() == 6
    # Without ticking the confirmation box: the page again, with the error, nothing done.
    page = action(staff_client, "placement", "withdraw_players", [p0.pk], apply="yes")
    assert page.status_code == 400
    assert Game.objects.filter(status=Game.Status.RUNNING).count() == 6
    page = action(staff_client, "placement", "withdraw_players", [p0.pk], apply="yes", confirm="on")
    assert "P0 withdrawn; 2 games resigned." in page.content.decode()
    assert placement("p0").outcome == Placement.Outcome.WITHDRAWN
    assert Game.objects.filter(status=Game.Status.RUNNING).count() == 4


def test_suspending_from_a_registration_asks_for_the_reason_then_drops_it(staff_client) -> None:
    season = make_season(make_league(), state=Season.State.REGISTRATION)
    bob = make_player("bob")
    registration = services.registration_create(season_id=season.pk, player=bob)
    page = action(staff_client, "registration", "suspend_players", [registration.pk])
    assert "Suspend players" in page.content.decode()
    page = action(
        staff_client, "registration", "suspend_players", [registration.pk], apply="yes", reason=""
    )
    assert page.status_code == 400 and Registration.objects.filter(pk=registration.pk).exists()
    page = action(
        staff_client,
        "registration",
        "suspend_players",
        [registration.pk],
        apply="yes",
        reason="Abandons répétés",
    )
    assert "Bob suspended from Ligue du mardi." in page.content.decode()
    suspension = Suspension.objects.get(player=bob)
    assert suspension.league == season.league and suspension.reason == "Abandons répétés"
    assert not Registration.objects.filter(pk=registration.pk).exists()


def test_a_suspension_added_in_the_admin_goes_through_the_service(staff_client) -> None:
    season = make_season(make_league(), state=Season.State.REGISTRATION)
    bob = make_player("bob")
    services.registration_create(season_id=season.pk, player=bob)
    page = staff_client.post(
        reverse("admin:leagues_suspension_add"),
        {"player": bob.pk, "league": "", "until": "", "reason": "Insultes"},
        follow=True,
    )
    assert page.status_code == 200
    assert Suspension.objects.get(player=bob).league is None
    assert not season.registrations.exists()


def test_the_leagues_admin_pages_answer(staff_client, scheduled) -> None:
    league = League.objects.get()
    division = scheduled.divisions.get(level=1)
    for url in (
        reverse("admin:leagues_league_changelist"),
        reverse("admin:leagues_league_change", args=[league.pk]),
        reverse("admin:leagues_season_change", args=[scheduled.pk]),
        reverse("admin:leagues_division_change", args=[division.pk]),
        reverse("admin:leagues_placement_changelist"),
        reverse("admin:leagues_registration_changelist"),
        reverse("admin:leagues_suspension_add"),
    ):
        assert staff_client.get(url).status_code == 200, url
    season_days = staff_client.get(reverse("admin:leagues_league_add")).content.decode()
    assert "Season length (days)" in season_days


def test_a_league_with_divisions_smaller_than_a_table_is_refused(staff_client) -> None:
    page = staff_client.post(
        reverse("admin:leagues_league_add"),
        {
            "name": "Ligue à trois",
            "slug": "ligue-a-trois",
            "table_size": 3,
            "days_per_move": 3,
            "season_days": 28,
            "registration_days": 7,
            "division_min": 2,
            "division_max": 10,
            "active": "on",
            "seasons-TOTAL_FORMS": 0,
            "seasons-INITIAL_FORMS": 0,
        },
    )
    assert page.status_code == 200
    assert "A division needs at least one full table of players." in page.content.decode()
    assert not League.objects.exists()


def test_staff_announce_a_season_whose_times_come_in_order(staff_client) -> None:
    league = make_league()
    form = {
        "league": league.pk,
        "number": 1,
        "registration_opens_at_0": "2027-01-10",
        "registration_opens_at_1": "09:00",
        "registration_closes_at_0": "2027-01-17",
        "registration_closes_at_1": "09:00",
        "starts_at_0": "2027-01-17",
        "starts_at_1": "09:00",
        "ends_at_0": "2027-01-10",
        "ends_at_1": "09:00",
        "divisions-TOTAL_FORMS": 0,
        "divisions-INITIAL_FORMS": 0,
    }
    page = staff_client.post(reverse("admin:leagues_season_add"), form)
    assert page.status_code == 200 and "The times must come in order" in page.content.decode()
    assert not Season.objects.exists()
    form["ends_at_0"] = "2027-02-14"
    page = staff_client.post(reverse("admin:leagues_season_add"), form)
    assert page.status_code == 302
    season = Season.objects.get()
    assert season.state == Season.State.ANNOUNCED and season.ends_at.day == 14


def staff_who_may_only_view() -> Client:
    from django.contrib.auth.models import Permission

    viewer = make_player("viewer", is_staff=True, language="en")
    viewer.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="leagues",
            codename__in=["view_placement", "view_registration", "view_division"],
        )
    )
    client = Client()
    client.force_login(viewer)
    return client


def test_staff_who_may_only_view_are_not_offered_the_actions_nor_can_post_them(
    scheduled,
) -> None:
    """Before the actions asked for a permission, a viewer withdrew a player."""
    viewer = staff_who_may_only_view()
    with time_machine.travel(scheduled.starts_at, tick=False):
        services.season_start(season_id=scheduled.pk)
    page = viewer.get(reverse("admin:leagues_placement_changelist"))
    assert page.status_code == 200
    html = page.content.decode()
    for name in ("move_players", "withdraw_players", "suspend_players"):
        assert f'value="{name}"' not in html
    p0 = placement("p0")
    top = scheduled.divisions.get(level=1)
    action(viewer, "placement", "withdraw_players", [p0.pk], apply="yes", confirm="on")
    action(viewer, "placement", "move_players", [p0.pk], apply="yes", division=str(top.pk))
    action(viewer, "placement", "suspend_players", [p0.pk], apply="yes", reason="Non")
    assert placement("p0").outcome != Placement.Outcome.WITHDRAWN
    assert Game.objects.filter(status=Game.Status.RUNNING).count() == 6
    assert not Suspension.objects.exists()


def test_staff_who_may_only_view_registrations_cannot_suspend_from_them() -> None:
    season = make_season(make_league(), state=Season.State.REGISTRATION)
    registration = services.registration_create(season_id=season.pk, player=make_player("bob"))
    viewer = staff_who_may_only_view()
    html = viewer.get(reverse("admin:leagues_registration_changelist")).content.decode()
    assert 'value="suspend_players"' not in html
    action(viewer, "registration", "suspend_players", [registration.pk], apply="yes", reason="Non")
    assert not Suspension.objects.exists()
    assert Registration.objects.filter(pk=registration.pk).exists()


def test_staff_who_may_suspend_but_not_change_placements_are_offered_only_suspend(
    scheduled,
) -> None:
    from django.contrib.auth.models import Permission

    moderator = make_player("moderator", is_staff=True, language="en")
    moderator.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="leagues", codename__in=["view_placement", "add_suspension"]
        )
    )
    client = Client()
    client.force_login(moderator)
    html = client.get(reverse("admin:leagues_placement_changelist")).content.decode()
    assert 'value="suspend_players"' in html and 'value="withdraw_players"' not in html
    p0 = placement("p0")
    page = action(client, "placement", "suspend_players", [p0.pk], apply="yes", reason="Abandons")
    assert "P0 suspended from" in page.content.decode()
    assert Suspension.objects.filter(player__username="p0").exists()


LATER = {
    "registration_opens_at_0": "2030-11-01",
    "registration_opens_at_1": "09:00",
    "registration_closes_at_0": "2030-11-20",
    "registration_closes_at_1": "09:00",
    "starts_at_0": "2030-12-01",
    "starts_at_1": "09:00",
    "ends_at_0": "2031-01-01",
    "ends_at_1": "09:00",
}


def test_a_running_seasons_times_cannot_be_changed_in_the_admin(staff_client, scheduled) -> None:
    fields = ("registration_opens_at", "registration_closes_at", "starts_at", "ends_at")
    change = reverse("admin:leagues_season_change", args=[scheduled.pk])
    # Before the start the times may still be put right…
    assert 'name="ends_at_0"' in staff_client.get(change).content.decode()
    with time_machine.travel(scheduled.starts_at, tick=False):
        services.season_start(season_id=scheduled.pk)
    scheduled.refresh_from_db()
    assert scheduled.state == Season.State.RUNNING
    before = Season.objects.values(*fields).get(pk=scheduled.pk)
    # …once it runs they are shown, not offered; what is posted for them is ignored.
    page = staff_client.get(change).content.decode()
    assert 'name="ends_at_0"' not in page and 'name="starts_at_0"' not in page
    management = {"divisions-TOTAL_FORMS": 0, "divisions-INITIAL_FORMS": 0}
    form = {"league": scheduled.league_id, "number": scheduled.number, **LATER, **management}
    assert staff_client.post(change, form).status_code == 302
    assert Season.objects.values(*fields).get(pk=scheduled.pk) == before
    # Nor through the league's page, where its seasons are rows.
    from leagues.admin import SeasonInlineForm

    row = SeasonInlineForm({"number": scheduled.number, **LATER}, instance=scheduled)
    assert all(row.fields[name].disabled for name in fields)
    assert row.is_valid(), row.errors
    row.save()
    assert Season.objects.values(*fields).get(pk=scheduled.pk) == before
