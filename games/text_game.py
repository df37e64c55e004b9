"""The game page for listening: the screen-reader mode's sentences (issue #37).

A 15×15 grid read square by square is 225 stops; this module writes the same
position as a few sentences a screen reader reads in one go: a summary (whose
turn, the deadline, the scores, the hands, the reserve, the viewer's tiles, the
last move in words), the words on the board with their start and direction,
any row or column ("Row 8: empty from A to G; C H A T from H to K; empty from L
to O."), the special squares still free and what lies around a square. The
announcement the page's live region reads after a poll or a move is built here
too.

Everything is built from a ``GameView`` (``games/presenters.py``) and nothing
else, so it holds no more than the page may show its viewer (R-HIDE-1).
Letters of a word on the board are spelled with spaces ("C H A T") so that a
screen reader names each letter rather than guessing a pronunciation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.http import HttpRequest
from django.utils import formats, timezone
from django.utils.translation import gettext, ngettext, pgettext

import rules
from games.bridge import Preview
from games.presenters import GameView, Hint, MoveView, QueuedView, SeatView, SquareView
from rules.queued import NEVER_LEGAL

# The readings a player may ask for in the "Read" field: a row ("8"), a column ("H")
# or a square ("H8", what lies around it); the words and the special squares by name.
_SQUARE = re.compile(r"([A-Za-z])\s*([0-9]{1,2})")
_ROW = re.compile(r"[0-9]{1,2}")
_COLUMN = re.compile(r"[A-Za-z]")
WORDS_ASKED = {"mots", "mot", "words", "word", "w"}
SPECIALS_ASKED = {"cases", "speciales", "spéciales", "special", "specials", "squares"}


def text_mode(request: HttpRequest) -> bool:
    """The page as text: the player's setting (``User.screen_reader``), or the page's
    ``texte=1`` (the "skip to the text game" link, and every form of that page)."""
    chosen = getattr(request.user, "screen_reader", False)
    return bool(chosen) or request.GET.get("texte") == "1" or request.POST.get("texte") == "1"


def keeps_text(request: HttpRequest) -> str:
    """The query a text page's links and forms carry to stay text: "texte=1" unless the
    player's setting already says so."""
    return "" if getattr(request.user, "screen_reader", False) else "texte=1"


def kind_name(kind: str) -> str:
    """A square's kind as the rules page names it, in the reader's language."""
    return {
        "start": pgettext("square", "start square"),
        "black": pgettext("square", "black square"),
        "green": pgettext("square", "green devil"),
        "red": pgettext("square", "red devil"),
    }.get(kind, "")


def joker() -> str:
    """The diable's name, as the hand's buttons say it."""
    return gettext("joker")


def _separator() -> str:
    """Between the parts of one sentence: "; " (French sets a space before it)."""
    return pgettext("between the parts of a sentence", "; ")


def spelled(letters: Iterable[str]) -> str:
    """ "C H A T": one letter at a time, as a screen reader should say them."""
    return " ".join(letters)


def _diables_note(squares: Sequence[SquareView]) -> str:
    """ " (the T is a joker)", or nothing."""
    diables = [sq.letter or "" for sq in squares if sq.is_diable]
    if not diables:
        return ""
    return " " + ngettext("(joker: %(letters)s)", "(jokers: %(letters)s)", len(diables)) % {
        "letters": ", ".join(diables)
    }


# --- the words on the board ----------------------------------------------------------------


@dataclass(frozen=True)
class WordOnBoard:
    word: str  # upper case, the diables as the letters they stand for
    start: str  # "H8"
    across: bool
    squares: tuple[SquareView, ...]

    def sentence(self) -> str:
        """ "CHAT, from H8 across" / "CHAT, en H8 horizontal"."""
        if self.across:
            text = gettext("%(word)s, from %(start)s across") % {
                "word": self.word,
                "start": self.start,
            }
        else:
            text = gettext("%(word)s, from %(start)s down") % {
                "word": self.word,
                "start": self.start,
            }
        return text + _diables_note(self.squares)


def _runs(line: Sequence[SquareView]) -> list[tuple[bool, list[SquareView]]]:
    """The line cut into runs of empty squares and of tiles: (filled, squares)."""
    runs: list[tuple[bool, list[SquareView]]] = []
    for square in line:
        filled = square.letter is not None
        if runs and runs[-1][0] == filled:
            runs[-1][1].append(square)
        else:
            runs.append((filled, [square]))
    return runs


def columns_of(view: GameView) -> list[tuple[SquareView, ...]]:
    return [tuple(row[c] for row in view.rows) for c in range(len(view.columns))]


def board_words(view: GameView) -> list[WordOnBoard]:
    """Every word on the board (two letters or more), across row by row, then down."""
    found: list[WordOnBoard] = []
    for across, lines in ((True, view.rows), (False, columns_of(view))):
        for line in lines:
            for filled, squares in _runs(line):
                if filled and len(squares) > 1:
                    found.append(
                        WordOnBoard(
                            word="".join(sq.letter or "" for sq in squares),
                            start=squares[0].name,
                            across=across,
                            squares=tuple(squares),
                        )
                    )
    return found


# --- a row, a column, a square -----------------------------------------------------------


def _where(square: SquareView, across: bool) -> str:
    """The part of a square's name that changes along the line: H in a row, 8 in a column."""
    return square.name[0] if across else square.name[1:]


def _line_text(line: Sequence[SquareView], across: bool) -> str:
    """The runs of one line: "empty from A to G; C H A T from H to K; empty from L to O"."""
    parts = []
    for filled, squares in _runs(line):
        first, last = _where(squares[0], across), _where(squares[-1], across)
        if not filled:
            if len(squares) == 1:
                parts.append(gettext("empty on %(at)s") % {"at": first})
            else:
                parts.append(
                    gettext("empty from %(first)s to %(last)s") % {"first": first, "last": last}
                )
            continue
        letters = spelled(sq.letter or "" for sq in squares)
        if len(squares) == 1:
            part = gettext("%(letters)s on %(at)s") % {"letters": letters, "at": first}
        else:
            part = gettext("%(letters)s from %(first)s to %(last)s") % {
                "letters": letters,
                "first": first,
                "last": last,
            }
        parts.append(part + _diables_note(squares))
    return _separator().join(parts)


def _free_specials_in(squares: Iterable[SquareView]) -> str:
    """ "Free special squares: red devil A8, red devil O8." or nothing."""
    free = [
        f"{kind_name(sq.kind)} {sq.name}"
        for sq in squares
        if sq.letter is None and sq.kind != "plain" and kind_name(sq.kind)
    ]
    if not free:
        return ""
    return " " + gettext("Special squares still free: %(squares)s.") % {"squares": ", ".join(free)}


def row_text(view: GameView, number: int) -> str:
    """ "Row 8: empty from A to G; C H A T from H to K; empty from L to O." """
    line = view.rows[number - 1]
    text = gettext("Row %(number)s: %(squares)s.") % {
        "number": number,
        "squares": _line_text(line, across=True),
    }
    return text + _free_specials_in(line)


def column_text(view: GameView, letter: str) -> str:
    """ "Column H: empty from 1 to 7; C on 8; empty from 9 to 15." """
    index = view.columns.index(letter)
    line = columns_of(view)[index]
    text = gettext("Column %(letter)s: %(squares)s.") % {
        "letter": letter,
        "squares": _line_text(line, across=False),
    }
    return text + _free_specials_in(line)


def square_text(square: SquareView) -> str:
    """ "H8: C, start square" / "H7: empty" / "I8: H, joker"."""
    parts = [square.letter if square.letter else gettext("empty")]
    if square.is_diable:
        parts.append(joker())
    if kind_name(square.kind):
        parts.append(kind_name(square.kind))
    return gettext("%(square)s: %(what)s") % {"square": square.name, "what": ", ".join(parts)}


def around_text(view: GameView, col: int, row: int) -> str:
    """The square itself, then above, below, left and right of it (those on the board)."""
    height, width = len(view.rows), len(view.columns)
    sentences = [square_text(view.rows[row][col]) + "."]
    for label, dc, dr in (
        (gettext("Above"), 0, -1),
        (gettext("Below"), 0, 1),
        (gettext("Left"), -1, 0),
        (gettext("Right"), 1, 0),
    ):
        c, r = col + dc, row + dr
        if 0 <= c < width and 0 <= r < height:
            sentences.append(f"{label}, {square_text(view.rows[r][c])}.")
    return " ".join(sentences)


def free_specials(view: GameView) -> list[str]:
    """Each kind of special square still free, with its squares: "Red devils: A1, O1."."""
    by_kind: dict[str, list[str]] = {}
    for row in view.rows:
        for square in row:
            if square.letter is None and square.kind != "plain":
                by_kind.setdefault(square.kind, []).append(square.name)
    sentences = {
        "start": lambda n: ngettext("Start square: %(squares)s.", "Start squares: %(squares)s.", n),
        "red": lambda n: ngettext("Red devil: %(squares)s.", "Red devils: %(squares)s.", n),
        "green": lambda n: ngettext("Green devil: %(squares)s.", "Green devils: %(squares)s.", n),
        "black": lambda n: ngettext("Black square: %(squares)s.", "Black squares: %(squares)s.", n),
    }
    return [
        sentences[kind](len(by_kind[kind])) % {"squares": ", ".join(by_kind[kind])}
        for kind in ("start", "red", "green", "black")
        if kind in by_kind
    ]


def reading(view: GameView, asked: str) -> str:
    """What the "Read" field answers: a row ("8"), a column ("H"), around a square ("H8"),
    the words ("mots", "words") or the special squares ("cases", "squares").

    A request it cannot read gets a sentence saying what it can.
    """
    text = asked.strip()
    folded = text.lower()
    height, width = len(view.rows), len(view.columns)
    if folded in WORDS_ASKED:
        return words_text(view)
    if folded in SPECIALS_ASKED:
        return " ".join(free_specials(view)) or gettext("No special square is still free.")
    if _ROW.fullmatch(text) and 1 <= int(text) <= height:
        return row_text(view, int(text))
    if _COLUMN.fullmatch(text) and text.upper() in view.columns:
        return column_text(view, text.upper())
    match = _SQUARE.fullmatch(text)
    if match and match.group(1).upper() in view.columns and 1 <= int(match.group(2)) <= height:
        return around_text(
            view, view.columns.index(match.group(1).upper()), int(match.group(2)) - 1
        )
    return gettext(
        "Type a row number from 1 to %(rows)s, a column letter from A to %(last)s, "
        "a square such as H8, or “words”."
    ) % {"rows": height, "last": view.columns[width - 1]}


def words_text(view: GameView) -> str:
    words = board_words(view)
    if not words:
        return gettext("No word on the board yet.")
    return _separator().join(word.sentence() for word in words) + "."


# --- moves in words ----------------------------------------------------------------------


def move_sentence(move: MoveView, mode: str) -> str:
    """A move of the history in words: "alice placed CHAT from H8 across, making CHAT, HA: 12 points."."""
    player = move.player
    if move.kind == "place":
        try:
            notated = rules.parse_notation(move.notation)
        except ValueError:  # not a placement's notation after all: say it as written
            return gettext("%(player)s played %(move)s.") % {
                "player": player,
                "move": move.notation,
            }
        word = notated.word.replace("(", "").replace(")", "").upper()
        values = {"player": player, "word": word, "start": notated.start}
        if notated.across:
            text = gettext("%(player)s placed %(word)s from %(start)s across") % values
        else:
            text = gettext("%(player)s placed %(word)s from %(start)s down") % values
        if move.words:
            text += gettext(", making %(words)s") % {"words": ", ".join(move.words)}
        if mode == "marque" and move.points:
            text += ngettext(": %(points)s point", ": %(points)s points", abs(move.points)) % {
                "points": move.points
            }
        if notated.returns:
            text += ngettext(
                "; %(count)s tile given back for a red devil",
                "; %(count)s tiles given back for red devils",
                notated.returns,
            ) % {"count": notated.returns}
        return text + "."
    if move.kind == "exchange":
        count = int(re.sub(r"\D", "", move.notation) or 0)
        return ngettext(
            "%(player)s exchanged %(count)s tile.", "%(player)s exchanged %(count)s tiles.", count
        ) % {"player": player, "count": count}
    if move.kind == "pass":
        return gettext("%(player)s passed.") % {"player": player}
    if move.kind == "resign":
        return gettext("%(player)s resigned.") % {"player": player}
    if move.kind == "timeout":
        return gettext("%(player)s ran out of time.") % {"player": player}
    return gettext("%(player)s played %(move)s.") % {"player": player, "move": move.notation}


# --- the summary and the announcement ---------------------------------------------------


def _tile_text(letter: str, value: int) -> str:
    name = joker() if letter == "?" else letter
    return f"{name} {value}"


def turn_sentence(view: GameView) -> str:
    if view.status == "annulled":
        return gettext("Game annulled.")
    if view.over:
        if view.winners:
            return ngettext(
                "Game over. Winner: %(names)s.", "Game over. Winners: %(names)s.", len(view.winners)
            ) % {"names": ", ".join(view.winners)}
        return gettext("Game over. No winner.")
    if view.is_my_turn:
        return gettext("Your turn.")
    seat = view.seat_to_move
    if seat is not None:
        return gettext("%(name)s is to play.") % {"name": seat.name}
    return ""


def _deadline_sentence(seat: SeatView | None, extra_days: int) -> str:
    if seat is None or seat.deadline is None:
        return ""
    when = formats.date_format(timezone.localtime(seat.deadline), "DATETIME_FORMAT")
    text = gettext("Deadline: %(when)s.") % {"when": when}
    if extra_days:
        text += " " + ngettext("(%(count)s day given.)", "(%(count)s days given.)", extra_days) % {
            "count": extra_days
        }
    return text


def summary(view: GameView) -> list[str]:
    """The summary the text game opens with, one sentence per line."""
    lines = [turn_sentence(view)]
    if not view.over:
        lines.append(_deadline_sentence(view.seat_to_move, view.extra_days))
    if view.mode == "marque" or view.over:
        lines.append(
            gettext("Scores: %(scores)s.")
            % {"scores": ", ".join(f"{seat.name} {seat.score}" for seat in view.seats)}
        )
    if not view.over:
        lines.append(
            gettext("Tiles in hand: %(hands)s.")
            % {"hands": ", ".join(f"{seat.name} {seat.hand_size}" for seat in view.seats)}
        )
        lines.append(
            ngettext("Reserve: %(count)s tile.", "Reserve: %(count)s tiles.", view.reserve_size)
            % {"count": view.reserve_size}
        )
    if view.my_hand is not None and not view.over:
        lines.append(hand_sentence(view))
    if view.queued is not None:
        lines.append(queued_sentence(view.queued))
    if view.moves:
        lines.append(
            gettext("Last move: %(move)s") % {"move": move_sentence(view.moves[-1], view.mode)}
        )
    else:
        lines.append(gettext("No move yet."))
    return [line for line in lines if line]


def hand_sentence(view: GameView) -> str:
    """ "Your tiles (7): C 3, H 4, A 1, joker 0." in the player's chosen order."""
    tiles = view.hand_shown
    return gettext("Your tiles (%(count)s): %(tiles)s.") % {
        "count": len(tiles),
        "tiles": ", ".join(_tile_text(tile.letter, tile.value) for tile in tiles),
    }


def _sentence(text: str) -> str:
    """A chat message ends as a sentence, so the next one is read apart."""
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."


def announcement(
    view: GameView,
    *,
    since_version: int | None,
    new_messages: Sequence[tuple[str, str]] = (),
    turn_before: bool | None = None,
    queued_before: bool = False,
    cancelled: bool | None = None,
) -> str:
    """What the live region says once the page has news: the moves played since
    ``since_version``, the new chat messages (author, text) and the turn.

    The turn is said when moves were played, or when ``turn_before`` (the
    viewer's turn then) differs from now; a chat message alone does not repeat it.
    ``queued_before``: the page showed the viewer's queued move waiting; if it has
    been played or refused since, that is said first.
    ``cancelled``: the answer to "Cancel" (None: no cancel asked): True, the queued
    move was dropped; False, there was none left to drop (played since the page
    was built, or gone with a move of the viewer's own), and what became of it is said.
    """
    parts: list[str] = []
    moves = [m for m in view.moves if since_version is not None and m.number > since_version]
    if cancelled:
        parts.append(gettext("Queued move cancelled."))
    elif cancelled is False:
        parts.append(
            queued_outcome(view, moves) or gettext("There was no queued move left to cancel.")
        )
    elif queued_before:
        parts.append(queued_outcome(view, moves))
    parts.extend(move_sentence(move, view.mode) for move in moves)
    parts.extend(
        gettext("Message from %(author)s: %(text)s") % {"author": author, "text": _sentence(text)}
        for author, text in new_messages
    )
    now_mine = view.is_my_turn and not view.over
    if moves or (turn_before is not None and turn_before != now_mine) or (view.over and moves):
        parts.append(turn_sentence(view))
    return " ".join(part for part in parts if part)


# --- the queued move (issue #36) ---------------------------------------------------------


def queued_typed(queued: QueuedView) -> str:
    """The queued move as the player would type it again ("H8 CHATS", the letters already
    on the board written without their parentheses, to be heard as one word); its tiles
    in words while it makes no move on this board yet ("S on L8")."""
    try:
        notated = rules.parse_notation(queued.notation)
    except ValueError:
        tiles = [pair.split("=", 1) for pair in queued.placements.split(",") if "=" in pair]
        return ", ".join(
            gettext("%(letter)s on %(square)s") % {"letter": _tile_name(letter), "square": square}
            for square, letter in tiles
        )
    # Inside parentheses, the board's letters: capitals (a diable there is no choice).
    word = re.sub(r"\(([^)]*)\)", lambda found: found.group(1).upper(), notated.word)
    text = f"{notated.start} {'' if notated.across else 'v '}{word}"
    if queued.returns:
        text += " " + pgettext("typed move", "return %(tiles)s") % {
            "tiles": " ".join(queued.returns)
        }
    return text


def queued_sentence(queued: QueuedView) -> str:
    """ "Queued move: H8 CHATS, played when your turn comes if it is still legal." or,
    once its turn came and it could not be played, why."""
    values = {"move": queued_typed(queued), "reason": queued.reason}
    if not queued.waiting:
        return gettext("Your queued move %(move)s was not played: %(reason)s") % values
    if queued.keep == "unchanged":
        return (
            gettext(
                "Queued move: %(move)s, played when your turn comes only if nothing "
                "near it has changed."
            )
            % values
        )
    return gettext("Queued move: %(move)s, played when your turn comes if it is still legal.") % (
        values
    )


def queued_outcome(view: GameView, moves: Sequence[MoveView]) -> str:
    """What became of the queued move the page showed waiting: played (the kernel's move
    from it among ``moves``, the news), not played (and why), or nothing to say (gone
    with a move of the viewer's own, which the news says)."""
    if view.queued is not None:
        return "" if view.queued.waiting else queued_sentence(view.queued)
    if any(move.from_queue for move in moves):
        return gettext("Your queued move was played.")
    return ""


# --- the move typed: its read-back, the hint as it would be typed --------------------------


def typed_placement(notation: str, returns: str = "") -> str:
    """A placement's notation as a player types it in the text game (and in a reply by
    email): "H8→ C(HA)t" is "H8 C(HA)t", down "H8 v CHAT"; returns "rends Q" / "return Q"."""
    notated = rules.parse_notation(notation)
    text = f"{notated.start} {'' if notated.across else 'v '}{notated.word}"
    if returns:
        tiles = " ".join(returns)
        text += " " + pgettext("typed move", "return %(tiles)s") % {"tiles": tiles}
    return text


def hint_typed(hint: Hint) -> str:
    """The hint as the player would type it to play it, or "" when it is a pass."""
    if hint.kind == "place" and hint.notation:
        try:
            return typed_placement(hint.notation, hint.returns)
        except ValueError:
            return ""
    if hint.kind == "exchange" and hint.exchange:
        return pgettext("typed move", "exchange %(tiles)s") % {"tiles": hint.exchange}
    return ""


def _tiles_named(tiles: str) -> str:
    return ", ".join(joker() if tile == "?" else tile for tile in tiles)


def preview_sentences(
    move: rules.Move, preview: Preview, mode: str, *, queueing: bool = False
) -> list[str]:
    """What the "Read back" button says of a typed move (``bridge.Preview`` for ``move``):
    the placement, its words, its effects and its points; an exchange's tiles; a pass.

    ``queueing``: not the player's turn, the move is to be queued (a placement only),
    judged on the board as it is now."""
    if queueing and not isinstance(move, rules.Place):
        return [gettext("Only a placement can be queued.")]
    if not preview.ok:
        lines = [preview.message]
        if preview.returns_needed:
            lines.append(
                gettext("Add the tiles to give back after the word, for example: H8 CHAT return Q.")
            )
        elif queueing and preview.code not in NEVER_LEGAL:
            lines.append(
                gettext(
                    "It may still be queued: it is judged again when your turn comes, "
                    "on the board as it is then."
                )
            )
        return lines
    if isinstance(move, rules.Exchange):
        return [
            ngettext(
                "Exchange of %(count)s tile: %(tiles)s.",
                "Exchange of %(count)s tiles: %(tiles)s.",
                len(move.tiles),
            )
            % {"count": len(move.tiles), "tiles": _tiles_named(move.tiles)},
            gettext("Press Play to exchange."),
        ]
    if isinstance(move, rules.Pass):
        return [gettext("You pass this turn."), gettext("Press Play to pass.")]
    lines = []
    if isinstance(move, rules.Place):
        placed = ", ".join(
            gettext("%(letter)s on %(square)s") % {"letter": _tile_name(letter), "square": square}
            for square, letter in move.tiles
        )
        lines.append(gettext("Tiles placed: %(tiles)s.") % {"tiles": placed})
        if move.returns:
            lines.append(gettext("Given back: %(tiles)s.") % {"tiles": _tiles_named(move.returns)})
    lines.append(gettext("Words: %(words)s.") % {"words": ", ".join(preview.words)})
    lines.extend(str(devil) for devil in preview.devils)
    if preview.points_hidden:
        lines.append(
            gettext(
                "Points: the value of the tiles left in the other players' hands, "
                "shown once you have played."
            )
        )
    elif mode == "marque" or preview.points:
        lines.append(
            ngettext("%(points)s point.", "%(points)s points.", abs(preview.points))
            % {"points": preview.points}
        )
    if preview.goes_out:
        lines.append(gettext("This move places all your tiles: you go out."))
    if queueing:
        lines.append(
            gettext("On the board as it is now. Press “Play when my turn comes” to queue it.")
        )
    else:
        lines.append(gettext("Press Play to play it."))
    return lines


def _tile_name(letter: str) -> str:
    """A placed tile: "C", or "joker as T" for a diable standing for T."""
    if letter.islower():
        return gettext("joker as %(letter)s") % {"letter": letter.upper()}
    return letter
