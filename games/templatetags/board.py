"""The board's squares and the viewer's hand, written in Python for the game page.

The page has 225 squares; through the template engine each cost a dozen
``{% if %}`` nodes and a ``{% blocktranslate %}``, which made the board most of
the page's time (docs/PERFORMANCE.md, section 4). The markup is exactly what
the template wrote; the board's words come from the template's own
translations, so there is one place to change them. A hand tile was an
``{% include %}`` of its own template, about 0.1 ms a tile; its two phrases
are the catalogue's entries that template used, same message ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from html import escape

from django import template
from django.template.context import Context
from django.urls import get_script_prefix
from django.utils.html import conditional_escape, format_html, json_script
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext

from games import page_cache
from games.presenters import GameView, SquareView, TileView

register = template.Library()

# The glyph each special square shows, so kinds are told apart without colour.
MARKS = {"start": "★", "black": "✕", "green": "G", "red": "R"}
# The template variables (``{% translate … as t_… %}``) naming each special kind.
KIND_LABELS = {"start": "t_start", "black": "t_black", "green": "t_green", "red": "t_red"}


def board_labels() -> dict[str, SafeString]:
    """The board's words, translated: what ``board_squares`` and the board's ``data-t-*`` read.

    One list for the game page's board partial and the rules' examples (both
    through ``{% board_labels %}``) and for ``games/board_update.py``, which
    draws squares outside any template. ``t_letter`` keeps its ``%(letter)s``
    for each square (and board.js) to fill in.
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
        out.append(
            f'<div role="gridcell" tabindex="-1" class="{classes}" data-square="{name}" '
            f'data-kind="{kind}"{data_letter} aria-label="{name}, {label}">'
            f'<span class="sq-mark" aria-hidden="true">{MARKS.get(sq.kind, "")}</span>'
            f"{tile}</div>"
        )
    return mark_safe("".join(out))  # every value above is escaped


@register.simple_tag
def hand_list(view: GameView) -> SafeString:
    """The viewer's hand, ``<ol id="hand">``: numbered slots (avec marque) or a rack.

    Through the template engine its loop, ``{% if %}`` and counters were about a
    tenth of the page's template time. The markup, white space included, is
    what the template wrote: the guided game includes the same ``#hand``. Each
    phrase is translated once per hand, not once per tile.
    """
    label = escape(gettext("My tiles"))
    joker = escape(gettext("joker"))
    phrases: dict[int, str] = {}

    def button(tile: TileView) -> str:
        points = phrases.get(tile.value)
        if points is None:
            points = phrases[tile.value] = escape(points_phrase(tile.value))
        return _tile_button(tile, joker, points)

    if view.hand_slots:
        kind = "hand-slots"
        items = "".join(
            '\n                <li class="hand-slot"><span class="slot-number" aria-hidden="true">'
            f"{number}</span>{button(tile) if tile else ''}</li>\n              "
            for number, tile in enumerate(view.hand_by_slot, start=1)
        )
    else:
        kind = "hand-rack"
        items = "".join(f'<li class="hand-slot">{button(tile)}</li>' for tile in view.my_hand or ())
    return mark_safe(  # every value above is escaped
        f'<ol id="hand" class="hand {kind}" aria-label="{label}">'
        f"\n            \n              {items}\n            \n          </ol>"
    )


@register.simple_tag
def hand_tile(tile: TileView) -> SafeString:
    """One tile of the viewer's hand: a button named by its letter (or "joker") and points."""
    joker = escape(gettext("joker"))
    return mark_safe(_tile_button(tile, joker, escape(points_phrase(tile.value))))  # escaped


def _tile_button(tile: TileView, joker: str, points: str) -> str:
    """``hand_tile``'s button, given the escaped word for a joker and the tile's points phrase."""
    letter = escape(tile.letter)
    value = escape(str(tile.value))
    is_diable = tile.letter == "?"
    name = joker if is_diable else letter
    return (
        f'<button type="button" class="tile hand-tile{" is-diable" if is_diable else ""}" '
        f'data-index="{tile.index}" data-letter="{letter}" data-value="{value}" '
        f'aria-pressed="false" aria-label="{name}, {points}">'
        f"{tile_face(letter, value, hidden=True)}</button>"
    )


def tile_face(letter: str, value: str, *, hidden: bool = False) -> str:
    """A tile's letter and points (escaped already), each ``aria-hidden`` if ``hidden``.

    The space between them keeps them two words in the page's text, "R 1" as
    the name says them ("lettre R, 1 point"), where "R1" would be one word no
    name contains (WCAG 2.5.3, axe's label-content-name-mismatch), and would
    read like a square. The tile lays them out by CSS: the space shows nowhere.
    """
    attrs = ' aria-hidden="true"' if hidden else ""
    return (
        f'<span class="tile-letter"{attrs}>{letter}</span> '
        f'<span class="tile-value"{attrs}>{value}</span>'
    )


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


@register.simple_tag
def letter_values_script(values: dict[str, int]) -> SafeString:
    """``values|json_script:"letter-values"`` (board.js's points of each letter), from a memo.

    The same few tile sets on every page: ``json_script`` built the same 27 entries
    each time (about 30 µs); the memo keys on the entries themselves.
    """
    return _letter_values_script(tuple(values.items()))


@lru_cache(maxsize=16)
def _letter_values_script(items: tuple[tuple[str, int], ...]) -> SafeString:
    return json_script(dict(items), "letter-values")


class SharedFragmentNode(template.Node):
    def __init__(self, nodelist: template.NodeList, key: template.base.FilterExpression) -> None:
        self.nodelist = nodelist
        self.key = key

    def render(self, context: Context) -> str:
        key = self.key.resolve(context)
        if not key:  # no key given (a template rendered on its own): nothing is cached
            return self.nodelist.render(context)
        html = page_cache.fragment("board", str(key), lambda: str(self.nodelist.render(context)))
        return mark_safe(html)  # the block's own output, rendered and escaped as usual


@register.tag
def shared_fragment(parser: template.base.Parser, token: template.base.Token) -> SharedFragmentNode:
    """``{% shared_fragment key %}…{% endshared_fragment %}``: the block's HTML, cached.

    For what every viewer of one version of a game sees alike (``games/page_cache.py``):
    ``key`` must name everything the block depends on but the language, which
    is added. An empty key renders the block without the cache.
    """
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("shared_fragment takes one argument: the key")
    nodelist = parser.parse(("endshared_fragment",))
    parser.delete_first_token()
    return SharedFragmentNode(nodelist, parser.compile_filter(bits[1]))


class FixedFragmentNode(template.Node):
    def __init__(self, nodelist: template.NodeList) -> None:
        self.nodelist = nodelist
        # By language and script prefix (its ``{% url %}``s start with it); lives as
        # long as the compiled template.
        self.rendered: dict[tuple[str, str], str] = {}

    def render(self, context: Context) -> str:
        key = (get_language() or "", get_script_prefix())
        html = self.rendered.get(key)
        if html is None:
            html = self.rendered[key] = str(self.nodelist.render(context))
        return mark_safe(html)  # the block's own output, rendered and escaped as usual


@register.tag
def fixed_fragment(parser: template.base.Parser, token: template.base.Token) -> FixedFragmentNode:
    """``{% fixed_fragment %}…{% endfixed_fragment %}``: a block that depends on the language alone.

    Rendered once per language (and script prefix) and process, then served from
    memory: for the game page's parts that are the same on every page (the joker's
    dialog, the announcer's phrases, the word check) and the site's header and
    footer (``{% load site %}``). The block must use no variable but the
    translations, ``{% url %}``s without arguments and static URLs.
    """
    if len(token.split_contents()) != 1:
        raise template.TemplateSyntaxError("fixed_fragment takes no argument")
    nodelist = parser.parse(("endfixed_fragment",))
    parser.delete_first_token()
    return FixedFragmentNode(nodelist)
