"""Reports: a player flags a game or another player; staff resolve the report.

Who may report (a decision, see docs/ARCHITECTURE.md "Staff review"): only the
players seated at a game that has started. They are the ones who saw the
moves and the chat as they happened and have standing to say something was
wrong; a spectator who finds a name offensive can ask a player or write to the
team. It also keeps the queue free of drive-by reports. A player cannot report
themselves, may not file the same open report twice, and may file at most
``settings.DIAMINO_RATE_LIMITS["reports"]`` reports (5 in 24 hours by default),
counted in the database rather than the cache: each one emails staff, and
the count must survive a cache flush.

Each service is one transaction. ``report_create`` locks the reporter's row, so
two reports sent at once by one player cannot both slip under the limit, and
writes the email to staff in the same transaction (``moderation/notify.py``).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.errors import GameError
from games.models import Game
from moderation import notify
from moderation.models import TEXT_MAX_LENGTH, Report


@transaction.atomic
def report_create(
    *,
    reporter: User,
    game_id: int,
    reported_seat_id: int | None,
    reason: str,
    text: str,
) -> Report:
    """File a report about game ``game_id``, or about the player at ``reported_seat_id``."""
    if not reporter.is_authenticated or not reporter.is_active:
        raise GameError("not-signed-in", _("Sign in to report a problem."), status=403)
    reporter = User.objects.select_for_update().get(pk=reporter.pk)
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameError("no-game", _("There is no such game."), status=404)
    seats = {seat.pk: seat for seat in game.seats.select_related("player")}
    if not any(seat.player_id == reporter.pk for seat in seats.values()):
        raise GameError(
            "not-a-player", _("Only the players of this game can report it."), status=403
        )
    if game.status == Game.Status.OPEN:
        raise GameError("not-started", _("A game can be reported once it has started."), status=409)
    reported = None
    if reported_seat_id is not None:
        seat = seats.get(reported_seat_id)
        if seat is None:
            raise GameError("no-seat", _("That player does not play in this game."))
        if seat.player_id == reporter.pk:
            raise GameError("self", _("You cannot report yourself."))
        reported = seat.player
    if reason not in Report.Reason.values:
        raise GameError("bad-reason", _("Choose a reason."))
    text = text.strip()
    if not text:
        raise GameError("no-text", _("Say in a few words what happened."))
    if len(text) > TEXT_MAX_LENGTH:
        raise GameError("text-long", _("Write at most %(n)d characters.") % {"n": TEXT_MAX_LENGTH})
    mine = Report.objects.filter(reporter=reporter)
    if mine.filter(game=game, reported_player=reported, status=Report.Status.OPEN).exists():
        raise GameError(
            "already-reported",
            _("You have already reported this; the team will look at it."),
            status=409,
        )
    count, seconds = settings.DIAMINO_RATE_LIMITS["reports"]
    since = timezone.now() - timedelta(seconds=seconds)
    if mine.filter(created_at__gte=since).count() >= count:
        raise GameError(
            "too-many",
            _("You have sent %(n)d reports today: wait a day before sending another.")
            % {"n": count},
            status=429,
        )
    filed = Report.objects.create(
        reporter=reporter, game=game, reported_player=reported, reason=reason, text=text
    )
    notify.report_filed(filed)  # staff hear of it when the report commits, not before
    return filed


def own_case(report: Report, user: User) -> GameError | None:
    """Why ``user`` may not resolve ``report`` because they are part of it, or None."""
    if user.pk in (report.reporter_id, report.reported_player_id):
        return GameError(
            "own-report",
            _("This report is about you or by you: another staff member must resolve it."),
            status=403,
        )
    if report.game.seats.filter(player_id=user.pk).exists():
        return GameError(
            "own-game",
            _("You play in this game: another staff member must resolve this report."),
            status=403,
        )
    return None


@transaction.atomic
def report_resolve(*, report_id: int, by: User, resolution: str) -> Report:
    """Staff close an open report, saying what was done; it keeps who and when.

    Nobody judges their own case: the reporter, the reported player and any
    staff member seated at the game the report is about are refused, whatever
    the game's status. Another staff member resolves it.
    """
    if not (by.is_active and by.is_staff):
        raise GameError("not-staff", _("Only staff can resolve a report."), status=403)
    resolution = resolution.strip()
    if not resolution:
        raise GameError("no-resolution", _("Say what was done."))
    report = Report.objects.select_for_update().filter(pk=report_id).first()
    if report is None:
        raise GameError("no-report", _("There is no such report."), status=404)
    if report.status != Report.Status.OPEN:
        raise GameError("already-resolved", _("This report is already resolved."), status=409)
    conflict = own_case(report, by)
    if conflict is not None:
        raise conflict
    report.status = Report.Status.RESOLVED
    report.resolution = resolution
    report.resolved_by = by
    report.resolved_at = timezone.now()
    report.save(update_fields=["status", "resolution", "resolved_by", "resolved_at"])
    return report
