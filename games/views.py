"""Game pages. Each view parses, calls one service or selector, and renders.

One view per URL serves the page and, for htmx requests, its fragment
(``"games/game.html#game_area"``). Links and forms keep working without
JavaScript.
"""

from __future__ import annotations

import json
from functools import lru_cache

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import get_script_prefix, reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

import rules
from accounts.permissions import player_required
from accounts.requests import HtmxRequest, SignedInRequest
from diamino_site import ratelimit
from diamino_site.ratelimit import limited
from games import board_update, bridge, clock, page_cache, presenters, selectors, services
from games.errors import GameError
from games.forms import (
    ChatForm,
    ComputerGameForm,
    CreateGameForm,
    InviteForm,
    MoveForm,
    SeatComputerForm,
    TimeGiftForm,
    UnseatComputerForm,
    VersionForm,
)
from games.models import ChatMessage, Game

# How often a page waiting for a computer player's reply looks for it: the
# reply comes within seconds (``DIAMINO_BOT_DELAY_SECONDS`` plus the search).
COMPUTER_POLL_SECONDS = 2


def _get_game_for_viewer(request: HttpRequest, game_id: int) -> Game:
    """Any signed-in visitor may watch a running or finished game and see a public table.

    An invitation-only table is a 404 to anyone not seated, invited or staff:
    the same answer as no game at all, so its id confirms nothing.
    """
    game = selectors.game_or_none(game_id)
    if game is None or not selectors.table_visible_to(game, request.user):
        raise Http404(_("There is no such game."))
    return game


def _urls(game: Game) -> dict[str, str]:
    """The game page's URLs for ``game``: 15 ``reverse()`` once per process, then a replace."""
    pk = str(game.pk)
    return {name: url.replace(_URL_PK, pk) for name, url in _url_patterns(get_script_prefix())}


_URL_PK = "987654321"  # a game id no URL of the list contains otherwise


@lru_cache(maxsize=8)
def _url_patterns(script_prefix: str) -> tuple[tuple[str, str], ...]:
    """The URLs of ``_urls`` with ``_URL_PK`` for the game (by script prefix, which reverse() uses)."""
    urls = {
        name: reverse(f"games:{name}", args=[int(_URL_PK)])
        for name in (
            "page",
            "preview",
            "play",
            "resign",
            "chat",
            "record",
            "join",
            "leave",
            "hint",
            "analyse",
            "seat_bot",
            "give_time",
            "unseat_bot",
        )
    } | {
        "check_word": reverse("games:check_word"),
        "report": reverse("moderation:report", args=[int(_URL_PK)]),
    }
    return tuple(urls.items())


def _error_response(
    request: SignedInRequest, game: Game, message: str, status: int
) -> HttpResponse:
    if status == 429:
        return _too_fast(request, message, game.pk)
    if request.htmx:
        return render(
            request,
            "games/game.html#move_error",
            {"message": message},
            status=status if status != 409 else 200,
        )
    messages.error(request, message)
    return redirect("games:page", game.pk)


def _too_fast(
    request: HtmxRequest, message: str, game_id: int | None = None, **_kwargs: object
) -> HttpResponse:
    """A rate limit on a game's page: htmx gets the game's ``#move-error`` in place, whatever
    the form aimed at (``HX-Retarget``); a plain form the site's 429 page, back to the game."""
    if request.htmx and game_id is not None:
        response = render(request, "games/game.html#move_error", {"message": message}, status=429)
        response["HX-Retarget"] = response["HX-Reselect"] = "#move-error"
        response["HX-Reswap"] = "outerHTML"
        return response
    back = reverse("games:page", args=[game_id]) if game_id is not None else ""
    return render(request, "429.html", {"exception": message, "back": back}, status=429)


def _table_too_fast(request: SignedInRequest, message: str, game_id: int) -> HttpResponse:
    """A rate limit on a table's htmx form: the table's area again, with the reason."""
    game = Game.objects.filter(pk=game_id).first()
    if not request.htmx or game is None or game.status != Game.Status.OPEN:
        return _too_fast(request, message, game_id if game else None)
    context = _table_context(request, game) | {"table_message": message, "table_error": True}
    return render(request, "games/table.html#table_area", context, status=429)


def _preview_too_fast(request: HtmxRequest, message: str, game_id: int) -> HttpResponse:
    refused = services.Preview(ok=False, message=message, code="rate-limited")
    return render(request, "games/game.html#preview", {"preview": refused}, status=429)


# --- lobby and lists --------------------------------------------------------------


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    return _lobby(request)


def _lobby(
    request: HttpRequest,
    *,
    form: CreateGameForm | None = None,
    computer_form: ComputerGameForm | None = None,
    status: int = 200,
) -> HttpResponse:
    """The lobby; after a refused form, with what the player typed and the status."""
    viewer = request.user if request.user.is_authenticated else None
    return render(
        request,
        "games/lobby.html",
        {
            "tables": selectors.open_tables(viewer),
            "form": form or CreateGameForm(),
            "computer_form": computer_form or ComputerGameForm(),
        },
        status=status,
    )


@login_required
@require_GET
def my_games(request: SignedInRequest) -> HttpResponse:
    return render(request, "games/my_games.html", {"games": selectors.my_games(request.user)})


@login_required
@require_GET
def next_game(request: SignedInRequest) -> HttpResponse:
    game = selectors.next_game_to_play(request.user)
    if game is None:
        messages.info(request, _("No game is waiting for your move: here are all your games."))
        return redirect("games:mine")
    return redirect("games:page", game.pk)


@player_required
@require_POST
@limited("form")
def create(request: SignedInRequest) -> HttpResponse:
    form = CreateGameForm(request.POST)
    if not form.is_valid():
        return _lobby(request, form=form, status=400)
    try:
        game = services.game_create(
            creator=request.user,
            mode=form.cleaned_data["mode"],
            seats=form.cleaned_data["seats"],
            days_per_move=form.cleaned_data["days_per_move"],
            invitation_only=form.cleaned_data["invitation_only"],
            invitees=form.cleaned_data["invite"],
            rated=not form.cleaned_data["friendly"],
        )
    except GameError as exc:
        messages.error(request, exc.message)
        if exc.status == 429:  # too many tables: the lobby again, with the form as typed
            return _lobby(request, form=form, status=429)
        return redirect("games:lobby")
    return redirect("games:page", game.pk)


@player_required
@require_POST
@limited("form")
def against_computer(request: SignedInRequest) -> HttpResponse:
    """ "Jouer contre l'ordinateur": a started game against a computer player, in one click."""
    form = ComputerGameForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a game and a level."))
        return redirect("games:lobby")
    try:
        game = services.game_against_computer(
            player=request.user,
            mode=form.cleaned_data["mode"],
            level=form.cleaned_data["level"],
        )
    except GameError as exc:
        messages.error(request, exc.message)
        if exc.status == 429:
            return _lobby(request, computer_form=form, status=429)
        return redirect("games:lobby")
    return redirect("games:page", game.pk)


def _table_action(request: SignedInRequest, game_id: int, action) -> HttpResponse:
    _get_game_for_viewer(request, game_id)
    try:
        action()
    except GameError as exc:
        messages.error(request, exc.message)
        game = Game.objects.filter(pk=game_id).first()
        if exc.status == 429 and game is not None and game.status == Game.Status.OPEN:
            # A rate limit: the table again with the reason, as a 429 rather than a redirect.
            return render(request, "games/table.html", _table_context(request, game), status=429)
    if not Game.objects.filter(pk=game_id).exists():
        return redirect("games:lobby")
    return redirect("games:page", game_id)


@player_required
@require_POST
@limited("form", refuse=_too_fast)
def join(request: SignedInRequest, game_id: int) -> HttpResponse:
    return _table_action(
        request, game_id, lambda: services.game_join(game_id=game_id, player=request.user)
    )


@login_required
@require_POST
@limited("form", refuse=_too_fast)
def leave(request: SignedInRequest, game_id: int) -> HttpResponse:
    return _table_action(
        request, game_id, lambda: services.game_leave(game_id=game_id, player=request.user)
    )


@login_required
@require_POST
@limited("form", refuse=_too_fast)
def start(request: SignedInRequest, game_id: int) -> HttpResponse:
    return _table_action(
        request, game_id, lambda: services.game_start(game_id=game_id, by=request.user)
    )


@player_required
@require_POST
@limited("form", refuse=_too_fast)
def seat_computer(request: SignedInRequest, game_id: int) -> HttpResponse:
    form = SeatComputerForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose the computer's level: beginner or experienced."))
        return redirect("games:page", game_id)
    level = form.cleaned_data["level"]
    return _table_action(
        request,
        game_id,
        lambda: services.game_seat_computer(game_id=game_id, by=request.user, level=level),
    )


@login_required
@require_POST
@limited("form", refuse=_table_too_fast)
def unseat_computer(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The creator takes a computer's seat back; htmx gets the table's area again."""
    _get_game_for_viewer(request, game_id)
    form = UnseatComputerForm(request.POST)
    error = None
    if not form.is_valid():
        error = GameError("bad-seat", _("Choose the computer to remove."), status=400)
    else:
        try:
            services.game_unseat_computer(
                game_id=game_id, by=request.user, seat_id=form.cleaned_data["seat"]
            )
        except GameError as exc:
            error = exc
    done = _("The computer has left the table.")
    game = Game.objects.filter(pk=game_id).first()
    if not request.htmx or game is None or game.status != Game.Status.OPEN:
        # No JavaScript, or nothing left to swap in (the game started meanwhile):
        # the message goes with the next page.
        if error is not None:
            messages.error(request, error.message)
        else:
            messages.success(request, done)
        url = reverse("games:page", args=[game_id]) if game else reverse("games:lobby")
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    context = _table_context(request, game)
    context["table_message"] = error.message if error else done
    context["table_error"] = error is not None
    status = error.status if error else 200
    return render(request, "games/table.html#table_area", context, status=status)


@login_required
@require_POST
@limited("form", refuse=_too_fast)
def invite(request: SignedInRequest, game_id: int) -> HttpResponse:
    form = InviteForm(request.POST)
    if not form.is_valid():
        messages.error(request, str(form.errors["username"][0]))
        return redirect("games:page", game_id)
    invitee = form.cleaned_data["username"]
    return _table_action(
        request,
        game_id,
        lambda: services.game_invite(game_id=game_id, by=request.user, invitee=invitee),
    )


# --- the game page ------------------------------------------------------------------


@login_required
@require_GET
def page(request: SignedInRequest, game_id: int) -> HttpResponse:
    game = _get_game_for_viewer(request, game_id)
    since = request.GET.get("since")
    if request.htmx and since is not None and since == str(game.move_count):
        return HttpResponse(status=204)  # nothing new: the waiting page keeps what it has
    if game.status == Game.Status.OPEN:
        return render(request, "games/table.html", _table_context(request, game))
    context = _game_context(request, game)
    template = "games/game.html"
    if request.htmx and since is not None:
        template = "games/game.html#game_area"
    elif request.htmx and "historique" in request.GET:
        template = "games/game.html#history"  # a finished game's history, polled for its analysis
    return render(request, template, context)


def _table_context(request: SignedInRequest, game: Game) -> dict:
    seats = list(game.seats.select_related("player"))
    return {
        "game": game,
        "seats": seats,
        "is_seated": any(s.player_id == request.user.pk for s in seats),
        "is_creator": game.creator_id == request.user.pk,
        "invitations": list(game.invitations.select_related("invitee")),
        "urls": _urls(game),
        "computer_form": SeatComputerForm(),
    }


def _game_context(request: SignedInRequest, game: Game, **extra) -> dict:
    view = selectors.game_view(game, request.user)
    seated = view.my_position is not None
    context = {
        "game": game,
        "view": view,
        "urls": _urls(game),
        "tab_title": presenters.tab_title(view, game.pk),
        "can_chat": seated,
        "chat_messages": _chat_messages(game),
        "chat_form": ChatForm(),
        "poll_seconds": COMPUTER_POLL_SECONDS
        if view.computer_to_move
        else settings.DIAMINO_POLL_SECONDS,
        "history_poll_seconds": settings.DIAMINO_POLL_SECONDS,
        "max_extra_days": clock.MAX_EXTRA_DAYS,
        # The board's HTML is cached per version, language, place and hint (games/page_cache.py).
        "board_key": page_cache.board_key(
            game,
            seated=view.my_hand is not None and not view.over,
            hint_squares=view.hint.squares if view.hint else (),
        ),
    }
    if view.over:
        context["replay_json"] = view.replay
    context.update(extra)
    return context


def _chat_messages(game: Game) -> list[ChatMessage] | SimpleLazyObject:
    """The chat's messages, read only if a template shows them and there are some.

    The game-area fragment (after a move, for the poll) shows no chat; most
    games have no message, which ``Game.chat_count`` says without a query.
    """
    if not game.chat_count:
        return []
    return SimpleLazyObject(lambda: selectors.chat_messages(game))


@login_required
@require_POST
@limited("preview", refuse=_preview_too_fast)
def preview(request: SignedInRequest, game_id: int) -> HttpResponse:
    form = MoveForm(request.POST)
    if not form.is_valid():
        result = services.Preview(ok=False, message=form.first_error(), code="input")
    else:
        try:
            result = services.move_preview(
                game_id=game_id,
                player=request.user,
                version=form.cleaned_data["version"],
                move=form.move(),
            )
        except GameError as exc:
            _get_game_for_viewer(request, game_id)  # a table the player may not know of: 404
            result = services.Preview(ok=False, message=str(exc.message), code=exc.code)
    return render(request, "games/game.html#preview", {"preview": result})


@login_required
@require_POST
@limited("move", refuse=_too_fast)
def play(request: SignedInRequest, game_id: int) -> HttpResponse:
    # The game is not read here: the service locks and reads it, and returns it
    # with the move; only a refusal needs to know whether the game exists.
    form = MoveForm(request.POST)
    if not form.is_valid():
        game = _get_game_for_viewer(request, game_id)
        return _error_response(request, game, form.first_error(), 400)
    try:
        played = services.move_submit(
            game_id=game_id,
            player=request.user,
            version=form.cleaned_data["version"],
            move=form.move(),
        )
    except GameError as exc:
        game = _get_game_for_viewer(request, game_id)
        return _error_response(request, game, str(exc.message), exc.status)
    except rules.IllegalMove as exc:
        game = _get_game_for_viewer(request, game_id)
        return _error_response(request, game, exc.message(get_language() or "fr"), 400)
    # The new version's board and moves, for the answer: the ones before, with this move.
    board_update.after_move(played.game, played)
    return _after_move(request, played.game)


def _after_move(request: SignedInRequest, game: Game) -> HttpResponse:
    """The new game area for htmx (``game`` is the row the service saved), else the page.

    When the turn went to a computer player, the row is read again: with eager
    tasks (or a quick worker) its reply is already played, and the answer
    shows it rather than a page that would wait for the next poll.
    """
    seat = game.to_move
    if seat is not None and Game.to_move.is_cached(game) and seat.player.is_computer:
        game = Game.objects.get(pk=game.pk)
    return _game_area(request, game)


def _game_area(request: SignedInRequest, game: Game, message: str = "") -> HttpResponse:
    """The answer to an action on the game page: its new game area for htmx, else the page.

    ``message``: a refusal to show with it (in the area's ``#move-error``, or with the page).
    """
    if request.htmx:
        context = _game_context(request, game, message=message)
        return render(request, "games/game.html#game_area", context)
    if message:
        messages.error(request, message)
    return redirect("games:page", game.pk)


@login_required
@require_POST
@limited("move", refuse=_too_fast)
def resign(request: SignedInRequest, game_id: int) -> HttpResponse:
    # As for a move, the game is read here only for a refusal: the service locks it.
    try:
        resigned = services.game_resign(game_id=game_id, player=request.user)
    except GameError as exc:
        game = _get_game_for_viewer(request, game_id)
        return _error_response(request, game, str(exc.message), exc.status)
    return _after_move(request, resigned.game)


@login_required
@require_POST
def hint(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The best move for the player to move (unrated games): shown in the game area."""
    game = _get_game_for_viewer(request, game_id)
    form = VersionForm(request.POST)
    if not form.is_valid():
        return _error_response(request, game, _("Reload the page and ask again."), 400)
    try:
        services.hint_request(
            game_id=game_id, player=request.user, version=form.cleaned_data["version"]
        )
    except GameError as exc:
        return _error_response(request, game, str(exc.message), exc.status)
    game.refresh_from_db()
    return _game_area(request, game)


@login_required
@require_POST
@limited("form", refuse=_too_fast)
def give_time(request: SignedInRequest, game_id: int) -> HttpResponse:
    """Another player gives the player to move one more day (``games/services/time_given.py``)."""
    game = _get_game_for_viewer(request, game_id)
    form = TimeGiftForm(request.POST)
    if not form.is_valid():
        return _error_response(request, game, _("Reload the page and try again."), 400)
    try:
        services.time_give(
            game_id=game_id,
            giver=request.user,
            version=form.cleaned_data["version"],
            extra_days=form.cleaned_data["extra_days"],
        )
    except GameError as exc:
        if exc.code != "moved-on":
            return _error_response(request, game, str(exc.message), exc.status)
        # The page was stale: another player gave a day, or the turn passed. Waiting
        # pages poll by move number only, so the page would keep its old deadline and
        # each click would be refused again: show the fresh game area with the reason.
        game.refresh_from_db()
        return _game_area(request, game, message=str(exc.message))
    game.refresh_from_db()
    return _game_area(request, game)


@login_required
@require_POST
@limited("form", refuse=_too_fast)
def analyse(request: SignedInRequest, game_id: int) -> HttpResponse:
    """A seated player asks for the finished game's analysis (when none is on its way)."""
    game = _get_game_for_viewer(request, game_id)
    try:
        services.analysis_request(game_id=game_id, player=request.user)
    except GameError as exc:
        return _error_response(request, game, str(exc.message), exc.status)
    game.refresh_from_db()
    if request.htmx:
        return render(request, "games/game.html#history", _game_context(request, game))
    return redirect("games:page", game.pk)


@login_required
@require_POST
def chat(request: SignedInRequest, game_id: int) -> HttpResponse:
    game = _get_game_for_viewer(request, game_id)
    form = ChatForm(request.POST)
    error = ""
    status = 200
    if form.is_valid():
        try:
            posted = services.chat_post(
                game_id=game_id, author=request.user, text=form.cleaned_data["text"]
            )
            game = posted.game  # with the new message's count: the list shows it
        except GameError as exc:
            if exc.status == 403:
                raise Http404 from exc
            error = str(exc.message)
            if exc.status == 429:  # too many messages: the chat's error, in place, as a 429
                status = 429
    else:
        error = str(form.errors["text"][0])
    if not request.htmx:
        if status == 429:
            return _too_fast(request, error, game_id)
        if error:
            messages.error(request, error)
        return redirect("games:page", game_id)
    context = _game_context(request, game, chat_error=error)
    return render(request, "games/game.html#chat", context, status=status)


@login_required
@require_GET
def record(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The game record (RECORD.md) — only once the game is over (R-HIDE-1)."""
    game = _get_game_for_viewer(request, game_id)
    if not game.is_over:
        raise Http404(_("The record can be downloaded once the game is over."))
    document = bridge.record_of(game)
    response = HttpResponse(
        json.dumps(document, ensure_ascii=False, indent=2), content_type="application/json"
    )
    response["Content-Disposition"] = f'attachment; filename="diamino-{game.pk}.json"'
    return response


# --- word check -------------------------------------------------------------------


@require_GET
def check_word(request: HtmxRequest) -> HttpResponse:
    """ "Vérifier un mot": is the word playable in the current French list?"""
    raw = request.GET.get("mot", "").strip()[:40]
    template = "games/check_word.html#verdict" if request.htmx else "games/check_word.html"
    # Only a word asked counts (settings.DIAMINO_RATE_LIMITS["word-check"]), per address.
    refusal = ratelimit.request_refusal(request, "word-check") if raw else None
    if refusal is not None:
        return render(request, template, {"query": raw, "refusal": refusal}, status=429)
    result = bridge.check_word(raw) if raw else None
    return render(request, template, {"query": raw, "result": result})
