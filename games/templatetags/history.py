"""The game page's list of moves, written in Python.

Measured on a 64-move game, French, best of five runs of 50 on this 2-core
machine: 4.0 ms through the template engine (a dozen nodes and a
``{% blocktranslate %}`` a move, without an analysed move's phrases) and
0.16 ms here, so the history stays in Python (issue 32: a template unless it
costs more than 2 ms); it is the part of the page that grows with the game.
The markup and the phrases are the template's (same classes, same message
ids in the catalogue), and so is the escaping: names and notations are
escaped, the translated phrases are trusted as ``{% blocktranslate %}``
trusts them.
"""

from __future__ import annotations

from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from games.presenters import AnalysisView, GameView, GiftView, MoveView

register = template.Library()


@register.simple_tag
def move_history(view: GameView) -> SafeString:
    """The ``<li>`` of every move of ``view``, each followed by the days given during the next turn."""
    items = [_gift(gift) for gift in view.opening_gifts]
    for move in view.moves:
        items.append(_move(move, view.mode))
        items += [_gift(gift) for gift in move.gifts]
    return mark_safe("\n".join(items))


def _move(move: MoveView, mode: str) -> str:
    html = (
        f'<li class="move kind-{escape(move.kind)}"><span class="move-number">{move.number}.</span> '
        f'<span class="move-player">{escape(move.player)}</span> '
        f'<code class="move-notation">{escape(move.notation)}</code>'
    )
    if move.words:
        html += f' <span class="move-words">{escape(", ".join(move.words))}</span>'
    if move.points:
        html += f' <span class="move-points">{_points(move.points)}</span>'
    if move.analysis is not None:
        html += " " + _analysis(move.analysis, mode)
    return html + "</li>"


def _points(points: int) -> str:
    """ "5 points", "-14 points": the plural follows the size (French says "-14 points")."""
    return _phrase(ngettext("%(points)s point", "%(points)s points", abs(points)), points=points)


def _phrase(translated: str, **values: object) -> str:
    """A translated phrase with its values escaped in, as ``{% blocktranslate %}`` writes it."""
    return translated % {name: escape(str(value)) for name, value in values.items()}


def _analysis(analysis: AnalysisView, mode: str) -> str:
    # Each phrase is translated outside the f-strings: xgettext does not look into one.
    if analysis.played_best:
        best = gettext("the best move found")
        return (
            '<span class="move-analysis is-best"><span aria-hidden="true">✓</span> '
            f"{escape(best)}</span>"
        )
    if mode == "marque":
        gain = _points(analysis.gain)
    else:
        gain = _phrase(
            ngettext(
                "%(counter)s tile out of the hand",
                "%(counter)s tiles out of the hand",
                analysis.gain_count,
            ),
            counter=analysis.gain_count,
        )
    # One phrase, so that French can put its space before the semicolon; ``gain`` is
    # already written (escaped values in a trusted phrase).
    gains = gettext("(%(best)s; played: %(played)s)") % {
        "best": gain,
        "played": escape(str(analysis.played_gain)),
    }
    why = ""
    if analysis.why:
        label = gettext("Why:")
        why = f' <span class="move-why">{escape(label)} {escape(" · ".join(analysis.why))}</span>'
    best_label = gettext("Best move:")
    return (
        f'<span class="move-analysis">{escape(best_label)} '
        f"<code>{escape(analysis.best)}</code> {gains}{why}</span>"
    )


def _gift(gift: GiftView) -> str:
    if gift.by_me:
        text = _phrase(gettext("You gave %(receiver)s one more day."), receiver=gift.receiver)
    elif gift.to_me:
        text = _phrase(gettext("%(giver)s gave you one more day."), giver=gift.giver)
    else:
        text = _phrase(
            gettext("%(giver)s gave %(receiver)s one more day."),
            giver=gift.giver,
            receiver=gift.receiver,
        )
    return (
        '<li class="move kind-gift"><span class="move-number" aria-hidden="true">+1</span> '
        f'<span class="move-gift">{text}</span></li>'
    )
