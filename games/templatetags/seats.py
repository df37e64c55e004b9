"""The game page's "Players" card, written in Python.

Through the template engine the card was the biggest part of the page drawn
for each viewer: about forty ``{% if %}``, ``{% translate %}`` and
``{% blocktranslate %}`` nodes a seat (14% of the template's time) and the
first-player draw's loops (3%). None of it can be cached: deadlines,
vacations and the days given change without a move, and the give-time form
carries the request's CSRF token. So it is written here, as the board's
squares are (``board.py``): the markup the template wrote, byte for byte
(its whitespace too), the phrases from the catalogue under the template's
message ids, names and URLs escaped, the translated phrases trusted as
``{% translate %}`` trusts them, dates formatted as ``|date`` formats them
(in the viewer's time zone).

The draw is the same for every viewer of a game, but it names the players,
and a player may be renamed without a move: it is not cached, it is cheap to
write (a few rounds of two to eight names).
"""

from __future__ import annotations

from datetime import datetime
from html import escape

from django import template
from django.template.context import Context
from django.template.defaulttags import CsrfTokenNode
from django.utils.formats import date_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]  # in Django, not in django-stubs
from django.utils.translation import get_language, gettext, gettext_noop, ngettext

from games.presenters import DrawRound, GameView, SeatView

register = template.Library()

# The template's indentation, kept so that the page's HTML does not change.
IN_LIST = "\n          "  # an <li> of the seat list
IN_SEAT = "\n            "  # a seat's blocks
IN_BLOCK = "\n              "  # a line of a seat's name or facts
IN_FORM = "\n                "  # a line of the give-time form

# The card's fixed phrases: the template's message ids.
MSGIDS = (
    gettext_noop("Players"),
    gettext_noop("to play"),
    gettext_noop("computer"),
    gettext_noop("you"),
    gettext_noop("winner"),
    gettext_noop("on vacation"),
    gettext_noop("on vacation until %(date)s"),
    gettext_noop("on vacation from %(date)s"),
    gettext_noop("Tiles"),
    gettext_noop("Score"),
    gettext_noop("Final place"),
    gettext_noop("Status"),
    gettext_noop("resigned"),
    gettext_noop("timed out"),
    gettext_noop("Deadline"),
    gettext_noop("Give %(name)s one more day"),
    gettext_noop("24 hours more on this turn; at most %(max)s days in all."),
    gettext_noop("No more time can be given on this turn."),
    gettext_noop("Final hand:"),
    gettext_noop("joker"),
    gettext_noop("none"),
    gettext_noop("Who plays first: the draw"),
    gettext_noop("%(name)s:"),
)
Words = dict[str, str]
_WORDS: dict[str, Words] = {}  # by language, for the life of the process


def _words() -> Words:
    """The card's phrases in the active language, each msgid translated once per process.

    A ``gettext`` reads the active translation through a thread-local: about
    fifteen of them a seat cost as much as writing the markup. The catalogue
    does not change while the process runs (as for ``{% fixed_fragment %}``).
    """
    language = get_language() or ""
    words = _WORDS.get(language)
    if words is None:
        words = _WORDS[language] = {msgid: gettext(msgid) for msgid in MSGIDS}
    return words


@register.simple_tag(takes_context=True)
def seats_panel(context: Context, view: GameView) -> SafeString:
    """The ``<section class="card seats">``: each seat, the reserve and the first-player draw.

    Reads ``urls.give_time``, ``max_extra_days`` and ``csrf_token`` from the
    page's context, for the give-time form.
    """
    w = _words()
    seats = "".join(f"{IN_LIST}{_seat(w, context, view, seat)}{IN_LIST}" for seat in view.seats)
    reserve = _phrase(
        ngettext(
            "%(counter)s tile in the reserve", "%(counter)s tiles in the reserve", view.reserve_size
        ),
        counter=view.reserve_size,
    )
    draw = _draw(w, view.first_player_draw) if view.first_player_draw else ""
    return mark_safe(  # names, URLs and values are escaped; the phrases are the catalogue's
        '<section class="card seats">\n'
        f"        <h2>{w['Players']}</h2>\n"
        f'        <ol class="seat-list">{IN_LIST}{seats}\n'
        "        </ol>\n"
        f'        <p class="reserve">{reserve}</p>\n'
        f"        {draw}\n"
        "      </section>"
    )


def _seat(w: Words, context: Context, view: GameView, seat: SeatView) -> str:
    """One ``<li class="seat">``: the name and its badges, the facts, the give-time form, the final hand."""
    classes = f"seat status-{escape(seat.status)}"
    if seat.is_turn:
        classes += " is-turn"
    if seat.is_me:
        classes += " is-me"
    name = escape(seat.name)
    badges = (
        f'<span class="badge turn"><span aria-hidden="true">▶</span> {w["to play"]}</span>'
        if seat.is_turn and not view.over
        else "",
        f'<a href="{escape(seat.profile_url)}">{name}</a>' if seat.profile_url else name,
        f'<span class="badge bot"><span aria-hidden="true">🤖</span> {w["computer"]}</span>'
        if seat.is_computer
        else "",
        f'<span class="muted">({w["you"]})</span>' if seat.is_me else "",
        f'<span class="badge winner"><span aria-hidden="true">♛</span> {w["winner"]}</span>'
        if seat.is_winner
        else "",
        _vacation(w, seat) if seat.on_vacation else "",
        _vacation_badge(_phrase(w["on vacation from %(date)s"], date=_date(seat.vacation_from)))
        if seat.vacation_from and not view.over
        else "",
    )
    facts = (
        f"<div><dt>{w['Tiles']}</dt><dd>{seat.hand_size}</dd></div>",
        f"<div><dt>{w['Score']}</dt><dd>{seat.score}</dd></div>"
        if view.mode == "marque" or view.over
        else "",
        f'<div><dt>{w["Final place"]}</dt><dd class="place">{seat.place}</dd></div>'
        if seat.place
        else "",
        f'<div><dt>{w["Status"]}</dt><dd class="status">{_status(w, seat.status)}</dd></div>'
        if seat.status != "active"
        else "",
        _deadline(w, view, seat.deadline)
        if seat.deadline and seat.is_turn and not view.over
        else "",
    )
    if seat.is_turn and view.can_give_time:
        time = _give_time_form(w, context, view, seat)
    elif seat.is_turn and view.extra_days_full and not view.over:
        time = f'{IN_BLOCK}<p class="muted time-given">{w["No more time can be given on this turn."]}</p>{IN_SEAT}'
    else:
        time = ""
    final_hand = (
        _final_hand(w, seat.final_hand) if view.over and seat.final_hand is not None else ""
    )
    return (
        f'<li class="{classes}">'
        f'{IN_SEAT}<div class="seat-name">{IN_BLOCK}{IN_BLOCK.join(badges)}{IN_SEAT}</div>'
        f'{IN_SEAT}<dl class="seat-facts">{IN_BLOCK}{IN_BLOCK.join(facts)}{IN_SEAT}</dl>'
        f"{IN_SEAT}{time}{IN_SEAT}{final_hand}\n"
        "          </li>"
    )


def _vacation(w: Words, seat: SeatView) -> str:
    if seat.vacation_until:
        text = _phrase(w["on vacation until %(date)s"], date=_date(seat.vacation_until))
    else:
        text = w["on vacation"]
    return _vacation_badge(text)


def _vacation_badge(text: str) -> str:
    return f'<span class="badge vacation"><span aria-hidden="true">✈</span> {text}</span>'


def _status(w: Words, status: str) -> str:
    if status == "resigned":
        return w["resigned"]
    if status == "timed-out":
        return w["timed out"]
    return escape(status)


def _deadline(w: Words, view: GameView, deadline: datetime) -> str:
    """The player to move's deadline, and the days given on this turn."""
    given = ""
    if view.extra_days:
        phrase = ngettext("(+%(counter)s day given)", "(+%(counter)s days given)", view.extra_days)
        given = f' <span class="muted time-given">{_phrase(phrase, counter=view.extra_days)}</span>'
    # ``|date:'c'`` is ``isoformat()`` of the local time (Django's DateFormat.c), without the
    # format string's parsing.
    iso = escape(template_localtime(deadline).isoformat())
    return (
        f"<div><dt>{w['Deadline']}</dt><dd>"
        f'<time datetime="{iso}">{_date(deadline)}</time>{given}</dd></div>'
    )


def _give_time_form(w: Words, context: Context, view: GameView, seat: SeatView) -> str:
    """The form that gives the player to move one more day, with the request's CSRF token."""
    url = escape((context.get("urls") or {}).get("give_time", ""))
    button = _phrase(w["Give %(name)s one more day"], name=seat.name)
    note = _phrase(
        w["24 hours more on this turn; at most %(max)s days in all."],
        max=context.get("max_extra_days", ""),
    )
    return (
        f'{IN_BLOCK}<form class="give-time" method="post" action="{url}"\n'
        f'                    hx-post="{url}" hx-target="#game-area" hx-select="#game-area" '
        'hx-swap="outerHTML" hx-disabled-elt="find button">'
        # Exactly what {% csrf_token %} writes: the token of this request, or nothing.
        f"{IN_FORM}{CsrfTokenNode().render(context)}"
        f'{IN_FORM}<input type="hidden" name="version" value="{view.version}">'
        f'{IN_FORM}<input type="hidden" name="extra_days" value="{view.extra_days}">'
        f'{IN_FORM}<button type="submit" class="button small secondary" id="give-time-button" '
        f'aria-describedby="give-time-note">{button}</button>'
        f'{IN_FORM}<span class="muted" id="give-time-note">{note}</span>'
        f"{IN_BLOCK}</form>{IN_SEAT}"
    )


def _final_hand(w: Words, letters: str) -> str:
    """A finished game's tiles left in a hand; a joker is named for screen readers."""
    joker = w["joker"]
    tiles = "".join(
        '<span class="mini-tile is-diable"><span aria-hidden="true">?</span>'
        f'<span class="visually-hidden">{joker}</span></span>'
        if letter == "?"
        else f'<span class="mini-tile">{escape(letter)}</span>'
        for letter in letters
    )
    if not tiles:
        tiles = f'<span class="muted">{w["none"]}</span>'
    return (
        f'{IN_BLOCK}<p class="final-hand">{w["Final hand:"]}{IN_FORM}{tiles}{IN_BLOCK}</p>{IN_SEAT}'
    )


def _draw(w: Words, rounds: tuple[DrawRound, ...]) -> str:
    """Who plays first: each round of the draw (R-SETUP-1), the names and the tiles drawn."""
    joker = w["joker"]
    name_phrase = w["%(name)s:"]
    items = "".join(
        "\n                <li>"
        + " · ".join(
            f"{_phrase(name_phrase, name=name)} "
            f'<span class="mini-tile">{joker if tile == "?" else escape(tile)}</span>'
            for name, tile in round_.draws
        )
        + "</li>\n              "
        for round_ in rounds
    )
    return (
        '\n          <details class="draw">\n'
        f"            <summary>{w['Who plays first: the draw']}</summary>\n"
        f"            <ol>\n              {items}\n"
        "            </ol>\n"
        "          </details>\n        "
    )


def _date(value: datetime | None) -> str:
    """``value|date:"DATETIME_FORMAT"``, escaped: in the viewer's time zone and language."""
    if value is None:
        return ""
    return escape(date_format(template_localtime(value), "DATETIME_FORMAT"))


def _phrase(translated: str, **values: object) -> str:
    """A translated phrase with its values escaped in, as ``{% blocktranslate %}`` writes it."""
    return translated % {name: escape(str(value)) for name, value in values.items()}
