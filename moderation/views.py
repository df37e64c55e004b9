"""The report page: a small form reached from the game page, working without JavaScript."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.requests import SignedInRequest
from games.errors import GameError
from games.models import Game, Seat
from infra.ratelimit import limited
from moderation import services
from moderation.forms import ReportForm


def _get_game_for_reporter(request: HttpRequest, game_id: int) -> tuple[Game, list[Seat]]:
    """The game and the other seats, for a player seated at it; 403 for anyone else."""
    game = get_object_or_404(Game, pk=game_id)
    seats = list(game.seats.select_related("player").order_by("position", "joined_at"))
    if not any(seat.player_id == request.user.pk for seat in seats):
        raise PermissionDenied(_("Only the players of this game can report it."))
    return game, [seat for seat in seats if seat.player_id != request.user.pk]


@login_required
@require_http_methods(["GET", "POST"])
@limited("form")
def report(request: SignedInRequest, game_id: int) -> HttpResponse:
    game, others = _get_game_for_reporter(request, game_id)
    status = 200
    if request.method == "POST":
        form = ReportForm(request.POST, others=others)
        status = 400
        if form.is_valid():
            try:
                services.report_create(
                    reporter=request.user,
                    game_id=game.pk,
                    reported_seat_id=form.reported_seat_id(),
                    reason=form.cleaned_data["reason"],
                    text=form.cleaned_data["text"],
                )
            except GameError as exc:
                form.add_error(None, exc.message)
                status = exc.status
            else:
                messages.success(request, _("Thank you, the team will take a look."))
                return redirect("games:page", game.pk)
    else:
        form = ReportForm(others=others)
    return render(request, "moderation/report.html", {"game": game, "form": form}, status=status)
