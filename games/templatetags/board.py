"""The board's squares, written in Python for the game page and the rules' examples.

Measured on a 64-move game (65 tiles on the board), French, best of five runs of
50 on this 2-core machine: the 225 squares cost 20.8 ms through the template
engine (a dozen ``{% if %}`` nodes and two ``{% blocktranslate %}`` a square)
and 0.84 ms here, so they stay in Python (issue 32: a template unless it costs
more than 2 ms). The markup is what that template wrote, less the empty glyph
of a plain square (issue #38: on a phone each element counts, see
docs/PERFORMANCE.md, "A page on a phone"); the words come from the catalogue
under the template's message ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from django import template
from django.template.context import Context
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from games.presenters import SquareView

register = template.Library()

# The glyph each special square shows, so kinds are told apart without colour.
MARKS = {"start": "★", "black": "✕", "green": "G", "red": "R"}
# The template variables (``{% translate … as t_… %}``) naming each special kind.
KIND_LABELS = {"start": "t_start", "black": "t_black", "green": "t_green", "red": "t_red"}


def board_labels() -> dict[str, SafeString]:
    """The board's words, translated: what ``board_squares`` and the board's ``data-t-*`` read.

    One list for the game page's board partial and the rules' examples (both
    through ``{% board_labels %}``). ``t_letter`` keeps its ``%(letter)s`` for
    each square (and board.js) to fill in.
    """
    return {
        "t_hint": mark_safe(gettext("hint")),
        "t_empty": mark_safe(gettext("empty")),
        "t_start": mark_safe(gettext("Start")),
        "t_black": mark_safe(gettext("black square")),
        "t_green": mark_safe(gettext("green devil")),
        "t_red": mark_safe(gettext("red devil")),
        "t_diable": mark_safe(gettext("joker")),
        "t_last": mark_safe(gettext("last move")),
        "t_new": mark_safe(gettext("new tile")),
        "t_letter": mark_safe(gettext("letter %(letter)s")),
    }


@register.simple_tag(name="board_labels", takes_context=True)
def set_board_labels(context: Context) -> str:
    """``{% board_labels %}``: ``board_labels()`` set in the context, as ``{% translate … as %}`` would."""
    for name, label in board_labels().items():
        context[name] = label
    return ""


@register.simple_tag(takes_context=True)
def board_squares(context: Context, row: Iterable[SquareView]) -> SafeString:
    """The ``gridcell`` of every square in ``row``.

    Needs the labels the board partial defines: ``t_empty``, ``t_diable``,
    ``t_last``, ``t_start``, ``t_black``, ``t_green``, ``t_red`` and ``t_letter``
    (``"letter %(letter)s"`` translated); ``t_hint`` for squares a hint covers.
    """
    empty = conditional_escape(context["t_empty"])
    diable = conditional_escape(context["t_diable"])
    last = conditional_escape(context["t_last"])
    hint = conditional_escape(context.get("t_hint") or "")
    letter_label = str(conditional_escape(context["t_letter"]))
    kinds = {kind: f"{conditional_escape(context[var])}, " for kind, var in KIND_LABELS.items()}
    out = []
    for sq in row:
        name = escape(sq.name)
        kind = escape(sq.kind)
        letter = escape(sq.letter) if sq.letter else ""
        classes = f"sq sq-{kind}"
        if letter:
            classes += " has-tile"
            points = 0 if sq.is_diable else sq.value
            label = letter_label.replace("%(letter)s", letter)
            if points is not None:
                # The letter then the points, as the tile shows them: "J7, lettre R, 1 point".
                label += f", {escape(points_phrase(points))}"
            if sq.is_diable:
                label += f", {diable}"
            if sq.is_last_move:
                label += f", {last}"
            value = "" if points is None else escape(str(points))
            tile = (
                f'<span class="tile board-tile{" is-diable" if sq.is_diable else ""}" '
                f'aria-hidden="true">{tile_face(letter, value)}</span>'
            )
            data_letter = f' data-letter="{letter}"'
        else:
            label = f"{kinds.get(sq.kind, '')}{empty}"
            if sq.is_hint:
                label += f", {hint}"
            tile = data_letter = ""
        if sq.is_last_move:
            classes += " last-move"
        if sq.is_hint:
            classes += " hint-square"
        # A plain square has no glyph: no empty mark either. Most of the 225 squares are
        # plain, and each element more is one more a phone parses, lays out, and htmx walks
        # through when a move replaces the game area (issue #38).
        glyph = MARKS.get(sq.kind, "")
        mark = f'<span class="sq-mark" aria-hidden="true">{glyph}</span>' if glyph else ""
        out.append(
            f'<div role="gridcell" tabindex="-1" class="{classes}" data-square="{name}" '
            f'data-kind="{kind}"{data_letter} aria-label="{name}, {label}">'
            f"{mark}{tile}</div>"
        )
    return mark_safe("".join(out))  # every value above is escaped


def tile_face(letter: str, value: str) -> str:
    """A tile's letter and points (escaped already).

    The space between them keeps them two words in the page's text, "R 1" as
    the name says them ("lettre R, 1 point"), where "R1" would be one word no
    name contains (WCAG 2.5.3, axe's label-content-name-mismatch), and would
    read like a square. The tile lays them out by CSS: the space shows nowhere.
    """
    return f'<span class="tile-letter">{letter}</span> <span class="tile-value">{value}</span>'


def points_phrase(points: int) -> str:
    """ "1 point", "3 points": the catalogue's plural entry the hand tiles always used."""
    return ngettext("%(counter)s point", "%(counter)s points", points) % {"counter": points}


@register.simple_tag
def points_formats() -> SafeString:
    """The board's ``data-t-point`` and ``data-t-points``: board.js names the tiles it lays.

    French says "0 point", English "0 points": the script picks the form with
    ``Intl.PluralRules`` for the page's language, which agrees with gettext's
    two forms for both.
    """
    forms = (ngettext("%(counter)s point", "%(counter)s points", n) for n in (1, 2))
    return format_html('data-t-point="{}" data-t-points="{}"', *forms)
