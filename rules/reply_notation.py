"""Moves as a person writes them in a reply to a turn email (play by mail, #24).

``parse_reply(text, view) -> Move`` reads the first line of ``text`` that is a
move, for the player whose ``PlayerView`` is given (docs/NOTATION.md, "Moves in
a reply")::

    H8 CHAT            across from H8 (also H8 → CHAT, H8 -> CHAT, H8→ CHAT)
    H8 ↓ CHAT          down (also H8 v CHAT, H8v CHAT, H8 down CHAT, H8 bas CHAT)
    H8 C(HA)T          letters already on the board in parentheses, or just written
    H8 CHAt            a lower-case letter among capitals is a diable (joker)
    M8 (TA)S rends Q   red-devil returns, also "return Q" (same line or the next)
    échange ABC        exchange (also "exchange ABC", "échange 1 4 7": hand slots)
    passe / pass       abandon / resign
    plus tard: K5 LOUP a placement queued for the next turn (also "later: K5 LOUP";
                       ``parse_later_read``, read after the move is played)

Case and accents are ignored (``É`` is ``E``), except that in a word mixing
capitals and small letters the small ones are diables. Pure Python: no Django.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from rules.material import DIABLE, LETTERS
from rules.player_view import PlayerView
from rules.squares import parse_square
from rules.state import Exchange, Move, Pass, Place, Resign

__all__ = [
    "ReplyNotationError",
    "parse_later_read",
    "parse_reply",
    "parse_reply_line",
    "parse_reply_read",
]


class ReplyNotationError(ValueError):
    """A reply whose move cannot be read; nothing is played.

    Like ``IllegalMove``: a stable ``code`` and a message in French and in
    English saying what to write instead (``message(lang)``).
    """

    def __init__(self, code: str, message_fr: str, message_en: str) -> None:
        super().__init__(message_en)
        self.code = code
        self.message_fr = _french_spaces(message_fr)
        self.message_en = message_en
        self.line = (
            ""  # the line refused, as written, when the caller needs it (``parse_later_read``)
        )

    def message(self, lang: str = "fr") -> str:
        """The message in ``lang`` (``"fr"`` or ``"en"``; French for anything else)."""
        return self.message_en if lang.lower().startswith("en") else self.message_fr

    def __repr__(self) -> str:
        return f"ReplyNotationError({self.code!r}, {self.message_en!r})"


def _french_spaces(text: str) -> str:
    """French typography: a non-breaking space before : ; ? ! and inside « »."""
    for mark in ":;?!":
        text = text.replace(f" {mark}", f"\u00a0{mark}")
    return text.replace("« ", "«\u00a0").replace(" »", "\u00a0»")


# The same forms as the turn email teaches (games.email_board.how_to_answer): "v" for
# down, which every keyboard has; the arrow is still read.
HOW_FR = "Écrivez par exemple « H8 CHAT » (horizontal), « H8 v CHAT » (vertical), « échange ABC », « passe » ou « abandon »."
HOW_EN = (
    'Write for example "H8 CHAT" (across), "H8 v CHAT" (down), "exchange ABC", "pass" or "resign".'
)

_PASS = {"passe", "pass", "je passe", "i pass", "passer", "je passe mon tour", "pass my turn"}
_RESIGN = {"abandon", "resign", "j'abandonne", "jabandonne", "i resign", "abandonner"}
_EXCHANGE = {"echange", "echanger", "exchange", "swap", "j'echange", "i exchange"}
_RETURN = {"rends", "rend", "rendre", "je rends", "return", "returns", "i return", "give back"}
_ALL = {"tout", "toutes", "all"}
# "Je joue H8 CHAT", "Mon coup : H8 CHAT", "Move: pass": the words before the move.
_LEAD = re.compile(
    r"^(?:je joue|je pose|mon coup|coup|i play|my move|move|play)\s*:?\s+(?=\S)", re.IGNORECASE
)
_ACROSS = {"→", "h", "across", "horizontal", "horizontalement", "droite", "right"}
_DOWN = {"↓", "v", "down", "vertical", "verticalement", "bas"}
# "Plus tard : K5 LOUP", "later: K5 LOUP": a placement queued for the next turn.
_LATER = re.compile(r"^(?:plus tard|later)\s*:\s*(?=\S)", re.IGNORECASE)
_DIABLE_WORDS = {"?", "*", "diable", "joker", "blank"}

_SQUARE = re.compile(r"([a-z])([1-9][0-9]?)([hv])?", re.IGNORECASE)
_SQUARE_BACKWARDS = re.compile(r"[0-9]{1,2}[a-z]", re.IGNORECASE)
_WORD = re.compile(r"(?:[A-Za-z]|\([A-Za-z]+\))+")
_ARROWS = (
    ("—>", " → "),
    ("–>", " → "),
    ("->", " → "),
    ("=>", " → "),
    ("→", " → "),
    ("⟶", " → "),
    ("↓", " ↓ "),
    ("⬇", " ↓ "),
)
_EDGE_PUNCTUATION = " \t.,;:!?\"'«»“”()[]"


def _fold(text: str) -> str:
    """Accents removed (``É`` -> ``E``, ``œ`` kept as is), case kept, spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    kept = kept.replace("\u2019", "'").replace("\u00a0", " ")
    return " ".join(kept.split())


def _keyword(text: str) -> str:
    return text.lower().strip(_EDGE_PUNCTUATION)


@dataclass(frozen=True, slots=True)
class _Letter:
    letter: str  # upper case
    small: bool  # written in lower case
    on_board: bool  # written in parentheses


def parse_reply(text: str, view: PlayerView) -> Move:
    """The move of a reply's text, for ``view.viewer``: the first line that reads as one.

    Lines that are not a move (a greeting, a thank-you) are skipped, and so is
    a placement whose new tiles the hand cannot supply (``A2 bientôt`` with no
    B, I, E… in hand: words, not a move) when a later line is a move; with none,
    that placement is the move (the engine then says what the hand lacks). A
    line that looks like a move but cannot be played as written (a square off
    the board, a letter in parentheses that is not there) stops the reading:
    its error is raised, rather than a later line being played.
    ReplyNotationError, with French and English messages, when no line is a move.
    Red-devil returns may stand on the line after a placement.
    """
    return parse_reply_read(text, view)[0]


def parse_reply_read(text: str, view: PlayerView) -> tuple[Move, str]:
    """``parse_reply``'s move and the line it was read from, as written (with the
    next line when the returns stood there), for the answer to echo."""
    written = [" ".join(line.split()) for line in text.splitlines()]
    # A "plus tard :" line is the next turn's, never this one's (``parse_later_read``).
    pairs = [(_fold(line), line) for line in written if _fold(line) and not _is_later(line)]
    fallback: tuple[Move, str] | None = None
    for number, (line, original) in enumerate(pairs):
        following = pairs[number + 1][0] if number + 1 < len(pairs) else ""
        move = parse_reply_line(line, view, following=following)
        if move is None:
            continue
        read = original
        if isinstance(move, Place) and move.returns and following:
            alone = parse_reply_line(line, view)
            if isinstance(alone, Place) and not alone.returns:
                read = f"{original} / {pairs[number + 1][1]}"
        if isinstance(move, Place) and not _hand_supplies(move, view):
            fallback = fallback or (move, read)
            continue
        return move, read
    if fallback is not None:
        return fallback
    raise ReplyNotationError(
        "no-move",
        "Aucun coup trouvé dans votre réponse. " + HOW_FR,
        "No move found in your reply. " + HOW_EN,
    )


def _is_later(line: str) -> bool:
    return _LATER.match(_fold(line)) is not None


def parse_later_read(text: str, view: PlayerView) -> tuple[Place, str] | None:
    """The placement of the reply's first ``plus tard :`` / ``later:`` line, for the
    player's next turn (a queued move), and the line as written; None without one.

    Read with the view after this turn's move (the hand and board it leaves).
    Red-devil returns may stand on the same line or the next. ReplyNotationError
    when the line cannot be read, or is not a placement.
    """
    written = [" ".join(line.split()) for line in text.splitlines()]
    for number, line in enumerate(written):
        folded = _fold(line)
        found = _LATER.match(folded)
        if found is None:
            continue
        following = _fold(written[number + 1]) if number + 1 < len(written) else ""
        try:
            move = parse_reply_line(folded[found.end() :], view, following=following)
            if not isinstance(move, Place):
                raise ReplyNotationError(
                    "later-not-placement",
                    "Seul un placement peut attendre votre prochain tour, par exemple « plus tard : H8 CHAT ».",
                    'Only a placement can wait for your next turn, for example "later: H8 CHAT".',
                )
        except ReplyNotationError as error:
            error.line = line
            raise
        return move, line
    return None


def _hand_supplies(move: Place, view: PlayerView) -> bool:
    """Whether the hand holds every new tile of ``move`` (a diable for each small letter)."""
    assert view.hand is not None
    needed = Counter(DIABLE if letter.islower() else letter for _, letter in move.tiles)
    held = Counter(view.hand)
    return all(held[tile] >= count for tile, count in needed.items())


def parse_reply_line(line: str, view: PlayerView, *, following: str = "") -> Move | None:
    """The move written on one line, None if the line is not a move at all.

    ``following`` is the next line, read only for a placement's returns
    (``rends Q`` on a line of its own). Raises ReplyNotationError for a line
    that is a move attempt that cannot be read.
    """
    if view.viewer is None or view.hand is None or view.config is None:
        raise ReplyNotationError(
            "not-a-player",
            "Seul un joueur de la partie peut jouer un coup.",
            "Only a player of the game can play a move.",
        )
    player = view.viewer
    line = _LEAD.sub("", _fold(line))
    word = _keyword(line)
    if word in _PASS:
        return Pass(player)
    if word in _RESIGN:
        return Resign(player)
    lowered = line.lower()
    for keyword in sorted(_EXCHANGE, key=len, reverse=True):
        if lowered.strip(_EDGE_PUNCTUATION) == keyword or lowered.startswith(keyword + " "):
            return Exchange(player, _tiles(line[len(keyword) :], view, "exchange"))
    return _placement(line, view, following)


def _tiles(text: str, view: PlayerView, what: str) -> str:
    """Tiles named by letters (``?``/``*``/``diable``/``joker`` a diable) or by hand slots."""
    assert view.hand is not None
    items = [item for item in re.split(r"[\s,;+/-]+", text.strip(" .,;:!")) if item]
    if not items:
        if what == "exchange":
            raise ReplyNotationError(
                "exchange-empty",
                "Dites quelles lettres échanger, par exemple « échange ABC ».",
                'Say which tiles to exchange, for example "exchange ABC".',
            )
        raise ReplyNotationError(
            "returns-empty",
            "Dites quelles lettres rendre, par exemple « rends Q ».",
            'Say which tiles to give back, for example "return Q".',
        )
    if what == "exchange" and len(items) == 1 and items[0].lower() in _ALL:
        return "".join(view.hand)
    if all(item.isdigit() for item in items):
        tiles = []
        for item in items:
            slot = int(item)
            if not 1 <= slot <= len(view.hand):
                raise ReplyNotationError(
                    "bad-slot",
                    f"Votre main n’a pas de case {slot} (elle va de 1 à {len(view.hand)}).",
                    f"Your hand has no slot {slot} (they run from 1 to {len(view.hand)}).",
                )
            tiles.append(view.hand[slot - 1])
        if len(set(items)) != len(items):
            raise ReplyNotationError(
                "slot-twice",
                "Vous avez nommé deux fois la même case de votre main.",
                "You named the same slot of your hand twice.",
            )
        return "".join(tiles)
    tiles = []
    for item in items:
        if item.lower() in _DIABLE_WORDS:
            tiles.append(DIABLE)
            continue
        for char in item:
            if char in "?*":
                tiles.append(DIABLE)
            elif char.upper() in LETTERS and char.isascii():
                tiles.append(char.upper())
            else:
                raise ReplyNotationError(
                    "bad-tile",
                    f"« {item} » n’est pas une lettre de votre main (un diable s’écrit « ? »).",
                    f'"{item}" is not a tile of your hand (a joker is written ?).',
                )
    return "".join(tiles)


def _returns(text: str, view: PlayerView) -> str | None:
    """The tiles of a returns clause (``rends Q``, ``return Q E``), None if it is not one."""
    folded = text.lower()
    for word in sorted(_RETURN, key=len, reverse=True):
        if folded == word or folded.startswith(word + " "):
            return _tiles(text[len(word) :], view, "returns")
    return None


def _starts_returns(text: str) -> bool:
    """Whether ``text`` begins with a returns keyword followed by something (``rends Q``)."""
    folded = text.lower()
    return any(folded.startswith(word + " ") for word in _RETURN)


# A tile named on the line after a placement: a letter, a diable, a hand slot.
_SHORT_TILE = re.compile(r"[A-Za-z?*]|[0-9]{1,2}")


def _returns_line(text: str, view: PlayerView) -> str:
    """The returns of the line after a placement, "" unless it is nothing but a
    returns clause naming short tiles (``rends Q``, ``return 3 ?``): a sentence
    such as "Rend visite à Paul demain" is not one."""
    folded = text.lower()
    for word in sorted(_RETURN, key=len, reverse=True):
        if folded.startswith(word + " "):
            items = [i for i in re.split(r"[\s,;+/-]+", text[len(word) :].strip(" .,;:!")) if i]
            if items and all(_SHORT_TILE.fullmatch(i) or i.lower() in _DIABLE_WORDS for i in items):
                return _tiles(text[len(word) :], view, "returns")
            return ""
    return ""


def _placement(line: str, view: PlayerView, following: str) -> Move | None:
    assert view.config is not None and view.hand is not None and view.viewer is not None
    line = line.rstrip(" .,;:!")
    for arrow, spaced in _ARROWS:
        line = line.replace(arrow, spaced)
    tokens = line.split()
    if not tokens:
        return None
    first = tokens[0].strip(",:;")
    match = _SQUARE.fullmatch(first)
    if match is None:
        if _SQUARE_BACKWARDS.fullmatch(first) and len(tokens) > 1 and _WORD.fullmatch(tokens[-1]):
            raise ReplyNotationError(
                "square-order",
                f"Écrivez la case colonne puis ligne : {first[-1].upper()}{first[:-1]}, pas {first}. "
                + HOW_FR,
                f"Write the square column first, then row: {first[-1].upper()}{first[:-1]}, "
                f"not {first}. " + HOW_EN,
            )
        return None
    square = f"{match.group(1).upper()}{match.group(2)}"
    across = True
    rest = tokens[1:]
    if match.group(3):
        across = match.group(3).lower() == "h"
    elif (
        len(rest) > 1
        and rest[0].lower() in _ACROSS | _DOWN
        and _WORD.fullmatch(rest[1].rstrip(",;:"))
        and not _starts_returns(" ".join(rest[1:]))
    ):  # "H8 bas CHAT" is down; "H8 BAS rends Q" is the word BAS
        across = rest[0].lower() in _ACROSS
        rest = rest[1:]
    if rest:
        rest[0] = rest[0].rstrip(",;:")
    if not rest or not _WORD.fullmatch(rest[0]):
        if rest and re.fullmatch(r"[A-Za-z()?*]+", rest[0]):
            raise ReplyNotationError(
                "bad-word",
                f"« {rest[0]} » n’est pas un mot à poser : des lettres, celles déjà posées "
                "éventuellement entre parenthèses. " + HOW_FR,
                f'"{rest[0]}" is not a word to place: letters, those already on the board '
                "in parentheses if you like. " + HOW_EN,
            )
        if not rest and len(line.split()) == 1 and re.fullmatch(r"[a-z][0-9]{1,2}", first, re.I):
            raise ReplyNotationError(
                "no-word",
                f"Après la case {square}, écrivez le mot : « {square} CHAT ». " + HOW_FR,
                f'After the square {square}, write the word: "{square} CHAT". ' + HOW_EN,
            )
        return None
    word = rest[0]
    tail = " ".join(rest[1:]).strip(" .,;:!")
    returns = ""
    if tail:
        found = _returns(tail, view)
        if found is None:
            raise ReplyNotationError(
                "trailing-text",
                f"J’ai lu « {square} {word} » mais pas « {tail} ». Écrivez le coup seul sur sa ligne.",
                f'I read "{square} {word}" but not "{tail}". Write the move alone on its line.',
            )
        returns = found
    elif following:
        returns = _returns_line(following.strip(" .,;:!"), view)
    tiles = _new_tiles(square, across, word, view)
    return Place(view.viewer, tiles, returns=returns)


def _letters(word: str) -> list[_Letter]:
    letters: list[_Letter] = []
    inside = False
    for char in word:
        if char in "()":
            inside = char == "("
            continue
        letters.append(_Letter(char.upper(), char.islower(), inside))
    return letters


def _new_tiles(
    square: str, across: bool, word: str, view: PlayerView
) -> tuple[tuple[str, str], ...]:
    """The (square, letter) pairs of the tiles the word puts down; board letters skipped."""
    assert view.config is not None and view.hand is not None
    layout = view.config.layout
    col, row = parse_square(square)
    if col >= layout.width or row >= layout.height:
        last = layout.name_of(layout.width * layout.height - 1)
        raise ReplyNotationError(
            "off-board",
            f"La case {square} n’est pas sur le plateau (A1 à {last}).",
            f"The square {square} is not on the board (A1 to {last}).",
        )
    letters = _letters(word)
    new: list[tuple[str, _Letter]] = []
    for k, letter in enumerate(letters):
        c, r = (col + k, row) if across else (col, row + k)
        if c >= layout.width or r >= layout.height:
            raise ReplyNotationError(
                "runs-off",
                f"« {word} » depuis {square} sort du plateau.",
                f'"{word}" from {square} runs off the board.',
            )
        index = r * layout.width + c
        name = layout.name_of(index)
        on_board = view.board[index]
        if on_board.isalpha():
            if on_board.upper() != letter.letter:
                raise ReplyNotationError(
                    "board-mismatch",
                    f"La case {name} porte déjà un {on_board.upper()}, pas un {letter.letter}.",
                    f"The square {name} already holds {on_board.upper()}, not {letter.letter}.",
                )
            continue
        if letter.on_board:
            raise ReplyNotationError(
                "not-on-board",
                f"Le {letter.letter} entre parenthèses n’est pas sur le plateau : la case {name} est vide.",
                f"The {letter.letter} in parentheses is not on the board: the square {name} is empty.",
            )
        new.append((name, letter))
    if not new:
        raise ReplyNotationError(
            "nothing-new",
            f"Toutes les lettres de « {word} » sont déjà sur le plateau : posez-en au moins une.",
            f'Every letter of "{word}" is already on the board: place at least one.',
        )
    return tuple(
        zip(
            (name for name, _ in new), _choose_diables(word, [x for _, x in new], view), strict=True
        )
    )


def _choose_diables(word: str, new: list[_Letter], view: PlayerView) -> list[str]:
    """The letter of each new tile, lower case for a diable.

    A word mixing capitals and small letters marks its diables in lower case,
    when the hand holds that many (a word with only its first letter a capital,
    ``Chat``, is in one case). Otherwise (a word written all in one case,
    or more small letters than diables in hand) the hand's letters are used,
    and a diable stands in for a letter the hand lacks while it has one.
    """
    assert view.hand is not None
    diables = view.hand.count(DIABLE)
    letters = [c for c in word if c.isalpha()]
    # "Chat" (a phone's capital first letter) is a word in one case, not three diables.
    titled = len(letters) > 1 and letters[0].isupper() and all(c.islower() for c in letters[1:])
    mixed = any(c.isupper() for c in letters) and any(c.islower() for c in letters) and not titled
    if mixed and sum(x.small for x in new) <= diables:
        return [x.letter.lower() if x.small else x.letter for x in new]
    held = Counter(view.hand)
    chosen = []
    for x in new:
        if held[x.letter] > 0:
            held[x.letter] -= 1
            chosen.append(x.letter)
        elif diables > 0:
            diables -= 1
            chosen.append(x.letter.lower())
        else:
            chosen.append(x.letter)  # the engine says the hand lacks it
    return chosen
