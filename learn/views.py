"""The rules page (the whole rulebook in plain words, with boards the engine judged) and the guided first game."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

import rules
from games import bridge
from games.forms import MoveForm
from games.presenters import GameView, TileView, notation_shown
from games.selectors import board_columns, board_rows
from learn import guided
from learn.examples import judged_examples

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


def _guided_view(n: int) -> GameView:
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
    )


def _guided_context(n: int, **extra: object) -> dict[str, object]:
    state = guided.position(n)
    context: dict[str, object] = {
        "view": _guided_view(n),
        "step": guided.STEPS[n] if n < guided.LAST else None,
        "number": n + 1,
        "total": guided.LAST,
        "done": guided.STEPS[n - 1] if n > 0 else None,
        "facts": _facts(n - 1) if n > 0 else [],
        "computer_tiles": len(state.hands[guided.COMPUTER]),
        "message": "",
        "urls": {"play": reverse("learn:guided_play"), "preview": reverse("learn:guided_preview")},
    }
    context.update(extra)
    return context


def _guidance(n: int) -> str:
    return str(
        _("Step %(number)s: %(instruction)s")
        % {
            "number": n + 1,
            "instruction": guided.STEPS[n].instruction,
        }
    )


@require_GET
def guided_page(request: HttpRequest) -> HttpResponse:
    """``/partie-guidee/``: the guided first game at the visitor's step, for anyone."""
    return render(request, "learn/guided.html", _guided_context(_step_of(request)))


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
        if result.ok and not guided.is_step_move(n, form.move()):
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
    message = ""
    if n >= guided.LAST:
        message = str(_("The guided game is over."))
    elif not form.is_valid():
        message = form.first_error()
    elif form.cleaned_data["version"] != n:
        message = str(_("This page was out of date: here is the guided game where you are."))
        return _guided_answer(request, n, message=message)
    else:
        try:
            guided.judge(n, form.move())
        except rules.IllegalMove as exc:
            message = exc.message(get_language() or "fr")
        except guided.OffLesson:
            message = str(_("The rules allow this move, but it is not this step's."))
    if message:
        if n < guided.LAST:
            message = f"{message} {_guidance(n)}"
        if request.htmx:
            return render(request, "learn/guided.html#move_error", {"message": message}, status=400)
        return _guided_answer(request, n, message=message, status=400)
    request.session[SESSION_KEY] = n + 1
    if not request.htmx:
        return redirect("learn:guided")  # a reload asks for the page, not the move again
    return _guided_answer(request, n + 1)


def _guided_answer(
    request: HtmxHttpRequest, n: int, *, message: str = "", status: int = 200
) -> HttpResponse:
    template = "learn/guided.html#guided_area" if request.htmx else "learn/guided.html"
    return render(request, template, _guided_context(n, message=message), status=status)


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
