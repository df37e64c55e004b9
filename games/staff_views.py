"""Staff-only pages: the replay with every hand, and the record at any time.

These are the exception to hidden information (R-HIDE-1), so every view here
goes through ``staff_required``: an anonymous visitor is sent to log in, and a
signed-in player who is not staff gets a 403, whether or not they play in the
game. No player-facing page links here.

Staff can play too. A staff member seated at a game that is not over gets a
403 here as well (``plays_in``): reading the other racks and the reserve of
one's own running game is the cheat these pages must not offer. Another staff
member reviews it; once the game is over every hand is public anyway.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

import rules
from games import bridge, review
from games.models import Game

View = Callable[..., HttpResponse]


def is_staff(user: Any) -> bool:
    """Staff review games: active accounts with ``is_staff`` (the admin's own test)."""
    return bool(user.is_authenticated and user.is_active and user.is_staff)


def seated(user: Any, game: Game) -> bool:
    """Whether ``user`` has a seat at ``game`` (through ``game.seats.all()``: a prefetch helps)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return any(seat.player_id == user.pk for seat in game.seats.all())


def plays_in(user: Any, game: Game) -> bool:
    """Whether ``user`` has a seat at ``game`` and it is not over (open or running).

    While that holds, the game's hidden information (R-HIDE-1) stays hidden
    from them even if they are staff: the staff replay and record refuse them
    and the admin leaves out the hands, the state, the deal and the tiles drawn.
    """
    return not game.is_over and seated(user, game)


def refuse_own_game() -> PermissionDenied:
    return PermissionDenied(_("You play in this game: another staff member must review it."))


def staff_required(view: View) -> View:
    """Anonymous: to the log-in page. Signed in but not staff: 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_staff(request.user):
            raise PermissionDenied(_("This page is for the team only."))
        return view(request, *args, **kwargs)

    return wrapper


def _get_reviewable_game(request: HttpRequest, game_id: int) -> Game:
    game = get_object_or_404(Game, pk=game_id)
    if plays_in(request.user, game):
        raise refuse_own_game()
    if game.setup is None:
        raise Http404(_("This table has not started: there is nothing to replay."))
    return game


def _step_param(request: HttpRequest) -> int | None:
    try:
        return int(request.GET["coup"])
    except (KeyError, ValueError):
        return None  # no step, or not a number: the last move


@staff_required
@require_GET
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game after move ``?coup=N`` (0: the deal), with every hand and the reserve."""
    game = _get_reviewable_game(request, game_id)
    try:
        step = review.replay_step(game, _step_param(request))
    except (rules.RecordError, KeyError, TypeError, ValueError) as exc:
        # The stored deal cannot even be read: nothing to step through, but the
        # check names what is wrong with it.
        messages.error(request, _("This game cannot be replayed: %(why)s") % {"why": exc})
        return redirect("admin:games_game_check", game.pk)
    return render(
        request,
        "games/staff_replay.html",
        {
            "game": game,
            "step": step,
            "view": step,  # the board partial of games/game.html reads ``view``
            "urls": {
                "replay": reverse("games:staff_replay", args=[game.pk]),
                "record": reverse("games:staff_record", args=[game.pk]),
                "page": reverse("games:page", args=[game.pk]),
                "admin": reverse("admin:games_game_change", args=[game.pk]),
                "check": reverse("admin:games_game_check", args=[game.pk]),
            },
        },
    )


@staff_required
@require_GET
def record(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game record (RECORD.md) at any time; players get theirs only once it is over."""
    game = _get_reviewable_game(request, game_id)
    try:
        document = bridge.record_of(game)
    except (KeyError, TypeError, ValueError) as exc:
        messages.error(request, _("This game's record cannot be written: %(why)s") % {"why": exc})
        return redirect("admin:games_game_check", game.pk)
    response = HttpResponse(
        json.dumps(document, ensure_ascii=False, indent=2), content_type="application/json"
    )
    response["Content-Disposition"] = f'attachment; filename="diamino-{game.pk}-equipe.json"'
    return response
