"""The rules page (the whole rulebook in plain words, with boards the engine judged) and the guided first game."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

import rules
from accounts.models import HandOrder, User
from games import bridge, text_game
from games.forms import MoveForm
from games.presenters import GameView, TileView, notation_shown
from games.selectors import board_columns, board_rows
from learn import guided
from learn.examples import judged_examples
from rules.reply_notation import ReplyNotationError, parse_reply

ORIGINAL = Path(__file__).resolve().parent / "data" / "diamino-regles.txt"


@cache
def original_text() -> str:
    """The 1960s French rulebook, word for word (``learn/data/README.md``)."""
    return ORIGINAL.read_text(encoding="utf-8")


@require_GET
def rules_page(request: HttpRequest, printable: bool = False) -> HttpResponse:
    """``/regles/``: French by default, English for an English reader; ``printable`` for paper."""
    body = (
        "learn/_rules_en.html"
        if (get_language() or "fr").startswith("en")
        else "learn/_rules_fr.html"
    )
    return render(
        request,
        "learn/rules.html",
        {
            "body": body,
            "ex": judged_examples(),
            "original": original_text(),
            "printable": printable,
        },
    )


# --- the guided first game ----------------------------------------------------------


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


SESSION_KEY = "learn_guided_step"


def _step_of(request: HttpRequest) -> int:
    """The step the visitor is at (0-based; ``guided.LAST`` once the game is over)."""
    step = request.session.get(SESSION_KEY, 0)
    return step if isinstance(step, int) and 0 <= step <= guided.LAST else 0


def _facts(n: int) -> list[str]:
    """What step ``n`` did, as the engine played it: the player's move, then the reply."""
    done = guided.played(n)
    summary = done.summary
    facts = []
    if summary.words:
        facts.append(
            _("You played %(move)s: %(words)s.")
            % {"move": notation_shown(done.notation), "words": ", ".join(summary.words)}
        )
    facts.extend(bridge.describe_devils(done.events, False, len(summary.returned)))
    if summary.returned and isinstance(done.move, rules.Place):
        facts.append(_("Given back to the reserve: %(tiles)s.") % {"tiles": summary.returned})
    elif summary.returned:
        facts.append(_("Put back in the reserve: %(tiles)s.") % {"tiles": summary.returned})
    if summary.drawn:
        facts.append(_("Drawn from the reserve: %(tiles)s.") % {"tiles": summary.drawn})
    result = done.after_move.result
    if result is not None:
        left = guided.hand_value(done.after_move, guided.COMPUTER)
        facts.append(
            ngettext(
                "The computer is left with %(left)s point in hand.",
                "The computer is left with %(left)s points in hand.",
                left,
            )
            % {"left": left}
        )
        # The game is over: every hand is shown (R-HIDE-1).
        facts.append(
            _("The computer's last tiles: %(tiles)s.")
            % {"tiles": " ".join(done.after_move.hands[guided.COMPUTER])}
        )
        facts.append(
            ngettext(
                "Your score: %(points)s point.", "Your score: %(points)s points.", result.scores[0]
            )
            % {"points": result.scores[0]}
        )
    elif done.reply is not None:
        facts.append(
            _("The computer replied %(move)s: %(words)s.")
            % {
                "move": notation_shown(done.reply_notation),
                "words": ", ".join(done.reply_summary.words),
            }
        )
    return facts


def _hand_order(request: HttpRequest) -> str:
    """How a signed-in visitor sorts their tiles in every game; the dealt order for others."""
    user = request.user
    return user.hand_order if isinstance(user, User) else HandOrder.UNSORTED


def _guided_view(n: int, hand_order: str = HandOrder.UNSORTED) -> GameView:
    """The position before step ``n`` as the game page's board and hand draw it."""
    state = guided.position(n)
    config = state.config
    values = dict(config.tiles.values)
    last: set[str] = set()
    if n > 0:
        done = guided.played(n - 1)
        latest = done.reply or done.move
        if isinstance(latest, rules.Place):
            last = {square for square, _letter in latest.tiles}
    over = state.over
    return GameView(
        version=n,
        mode=config.mode,
        status="finished" if over else "running",
        columns=board_columns(config),
        rows=board_rows(config, state.board, last),
        seats=(),
        reserve_size=len(state.reserve),
        my_hand=tuple(
            TileView(index=k, letter=t, value=values.get(t, 0))
            for k, t in enumerate(state.hands[guided.PLAYER])
        ),
        my_position=guided.PLAYER,
        is_my_turn=not over,
        can_exchange=bool(state.reserve),
        moves=(),
        over=over,
        letter_values=values,
        rated=False,
        hand_order=hand_order,
    )


def _guided_context(n: int, hand_order: str, **extra: object) -> dict[str, object]:
    state = guided.position(n)
    context: dict[str, object] = {
        "view": _guided_view(n, hand_order),
        "step": guided.STEPS[n] if n < guided.LAST else None,
        "number": n + 1,
        "total": guided.LAST,
        "done": guided.STEPS[n - 1] if n > 0 else None,
        "facts": _facts(n - 1) if n > 0 else [],
        "computer_tiles": len(state.hands[guided.COMPUTER]),
        # The intro's counts are the deal's, so that it says what the board shows.
        "player_deal": len(guided.PLAYER_HAND),
        "computer_deal": len(guided.COMPUTER_HAND),
        "message": "",
        "urls": {"play": reverse("learn:guided_play"), "preview": reverse("learn:guided_preview")},
    }
    context.update(extra)
    return context


def _guided_text(request: HttpRequest, context: dict[str, object], n: int) -> dict[str, object]:
    """The screen-reader mode of the guided game (``games/text_game.py``): the step's move as
    it is typed, the hand, the words on the board, and the news read once after a move."""
    view = context["view"]
    assert isinstance(view, GameView)
    step = guided.STEPS[n] if n < guided.LAST else None
    typed = ""
    if step is not None and step.move:
        typed = text_game.typed_placement(step.move, step.returns)
    elif step is not None and step.exchange:
        typed = str(pgettext("typed move", "exchange %(tiles)s") % {"tiles": step.exchange})
    news = []
    if n > 0 and request.method == "POST" and not context.get("message"):
        done = guided.STEPS[n - 1]
        news.append(str(_("Step %(number)s done: %(title)s") % {"number": n, "title": done.title}))
        facts = context["facts"]
        assert isinstance(facts, list)
        news.extend(str(fact) for fact in facts)
        if step is not None:
            news.append(
                str(
                    _("Step %(number)s of %(total)s: %(title)s")
                    % {"number": n + 1, "total": guided.LAST, "title": step.title}
                )
            )
    return {
        "typed": typed,
        "hand": text_game.hand_sentence(view) if view.my_hand else "",
        "words": [word.sentence() for word in text_game.board_words(view)],
        "specials": text_game.free_specials(view),
        "query": text_game.keeps_text(request),
        "announce": " ".join(news),
    }


def _typed_move(request: HttpRequest, n: int) -> tuple[rules.Move | None, str]:
    """The move typed in the guided game's text mode (the email notation), or the error."""
    typed = request.POST.get("coup", "").strip()[:200]
    if not typed:
        return None, str(_("Type your move, for example H8 CHAT."))
    try:
        view = rules.view(guided.position(n), guided.PLAYER)
        return parse_reply(typed, view), ""
    except ReplyNotationError as error:
        return None, error.message(get_language() or "fr")


def _guidance(n: int) -> str:
    """The step's move in one line, beside a refusal: on a phone the panel that
    shows it sits over the page's foot, and the step's whole text is above the board."""
    step = guided.STEPS[n]
    if step.exchange:
        what = _("exchange the %(tiles)s") % {"tiles": ", ".join(step.exchange)}
    elif step.returns:
        what = _("play %(move)s and choose the %(tiles)s to give back") % {
            "move": step.move,
            "tiles": ", ".join(step.returns),
        }
    else:
        what = _("play %(move)s") % {"move": step.move}
    return str(_("Step %(number)s: %(what)s.") % {"number": n + 1, "what": what})


@require_GET
def guided_page(request: HttpRequest) -> HttpResponse:
    """``/partie-guidee/``: the guided first game at the visitor's step, for anyone."""
    n = _step_of(request)
    return render(
        request,
        "learn/guided.html",
        _with_text(request, n, _guided_context(n, _hand_order(request))),
    )


def _with_text(request: HttpRequest, n: int, context: dict[str, object]) -> dict[str, object]:
    """The context with the screen-reader mode's part, when the page is in that mode."""
    context["text_mode"] = text_game.text_mode(request)
    if context["text_mode"]:
        context["text"] = _guided_text(request, context, n)
    return context


@require_POST
def guided_preview(request: HttpRequest) -> HttpResponse:
    """The engine's judgement of the tiles put down, and whether they are the step's move."""
    n = _step_of(request)
    form = MoveForm(request.POST)
    guidance = ""
    if n >= guided.LAST:
        result = bridge.Preview(ok=False, message=str(_("The guided game is over.")))
    elif not form.is_valid():
        result = bridge.Preview(ok=False, message=form.first_error(), code="input")
    else:
        result = bridge.preview_state(
            guided.position(n), guided.PLAYER, form.move(), get_language() or "fr"
        )
        rest = guided.still_to_place(n, form.move())
        if rest:
            # A tile or two of the step's word: guidance, not an error (and not the whole step again).
            tiles = ", ".join(
                str(_("%(letter)s on %(square)s") % {"letter": letter.upper(), "square": square})
                for square, letter in rest
            )
            result = bridge.Preview(
                ok=False,
                code="unfinished",
                message=str(_("Good, go on: %(tiles)s.") % {"tiles": tiles}),
            )
        elif result.ok and not guided.is_step_move(n, form.move()):
            # The red devil's tiles stay to choose: the player may pick another to give back.
            result = bridge.Preview(
                ok=False,
                returns_needed=result.returns_needed,
                message=str(_("The rules allow this move, but it is not this step's.")),
            )
        if not result.ok:
            guidance = _guidance(n)
    return render(request, "games/game.html#preview", {"preview": result, "guidance": guidance})


@require_POST
def guided_play(request: HtmxHttpRequest) -> HttpResponse:
    """Play the step's move (judged by the engine, then by the lesson) and the computer's reply."""
    n = _step_of(request)
    form = MoveForm(request.POST)
    typed = request.POST.get("coup")  # the screen-reader mode's field (the email notation)
    message = ""
    move: rules.Move | None = None
    stale = str(_("This page was out of date: here is the guided game where you are."))
    if n >= guided.LAST:
        message = str(_("The guided game is over."))
    elif typed is not None:
        if request.POST.get("version") != str(n):
            return _guided_answer(request, n, message=stale)
        move, message = _typed_move(request, n)
    elif not form.is_valid():
        message = form.first_error()
    elif form.cleaned_data["version"] != n:
        return _guided_answer(request, n, message=stale)
    else:
        move = form.move()
    if move is not None and not message:
        try:
            guided.judge(n, move)
        except rules.IllegalMove as exc:
            message = exc.message(get_language() or "fr")
        except guided.OffLesson:
            message = str(_("The rules allow this move, but it is not this step's."))
    if message:
        if n < guided.LAST:
            message = f"{message} {_guidance(n)}"
        if typed is not None:  # the text game: the area again, the field as typed
            status = 200 if request.htmx else 400
            return _guided_answer(request, n, message=message, status=status, typed=typed[:200])
        if request.htmx:
            return render(request, "learn/guided.html#move_error", {"message": message}, status=400)
        return _guided_answer(request, n, message=message, status=400)
    request.session[SESSION_KEY] = n + 1
    if not request.htmx:
        # A reload asks for the page, not the move again (as text if the move was typed).
        url = reverse("learn:guided")
        if typed is not None and text_game.keeps_text(request):
            url += "?texte=1"
        return redirect(url)
    return _guided_answer(request, n + 1)


def _guided_answer(
    request: HtmxHttpRequest, n: int, *, message: str = "", status: int = 200, typed: str = ""
) -> HttpResponse:
    template = "learn/guided.html#guided_area" if request.htmx else "learn/guided.html"
    context = _guided_context(n, _hand_order(request), message=message, typed=typed)
    return render(request, template, _with_text(request, n, context), status=status)


@require_POST
def guided_restart(request: HttpRequest) -> HttpResponse:
    """Start the guided game again: from the beginning, or from an earlier step (``step``)."""
    n = _step_of(request)
    try:
        wanted = int(request.POST.get("step", "0"))
    except ValueError:
        wanted = 0
    request.session[SESSION_KEY] = wanted if 0 <= wanted <= n and wanted < guided.LAST else 0
    return redirect("learn:guided")
