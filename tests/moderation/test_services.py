"""Reports: who may file one, the limits, and resolving them."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone

from games import services as game_services
from games.errors import GameError
from moderation.models import Report
from moderation.services import report_create, report_resolve
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game
from tests.moderation.conftest import report, seat_of

REPORTS_PER_DAY = settings.DIAMINO_RATE_LIMITS["reports"][0]

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db):
    return make_player("modo", is_staff=True)


def refused(code: str, **kwargs) -> GameError:
    with pytest.raises(GameError) as error:
        report_create(**kwargs)
    assert error.value.code == code
    return error.value


def test_a_seated_player_reports_another_player(game, alice, bob) -> None:
    filed = report(game, alice, about=bob, text="  Des mots introuvables à chaque coup.  ")
    assert (filed.reporter, filed.game, filed.reported_player) == (alice, game, bob)
    assert (filed.reason, filed.text) == ("cheating", "Des mots introuvables à chaque coup.")
    assert filed.status == Report.Status.OPEN
    assert (filed.resolution, filed.resolved_by, filed.resolved_at) == ("", None, None)


def test_a_player_can_report_the_game_itself(game, alice) -> None:
    filed = report(game, alice, reason="other", text="La partie s'est bloquée.")
    assert filed.reported_player is None


def test_a_finished_game_can_still_be_reported(alice, bob) -> None:
    game = start_game([alice, bob])
    game_services.game_resign(game_id=game.pk, player=bob)
    assert report(game, alice, about=bob, reason="abuse").pk


def test_an_outsider_cannot_report_a_game(game, outsider, bob) -> None:
    refused(
        "not-a-player",
        reporter=outsider,
        game_id=game.pk,
        reported_seat_id=seat_of(game, bob).pk,
        reason="cheating",
        text="x",
    )
    assert not Report.objects.exists()


def test_a_player_cannot_report_themselves(game, alice) -> None:
    kwargs = {"game_id": game.pk, "reason": "other", "text": "moi"}
    refused("self", reporter=alice, reported_seat_id=seat_of(game, alice).pk, **kwargs)
    assert not Report.objects.exists()


def test_the_reported_seat_must_be_in_the_game(game, alice, outsider) -> None:
    elsewhere = start_game([outsider, make_player("dora")])
    seat = seat_at(elsewhere, 0)
    refused(
        "no-seat",
        reporter=alice,
        game_id=game.pk,
        reported_seat_id=seat.pk,
        reason="abuse",
        text="x",
    )


def test_an_open_table_cannot_be_reported(alice, bob) -> None:
    table = game_services.game_create(creator=alice, mode="marque", seats=3)
    game_services.game_join(game_id=table.pk, player=bob)
    refused(
        "not-started",
        reporter=alice,
        game_id=table.pk,
        reported_seat_id=None,
        reason="offensive",
        text="Ce nom !",
    )


@pytest.mark.parametrize(
    ("reason", "text", "code"),
    [
        ("triche", "x", "bad-reason"),
        ("abuse", "   ", "no-text"),
        ("abuse", "x" * 1001, "text-long"),
    ],
)
def test_a_reason_and_a_short_text_are_needed(game, alice, reason, text, code) -> None:
    refused(code, reporter=alice, game_id=game.pk, reported_seat_id=None, reason=reason, text=text)
    assert not Report.objects.exists()


def test_the_same_open_report_cannot_be_filed_twice(game, alice, bob, carol, staff) -> None:
    first = report(game, alice, about=bob)
    error = refused(
        "already-reported",
        reporter=alice,
        game_id=game.pk,
        reported_seat_id=seat_of(game, bob).pk,
        reason="abuse",
        text="encore",
    )
    assert error.status == 409
    assert report(game, alice, about=carol).pk  # another player is another report
    report_resolve(report_id=first.pk, by=staff, resolution="Averti.")
    assert report(game, alice, about=bob).pk  # once resolved, a new report is welcome


def test_a_player_may_send_a_few_reports_a_day(alice, bob, carol) -> None:
    games = [start_game([alice, bob]) for _ in range(REPORTS_PER_DAY + 1)]
    for game in games[:REPORTS_PER_DAY]:
        report(game, alice, about=bob)
    error = refused(
        "too-many",
        reporter=alice,
        game_id=games[-1].pk,
        reported_seat_id=None,
        reason="other",
        text="x",
    )
    assert error.status == 429
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)):
        assert report(games[-1], alice).pk


def test_staff_resolve_a_report_saying_what_was_done(game, alice, bob, staff) -> None:
    filed = report(game, alice, about=bob)
    resolved = report_resolve(report_id=filed.pk, by=staff, resolution="  Partie annulée.  ")
    filed.refresh_from_db()
    assert filed.status == Report.Status.RESOLVED
    assert (filed.resolution, filed.resolved_by) == ("Partie annulée.", staff)
    assert filed.resolved_at is not None and resolved.pk == filed.pk


def test_resolving_needs_staff_a_resolution_and_an_open_report(game, alice, bob, staff) -> None:
    filed = report(game, alice, about=bob)
    for by, resolution, code in [(bob, "rien", "not-staff"), (staff, "  ", "no-resolution")]:
        with pytest.raises(GameError) as error:
            report_resolve(report_id=filed.pk, by=by, resolution=resolution)
        assert error.value.code == code
    filed.refresh_from_db()
    assert filed.status == Report.Status.OPEN
    report_resolve(report_id=filed.pk, by=staff, resolution="Averti.")
    with pytest.raises(GameError) as error:
        report_resolve(report_id=filed.pk, by=staff, resolution="Encore")
    assert error.value.code == "already-resolved"
    filed.refresh_from_db()
    assert filed.resolution == "Averti."


# --- nobody judges their own case --------------------------------------------------------------


def resolve_refused(report_id: int, by) -> GameError:
    with pytest.raises(GameError) as error:
        report_resolve(report_id=report_id, by=by, resolution="Rien à signaler.")
    return error.value


@pytest.mark.parametrize("role", ["reporter", "reported"])
def test_a_staff_member_cannot_resolve_a_report_they_filed_or_that_is_about_them(
    alice, carol, staff, role
) -> None:
    staff_player = make_player("modo-joueur", is_staff=True)
    game = start_game([staff_player, alice, carol])
    filed = (
        report(game, staff_player, about=alice)
        if role == "reporter"
        else report(game, alice, about=staff_player)
    )
    error = resolve_refused(filed.pk, staff_player)
    assert (error.code, error.status) == ("own-report", 403)
    filed.refresh_from_db()
    assert (filed.status, filed.resolved_by) == (Report.Status.OPEN, None)
    report_resolve(report_id=filed.pk, by=staff, resolution="Averti.")
    filed.refresh_from_db()
    assert (filed.status, filed.resolved_by) == (Report.Status.RESOLVED, staff)


@pytest.mark.parametrize("finished", [False, True])
def test_a_staff_member_seated_in_the_game_cannot_resolve_a_report_about_it(
    alice, bob, staff, finished
) -> None:
    staff_player = make_player("modo-joueur", is_staff=True)
    game = start_game([staff_player, alice, bob])
    filed = report(game, alice, about=bob)
    if finished:
        game_services.game_resign(game_id=game.pk, player=alice)
        game_services.game_resign(game_id=game.pk, player=bob)
    error = resolve_refused(filed.pk, staff_player)
    assert (error.code, error.status) == ("own-game", 403)
    filed.refresh_from_db()
    assert filed.status == Report.Status.OPEN
    # A player (seated or not) is refused as before; staff from outside the game resolve it.
    assert resolve_refused(filed.pk, bob).code == "not-staff"
    assert resolve_refused(filed.pk, make_player("oscar")).code == "not-staff"
    report_resolve(report_id=filed.pk, by=staff, resolution="Averti.")
