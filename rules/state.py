"""Value types of the engine: configuration, moves, state, result and events.

All are frozen dataclasses holding tuples and strings, so a state can be shared
freely and an illegal move can never change one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.dictionary import WordList
from rules.material import Layout, TileSet

Mode = Literal["marque", "sans-marque"]
MODES: tuple[str, ...] = ("marque", "sans-marque")

ACTIVE = "active"
RESIGNED = "resigned"
TIMED_OUT = "timed-out"

EMPTY = "."
"""An empty square on the board string."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What is fixed when a game is created (R-SETUP-3, R-DICT-1)."""

    mode: Mode
    """``"marque"`` (avec marque, scored) or ``"sans-marque"``."""
    layout: Layout
    tiles: TileSet
    words: WordList

    @property
    def marque(self) -> bool:
        """True for the scored game."""
        return self.mode == "marque"


# --- moves -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """Put tiles on the board.

    ``tiles``: ``(square, letter)`` pairs, e.g. ``(("H8", "C"), ("I8", "a"))``;
    upper case is a letter tile, lower case a diable standing for that letter.
    ``returns``: the tiles given back for red devils in sans marque (R-PLACE-7).
    ``draw``: the exact tiles drawn (penalty or refill), or None for the top
    of the reserve.
    """

    player: int
    tiles: tuple[tuple[str, str], ...]
    returns: str = ""
    draw: str | None = None


@dataclass(frozen=True, slots=True)
class Exchange:
    """Put ``tiles`` back and draw as many (R-EXCH-1)."""

    player: int
    tiles: str
    draw: str | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing this turn (R-PASS-1)."""

    player: int
    draw: str | None = None


@dataclass(frozen=True, slots=True)
class Resign:
    """Leave the game (R-END-4); ``timeout`` when the site applies a time-out."""

    player: int
    timeout: bool = False
    draw: str | None = None


Move = Place | Exchange | Pass | Resign


def same_move(a: Move, b: Move) -> bool:
    """``a`` and ``b`` do the same thing, whatever was drawn after them.

    A move read from a record carries its draw, a move found by the computer
    does not; the order of the tiles placed, exchanged or returned is not
    part of the move either.
    """
    if type(a) is not type(b) or a.player != b.player:
        return False
    if isinstance(a, Place) and isinstance(b, Place):
        return sorted(a.tiles) == sorted(b.tiles) and sorted(a.returns) == sorted(b.returns)
    if isinstance(a, Exchange) and isinstance(b, Exchange):
        return sorted(a.tiles) == sorted(b.tiles)
    if isinstance(a, Resign) and isinstance(b, Resign):
        return a.timeout == b.timeout
    return True


# --- state -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a finished game ended (R-END-1..4)."""

    end: Literal["out", "blocked", "last-player"]
    winners: tuple[int, ...]
    """Seats that won; several on a tie, none for a blocked sans marque game."""
    scores: tuple[int, ...]
    """Final scores, the same as ``GameState.scores``."""
    out_player: int | None = None
    """The seat that went out (``end == "out"``) or was left (``"last-player"``)."""
    black_square: bool = False
    """The final move covered a black square."""


@dataclass(frozen=True, slots=True)
class GameState:
    """A position: everything needed to go on playing.

    ``board`` is one character per square, row by row: ``.`` empty, ``A``-``Z``
    a letter tile, ``a``-``z`` a diable standing for that letter. A hand is a
    tuple of tile characters (``?`` for a diable). ``reserve`` is in draw
    order, top first.
    """

    config: GameConfig
    board: str
    hands: tuple[tuple[str, ...], ...]
    reserve: tuple[str, ...]
    scores: tuple[int, ...]
    status: tuple[str, ...]
    """Per seat: ``"active"``, ``"resigned"`` or ``"timed-out"``."""
    turn: int
    """Seat whose turn it is (meaningless once the game is over)."""
    passed: tuple[int, ...]
    """Seats that passed since the last placement or exchange, in order."""
    move_count: int
    started: bool
    """The first placement (R-PLACE-2) has been made."""
    result: GameResult | None = None

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.result is not None

    @property
    def n_players(self) -> int:
        """Number of seats."""
        return len(self.hands)

    @property
    def consecutive_passes(self) -> int:
        """Passes in succession since the last placement or exchange."""
        return len(self.passed)

    def active_players(self) -> tuple[int, ...]:
        """Seats still in the game."""
        return tuple(i for i, s in enumerate(self.status) if s == ACTIVE)

    def hand_value(self, player: int) -> int:
        """Total value of the tiles in ``player``'s hand."""
        return self.config.tiles.value_of(self.hands[player])


# --- events ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TilesPlaced:
    """``tiles`` (square, letter) were put on the board by ``player``."""

    player: int
    tiles: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class WordFormed:
    """A word the placement formed; the main word comes first."""

    player: int
    word: str
    start: str
    """A1 name of the first square."""
    across: bool
    """True for left-to-right, False for top-to-bottom."""
    main: bool


@dataclass(frozen=True, slots=True)
class SquareCovered:
    """A special square covered: ``kind`` is ``"green"``, ``"red"`` or ``"black"``.

    ``effect``: ``"penalty-draw"`` (green, sans marque), ``"others-plus-5"``
    (green, marque), ``"return"`` (red, sans marque), ``"plus-10"`` (red,
    marque), ``"double"`` (black, sans marque) or ``"fin-de-partie-50"``
    (black, marque).
    """

    player: int
    square: str
    kind: str
    effect: str


@dataclass(frozen=True, slots=True)
class TilesDrawn:
    """``player`` drew ``tiles``; ``reason`` is ``"refill"``, ``"penalty"`` or ``"exchange"``."""

    player: int
    tiles: str
    reason: str


@dataclass(frozen=True, slots=True)
class TilesReturned:
    """``tiles`` went to the reserve; ``reason`` is ``"exchange"`` or ``"red-devil"``."""

    player: int
    tiles: str
    reason: str


@dataclass(frozen=True, slots=True)
class PointsScored:
    """``player`` gained ``points`` (negative for a loss).

    ``reason``: ``"red-devil"``, ``"green-devil"``, ``"fin-de-partie"``,
    ``"others-tiles"``, ``"own-tiles"``.
    """

    player: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class Passed:
    """``player`` passed."""

    player: int


@dataclass(frozen=True, slots=True)
class Resigned:
    """``player`` left the game (resigned, or timed out)."""

    player: int
    timeout: bool


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended; ``result`` says how."""

    result: GameResult


Event = (
    TilesPlaced
    | WordFormed
    | SquareCovered
    | TilesDrawn
    | TilesReturned
    | PointsScored
    | Passed
    | Resigned
    | GameOver
)


@dataclass(frozen=True, slots=True)
class MoveSummary:
    """What the site stores with a move, built from its events by ``summarize``."""

    words: tuple[str, ...]
    points: tuple[int, ...]
    """Points gained by each seat in this move."""
    drawn: str
    returned: str
    result: GameResult | None


def summarize(events: tuple[Event, ...] | list[Event], n_players: int) -> MoveSummary:
    """Collapse a move's events into words, points per seat, tiles drawn and returned."""
    points = [0] * n_players
    words: list[str] = []
    drawn: list[str] = []
    returned: list[str] = []
    result = None
    for event in events:
        if isinstance(event, WordFormed):
            words.append(event.word)
        elif isinstance(event, PointsScored):
            points[event.player] += event.points
        elif isinstance(event, TilesDrawn):
            drawn.append(event.tiles)
        elif isinstance(event, TilesReturned):
            returned.append(event.tiles)
        elif isinstance(event, GameOver):
            result = event.result
    return MoveSummary(tuple(words), tuple(points), "".join(drawn), "".join(returned), result)
