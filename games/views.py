"""Game pages. Each view parses, calls one service or selector, and renders.

One view per URL serves the page and, for htmx requests, its fragment
(``"games/game.html#game_area"``). Links and forms keep working without
JavaScript.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

import rules
from accounts.permissions import player_required
from accounts.requests import HtmxRequest, SignedInRequest
from games import (
    bridge,
    clock,
    computer,
    page_cache,
    player_replay,
    presenters,
    selectors,
    services,
    text_game,
)
from games.errors import GameError
from games.forms import (
    ChatForm,
    ComputerGameForm,
    CreateGameForm,
    InviteForm,
    MoveForm,
    QueueForm,
    SeatComputerForm,
    TimeGiftForm,
    UnseatComputerForm,
    VersionForm,
)
from games.models import ChatMessage, Game, QueuedMove, Seat
from infra import ratelimit
from infra.ratelimit import limited
from rules.reply_notation import ReplyNotationError, parse_reply_read

logger = logging.getLogger(__name__)

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
    """The URLs the game page and the table's page link to or post to, for ``game``."""
    return {
        name: reverse(f"games:{name}", args=[game.pk])
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
            "replay",
            "text_preview",
            "text_play",
            "text_queue",
            "queue",
            "queue_cancel",
        )
    } | {
        "check_word": reverse("games:check_word"),
        "report": reverse("moderation:report", args=[game.pk]),
    }


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
    return redirect(_text_page_url(request, game.pk))


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
    if computer.computer_turns_catch_up(game, request.user):
        # Eagerly (the embedded default), the computer turns the last request
        # left waiting are played by the page that shows them, and its poll.
        game = _get_game_for_viewer(request, game_id)
    since = request.GET.get("since")
    chat_seen = request.GET.get("chat")  # absent where the page shows no chat
    if (
        request.htmx
        and since == selectors.live_token(game)
        and chat_seen in (None, str(game.chat_count))
    ):
        return HttpResponse(status=204)  # nothing new: the open page keeps what it has
    if game.status == Game.Status.OPEN:
        return render(request, "games/table.html", _table_context(request, game))
    context = _game_context(request, game, **_text_news(request, game, since))
    template = "games/game.html"
    if request.htmx and "lire" in request.GET and context["text_mode"]:
        return render(request, "games/_text_tools.html#reading", context)
    if request.htmx and since is not None:
        # The poll's news: the game area, and the chat after it, which the page
        # takes out of the answer by its id (hx-select-oob on #game-area).
        area = render_to_string("games/game.html#game_area", context, request)
        chat = render_to_string("games/game.html#chat", context, request)
        return HttpResponse(area + chat)
    if request.htmx and "historique" in request.GET:
        template = "games/game.html#history"  # a finished game's history, polled for its analysis
    return render(request, template, context)


def _table_context(request: SignedInRequest, game: Game) -> dict:
    seats = list(game.seats.select_related("player"))
    return {
        "game": game,
        "seats": seats,
        "is_seated": any(s.player_id == request.user.pk for s in seats),
        "is_creator": game.creator_id == request.user.pk,
        # An invitee who sat down is listed once, among the players.
        "invitations": [
            invitation
            for invitation in game.invitations.select_related("invitee")
            if invitation.invitee_id not in {s.player_id for s in seats}
        ],
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
        "live_token": selectors.live_token(game),
        "max_extra_days": clock.MAX_EXTRA_DAYS,
        # The board's HTML is cached ({% cache %} in games/game.html) per release, game,
        # version, status, place (seated or not), hint and language.
        "cache_release": page_cache.release(),
        "board_seated": view.my_hand is not None and not view.over,
        "text_mode": text_mode(request),
    }
    if context["text_mode"]:
        context["text"] = _text_context(request, view)
    context.update(extra)
    if context["text_mode"]:
        context["announce"] = _announce(request, game, context)
    return context


# --- the screen-reader mode (issue #37) -----------------------------------------------


text_mode = text_game.text_mode


def _text_context(request: HttpRequest, view: presenters.GameView) -> dict:
    """What the text game shows besides the view: the summary, the words, the special
    squares, the moves in words, and the reading asked (``?lire=8``)."""
    asked = request.GET.get("lire", "").strip()[:20]
    return {
        "summary": text_game.summary(view),
        "words": [word.sentence() for word in text_game.board_words(view)] if view.version else [],
        "specials": text_game.free_specials(view) if not view.over else [],
        "moves": [(text_game.move_sentence(move, view.mode), move) for move in view.moves],
        "hand": text_game.hand_sentence(view) if view.my_hand is not None else "",
        "asked": asked,
        "reading": text_game.reading(view, asked) if asked else "",
        "hint": text_game.hint_typed(view.hint) if view.hint else "",
        "queued": text_game.queued_sentence(view.queued) if view.queued else "",
        # Without the setting the page's own links and forms keep the mode (texte=1).
        "query": text_game.keeps_text(request),
    }


def _text_news(request: SignedInRequest, game: Game, since: str | None) -> dict:
    """The poll's news for the text game's live region: what changed since the token
    ``since`` and the chat count ``chat`` the page had (the moves, the chat messages of
    others, the turn)."""
    if since is None or not text_mode(request):
        return {}
    # The token starts with the move count (selectors.live_token); the chat's count the
    # page had seen comes beside it (&chat=, the chat's #chat-seen).
    try:
        version = int(since.split(".")[0])
    except ValueError:
        return {}
    seen = request.GET.get("chat", "")
    chat_count = int(seen) if seen.isdigit() else None
    # The page showed the player's queued move waiting (&attente=1): say what became of it.
    queued = request.GET.get("attente") == "1"
    return {"since_version": version, "since_chat": chat_count, "queued_before": queued}


def _announce(request: SignedInRequest, game: Game, context: dict) -> str:
    """The sentence the text game's live region reads once (empty: nothing new)."""
    version = context.get("since_version")
    cancelled = context.get("cancelled")
    if version is None and cancelled is None:
        return ""
    new_messages: list[tuple[str, str]] = []
    chat_before = context.get("since_chat")
    if chat_before is not None and game.chat_count > chat_before:
        fresh = list(context["chat_messages"])[-(game.chat_count - chat_before) :]
        new_messages = [
            (str(message.author), message.text)
            for message in fresh
            if message.author_id != request.user.pk
        ]
    return text_game.announcement(
        context["view"],
        since_version=version,
        new_messages=new_messages,
        queued_before=context.get("queued_before", False),
        cancelled=cancelled,
    )


def _chat_messages(game: Game) -> list[ChatMessage] | SimpleLazyObject:
    """The chat's messages, read only if a template shows them and there are some.

    The game-area fragment (after a move, for the poll) shows no chat; most
    games have no message, which ``Game.chat_count`` says without a query.
    """
    if not game.chat_count:
        return []
    return SimpleLazyObject(lambda: selectors.chat_messages(game))


class _TextMoveRefused(Exception):
    """A typed move the text game cannot judge: the message to read back."""


def _typed_move(request: SignedInRequest, game: Game) -> tuple[str, int, rules.Move]:
    """The text game's field read as a move in the notation of a reply by email
    (``rules.reply_notation``), with the version the page was built at."""
    typed = request.POST.get("coup", "").strip()[:200]
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        raise _TextMoveRefused(_("Reload the page and try again.")) from None
    seat = Seat.objects.filter(game=game, player=request.user).first()
    if seat is None or seat.position is None or game.status != Game.Status.RUNNING:
        raise _TextMoveRefused(_("You have no move to make in this game."))
    if not typed:
        raise _TextMoveRefused(_("Type your move, for example H8 CHAT."))
    view = rules.view(bridge.state_of(game), seat.position)
    try:
        move, _read = parse_reply_read(typed, view)
    except ReplyNotationError as error:
        raise _TextMoveRefused(error.message(get_language() or "fr")) from None
    if isinstance(move, rules.Resign):
        raise _TextMoveRefused(_("To resign, use the Resign button below."))
    return typed, version, move


@login_required
@require_POST
@limited("preview", refuse=_preview_too_fast)
def text_preview(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The text game's "Read back": what the typed move would do, in words, nothing played."""
    game = _get_game_for_viewer(request, game_id)
    typed = request.POST.get("coup", "").strip()[:200]
    try:
        typed, version, move = _typed_move(request, game)
        result = services.move_preview(
            game_id=game_id, player=request.user, version=version, move=move
        )
        # Not the player's turn: the move typed is to be queued (issue #36), if the page
        # lets them queue (GameView.can_queue: not once they have left the game).
        view = selectors.game_view(game, request.user)
        if not view.can_place:
            raise _TextMoveRefused(_("You have no move to make in this game."))
        read_back = text_game.preview_sentences(move, result, game.mode, queueing=view.can_queue)
    except _TextMoveRefused as refused:
        read_back = [str(refused)]
    except GameError as exc:
        read_back = [str(exc.message)]
    if request.htmx:
        return render(request, "games/_text_game.html#text_preview", {"read_back": read_back})
    context = _game_context(request, game, read_back=read_back, typed=typed)
    return render(request, "games/game.html", context)


def _posted_version(request: SignedInRequest) -> int | None:
    """The game's version the page's form posted (the moves since it are announced), if any."""
    posted = request.POST.get("version", "")
    return int(posted) if posted.isdigit() else None


def _text_attempt(
    request: SignedInRequest, game: Game, submit: Callable[[int, rules.Move], HttpResponse]
) -> HttpResponse:
    """The typed move read, then ``submit(version, move)``'s answer; a refusal (the
    parser's, the site's or the rules') answers with the game area, its reason in the
    alert, the field as typed and the kind of queued move chosen, and nothing changed."""
    typed = request.POST.get("coup", "").strip()[:200]
    try:
        typed, version, move = _typed_move(request, game)
        return submit(version, move)
    except _TextMoveRefused as refused:
        message = str(refused)
    except rules.IllegalMove as exc:
        message = exc.message(get_language() or "fr")
    except GameError as exc:
        if exc.status == 429:
            return _too_fast(request, str(exc.message), game.pk)
        message = str(exc.message)
        if exc.code == "moved-on":
            message = _("%(reason)s The summary below is the new position.") % {"reason": message}
    game.refresh_from_db()
    context = _game_context(
        request,
        game,
        message=message,
        typed=typed,
        keep=request.POST.get("keep", ""),
        since_version=_posted_version(request),
        focus_move=True,
    )
    if request.htmx:
        return render(request, "games/game.html#game_area", context)
    return render(request, "games/game.html", context, status=400)


@login_required
@require_POST
@limited("move", refuse=_too_fast)
def text_play(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The text game's "Play": the typed move played, or refused with its reason and the
    field as typed. The answer's live region reads the moves since the page's version
    (the computer's reply too) and the turn."""

    def submit(version: int, move: rules.Move) -> HttpResponse:
        played = services.move_submit(
            game_id=game_id, player=request.user, version=version, move=move
        )
        if not request.htmx:
            return redirect(_text_page_url(request, game_id))
        game = played.game
        seat = game.to_move
        if seat is not None and seat.player.is_computer:
            game = Game.objects.get(pk=game.pk)
        context = _game_context(request, game, since_version=version)
        return render(request, "games/game.html#game_area", context)

    return _text_attempt(request, _get_game_for_viewer(request, game_id), submit)


@login_required
@require_POST
@limited("move", refuse=_too_fast)
def text_queue(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The text game's "Play when my turn comes" (issue #36): the typed placement queued,
    said back by the live region; or refused with its reason and the field as typed."""
    game = _get_game_for_viewer(request, game_id)

    def submit(version: int, move: rules.Move) -> HttpResponse:
        services.queued_move_set(
            game_id=game_id,
            player=request.user,
            version=version,
            move=move,
            keep=request.POST.get("keep", "") or QueuedMove.Keep.LEGAL,
        )
        if not request.htmx:
            return redirect(_text_page_url(request, game_id))
        game.refresh_from_db()
        context = _game_context(request, game)
        queued = context["view"].queued
        context["announce"] = text_game.queued_sentence(queued) if queued is not None else ""
        return render(request, "games/game.html#game_area", context)

    return _text_attempt(request, game, submit)


def _text_page_url(request: HttpRequest, game_id: int) -> str:
    """The game page, in the text mode if the request was in it without the setting."""
    url = reverse("games:page", args=[game_id])
    if text_mode(request) and not getattr(request.user, "screen_reader", False):
        url += "?texte=1"
    return url


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

    def submit() -> HttpResponse:
        played = services.move_submit(
            game_id=game_id,
            player=request.user,
            version=form.cleaned_data["version"],
            move=form.move(),
        )
        return _after_move(request, played.game)

    return _judged(request, game_id, form, submit)


def _judged(
    request: SignedInRequest, game_id: int, form: MoveForm, submit: Callable[[], HttpResponse]
) -> HttpResponse:
    """``submit()``'s answer for a valid move form; a refusal (the form's, the site's or the
    rules') answers in the game's ``#move-error``, and the service changed nothing."""
    if not form.is_valid():
        game = _get_game_for_viewer(request, game_id)
        return _error_response(request, game, form.first_error(), 400)
    try:
        return submit()
    except GameError as exc:
        game = _get_game_for_viewer(request, game_id)
        return _error_response(request, game, str(exc.message), exc.status)
    except rules.IllegalMove as exc:
        game = _get_game_for_viewer(request, game_id)
        return _error_response(request, game, exc.message(get_language() or "fr"), 400)


def _after_move(request: SignedInRequest, game: Game) -> HttpResponse:
    """The new game area for htmx (``game`` is the row the service saved), else the page.

    When the turn went to a computer player, the row is read again: with eager
    tasks (or a quick worker) its reply is already played, and the answer
    shows it rather than a page that would wait for the next poll.
    """
    seat = game.to_move
    if seat is not None and seat.player.is_computer:
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
    return redirect(_text_page_url(request, game.pk))


@login_required
@require_POST
@limited("move", refuse=_too_fast)
def queue(request: SignedInRequest, game_id: int) -> HttpResponse:
    """Queue a placement for the player's next turn ("Play when my turn comes"), or replace it."""
    form = QueueForm(request.POST)

    def submit() -> HttpResponse:
        services.queued_move_set(
            game_id=game_id,
            player=request.user,
            version=form.cleaned_data["version"],
            move=form.move(),
            keep=form.cleaned_data["keep"],
        )
        return _game_area(request, _get_game_for_viewer(request, game_id))

    return _judged(request, game_id, form, submit)


@login_required
@require_POST
@limited("move", refuse=_too_fast)
def queue_cancel(request: SignedInRequest, game_id: int) -> HttpResponse:
    """Drop the player's queued move (nothing to drop is not an error: it was played, or gone).

    The text game's live region says "cancelled" only when there was one to drop, and
    the moves played since the page's version (posted by the form), as a poll would:
    a queued move played meanwhile is said to have been played, not cancelled."""
    game = _get_game_for_viewer(request, game_id)
    try:
        cancelled = services.queued_move_cancel(game_id=game_id, player=request.user)
    except GameError as exc:
        if text_mode(request) and exc.status != 429:  # the text game shows it in its own area
            return _game_area(request, game, str(exc.message))
        return _error_response(request, game, str(exc.message), exc.status)
    game = _get_game_for_viewer(request, game_id)
    if request.htmx and text_mode(request):
        context = _game_context(
            request, game, cancelled=cancelled, since_version=_posted_version(request)
        )
        return render(request, "games/game.html#game_area", context)
    return _game_area(request, game)


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
    return redirect(_text_page_url(request, game.pk))


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
        return redirect(_text_page_url(request, game_id))
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


@login_required
@require_GET
@limited("replay", methods=("GET",))
def replay(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The game's replay as the viewer may see it (``games.player_replay``), as JSON.

    The same 404 as the game page for a game the viewer may not see, and for a
    table not started (nothing to step through). ``?jusqua=N``: up to move N,
    the version the viewer's page shows, so that its last step is that page.
    """
    game = _get_game_for_viewer(request, game_id)
    if game.setup is None:
        raise Http404(_("There is no such game."))
    try:
        upto: int | None = int(request.GET["jusqua"])
    except (KeyError, ValueError):
        upto = None  # no version, or not a number: up to the last move
    try:
        data = player_replay.replay_for(game, request.user, upto)
    except (rules.RecordError, KeyError, TypeError, ValueError):
        # The stored deal or a move cannot even be read: the staff's check says
        # what is wrong (games.audit); the player is told, and the error logged.
        logger.exception("game %s: its replay cannot be built", game.pk)
        message = _("This game cannot be replayed.")
        return JsonResponse({"error": message}, status=500)
    return JsonResponse(data, json_dumps_params={"ensure_ascii": False})


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
