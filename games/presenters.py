"""What the game pages show, as plain values built on the server.

Templates receive these and nothing else about a game's tiles: a ``GameView``
is built for one viewer and holds that viewer's hand only (R-HIDE-1). The
staff replay is the one place that builds views with every hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.translation import gettext, pgettext

import rules
from accounts.models import HandOrder
from games import reasons
from games.models import QueuedMove
from rules import notation as rules_notation
from rules.evaluation import unseen
from rules.material import DIABLE
from rules.strategy import Suggestion


def notation_shown(notation: str) -> str:
    """A move's notation (docs/NOTATION.md) in the reader's language.

    Records and the ``Move`` row keep the notation as NOTATION.md writes it
    ("Échange 3", "Passe"); a page or an email writes the words of an
    exchange, a pass, a resignation or a time-out in its reader's language.
    A placement ("H8→ CHAT") is the same in every language.
    """
    if notation == rules_notation.PASS:
        return pgettext("move notation", "Pass")
    if notation == rules_notation.RESIGN:
        return pgettext("move notation", "Resignation")
    if notation == rules_notation.TIMEOUT:
        return pgettext("move notation", "Time-out")
    word, _, count = notation.partition(" ")
    if word == rules_notation.EXCHANGE and count.isdigit():
        return pgettext("move notation", "Exchange %(count)s") % {"count": count}
    return notation


@dataclass(frozen=True)
class SquareView:
    """One square of the board as a viewer sees it."""

    name: str  # "H8"
    col: int
    row: int
    kind: str  # "plain", "start", "black", "green", "red"
    letter: str | None = None  # the letter shown, upper case; None when empty
    is_diable: bool = False  # the tile is a diable standing for ``letter``
    value: int | None = None  # the tile's points (0 for a diable)
    is_last_move: bool = False  # placed by the latest move
    is_hint: bool = False  # an empty square the viewer's hint covers

    @property
    def accessible_name(self) -> str:
        """e.g. "H8, Départ, vide" — filled by the template with translated words."""
        return self.name


@dataclass(frozen=True)
class TileView:
    """A tile in the viewer's own hand."""

    index: int  # slot 0..n-1 (slots are numbered 1..12 in avec marque, R-BOARD-2)
    letter: str  # "A".."Z", or "?" for a diable
    value: int


def sorted_hand(tiles: tuple[TileView, ...], order: str) -> tuple[TileView, ...]:
    """The tiles in the order the player chose (``accounts.models.HandOrder``).

    By letter: A to Z. By value: the most points first, then A to Z. The
    diables (``?``) go before or after the others, whatever their value (0).
    Equal tiles keep their order in the hand, so a page drawn twice is the
    same; "unsorted" (or an order this code does not know) is the hand as
    dealt. ``static/js/board.js`` (``handOrderKey``) sorts the same way, so a
    change made on the page and the next page drawn agree.
    """
    if order not in HandOrder.values or order == HandOrder.UNSORTED:
        return tiles
    by_value = order.startswith("value-")
    diables_first = order.endswith("-diables-first")

    def key(tile: TileView) -> tuple[bool, int, str, int]:
        return (
            (tile.letter == DIABLE) != diables_first,  # False sorts first
            -tile.value if by_value else 0,
            tile.letter,
            tile.index,
        )

    return tuple(sorted(tiles, key=key))


@dataclass(frozen=True)
class SeatView:
    position: int
    name: str
    profile_url: str | None
    hand_size: int
    score: int
    status: str  # "active", "resigned", "timed-out"
    is_turn: bool
    is_me: bool
    is_winner: bool = False
    deadline: datetime | None = None
    # The deadline would have fallen in the quiet hours of the player to move: moved to their end.
    deadline_quiet: bool = False
    on_vacation: bool = False
    vacation_until: datetime | None = None  # with on_vacation: when the player is back
    # The player to move's vacation booked to begin before their deadline (it pushes it).
    vacation_from: datetime | None = None
    final_hand: str | None = None  # revealed only when the game is over
    place: int | None = None  # in the final ranking (1 = best; R-END-2 to 4), once the game is over
    is_computer: bool = False  # a computer player's seat


@dataclass(frozen=True)
class UnseenView:
    """Beside the board: the tiles the viewer has not seen, as Woogles' tile tracking shows them.

    ``letters`` is (tile, count) from A to Z, the diables (``?``) last; ``where``
    is where those tiles are, as counts only: the reserve, then each other
    player's hand as (name, count). Built by ``of`` from a ``rules.PlayerView``
    and nothing else, so it can hold no more than the viewer may see (R-HIDE-1):
    the tile set less the board (a diable there counts as a diable) and the
    viewer's own hand. For a spectator, who has no hand, it is the set less
    the board: every hand and the reserve.
    """

    letters: tuple[tuple[str, int], ...]
    reserve: int
    hands: tuple[tuple[str, int], ...]  # (player's name, tiles in hand), the viewer's seat left out

    @property
    def total(self) -> int:
        return sum(count for _, count in self.letters)

    @classmethod
    def of(cls, seen: rules.PlayerView, names: tuple[str, ...]) -> UnseenView:
        """The unseen tiles of view ``seen``; ``names[k]`` is the player in seat k."""
        tiles = unseen(seen)
        return cls(
            letters=tuple(sorted(tiles.items(), key=lambda item: (item[0] == DIABLE, item[0]))),
            reserve=seen.reserve_size,
            hands=tuple(
                (names[seat], size)
                for seat, size in enumerate(seen.hand_sizes)
                if seat != seen.viewer
            ),
        )


@dataclass(frozen=True)
class AnalysisView:
    """Beside a move of a finished game: the best move the computer found from the mover's view.

    ``gain`` and ``played_gain`` are what the best move and the move played
    made at once: points avec marque, tiles out of the hand sans marque.
    """

    best: str
    words: tuple[str, ...]
    gain: int
    played_gain: int
    played_best: bool
    others_points: int = 0
    why: tuple[str, ...] = ()
    """Why the best move ranks first, in the reader's language (``games/reasons.py``)."""

    @property
    def gain_count(self) -> int:
        return abs(self.gain)


@dataclass(frozen=True)
class GiftView:
    """In the history: a player gave the player to move one more day (``games/services/time_given.py``)."""

    giver: str
    receiver: str
    by_me: bool = False  # the viewer gave it
    to_me: bool = False  # the viewer received it


@dataclass(frozen=True)
class MoveView:
    number: int
    player: str
    kind: str  # "place", "exchange", "pass", "resign", "timeout"
    notation: str
    words: tuple[str, ...]
    points: int
    played_at: datetime
    analysis: AnalysisView | None = None  # finished and analysed games only
    gifts: tuple[GiftView, ...] = ()  # days given after this move, while the next turn ran
    # The viewer's own move, played from their queued move (issue #36); always False for
    # anyone else's (R-HIDE-1: a queued move is its player's alone).
    from_queue: bool = False


@dataclass(frozen=True)
class DrawRound:
    """One round of the first-player draw (R-SETUP-1): who drew which tile."""

    draws: tuple[tuple[str, str], ...]  # (player name, tile)


@dataclass(frozen=True)
class QueuedView:
    """The viewer's own queued move (issue #36); another player's is never built."""

    notation: str
    placements: str  # the move form's "H8=C,I8=h", for board.js to lay it out again
    returns: str
    keep: str  # QueuedMove.Keep
    keep_label: str
    reason: str = ""  # why it was not played when the turn came; "" while it waits

    @property
    def waiting(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class GameView:
    """Everything the game page shows to one viewer."""

    version: int  # the move counter the page was built at; sent back with every move
    mode: str  # "marque" or "sans-marque"
    status: str  # "open", "running", "finished", "annulled"
    columns: tuple[str, ...]
    rows: tuple[tuple[SquareView, ...], ...]
    seats: tuple[SeatView, ...]
    reserve_size: int
    my_hand: tuple[TileView, ...] | None  # None for spectators
    my_position: int | None
    is_my_turn: bool
    can_exchange: bool
    moves: tuple[MoveView, ...]
    first_player_draw: tuple[DrawRound, ...] = ()
    over: bool = False
    end: str | None = None  # "out", "blocked", "last-player"
    winners: tuple[str, ...] = ()
    hand_slots: int = 0  # 12 in avec marque (R-BOARD-2), 0 otherwise
    hand_order: str = HandOrder.UNSORTED  # the viewer's choice (accounts.models.HandOrder)
    letter_values: dict[str, int] = field(default_factory=dict)
    annulled_reason: str = ""  # why staff annulled the game (status "annulled")
    annulled_at: datetime | None = None
    rated: bool = True  # counts for the ratings; hints only where it does not
    computer_to_move: bool = False  # a computer player is to move: its reply comes in seconds
    hint: Hint | None = None  # the viewer's hint at this move, if they asked for one
    hints_left: int = 0  # the viewer's hints left (unrated games)
    # Finished games: "done", "pending" (a worker is on it) or "missing" (ask for it).
    analysis: str = ""
    extra_days: int = 0  # days given to the player to move on this turn
    extra_days_full: bool = False  # no more can be given on this turn (clock.MAX_EXTRA_DAYS)
    can_give_time: bool = False  # the viewer may give the player to move one more day
    opening_gifts: tuple[GiftView, ...] = ()  # days given before the first move
    # The tiles the viewer has not seen, while the game runs (None once it is over: the
    # final hands are shown then, and before it starts).
    unseen: UnseenView | None = None
    # The viewer's own queued move, waiting or not played (None for anyone else).
    queued: QueuedView | None = None
    # The viewer may queue a move: seated and still playing, not to move, a person.
    can_queue: bool = False

    @property
    def can_ask_hint(self) -> bool:
        """The hint button: the viewer's turn in an unrated game, a hint left or shown."""
        return self.is_my_turn and not self.rated and (self.hints_left > 0 or self.hint is not None)

    @property
    def queue_keeps(self) -> list[tuple[str, str]]:
        """When a queued move is played: (value, label in the active language)."""
        return [(value, str(label)) for value, label in QueuedMove.Keep.choices]

    @property
    def queue_keep(self) -> str:
        """The choice shown checked: the queued move's, else "if still legal"."""
        return self.queued.keep if self.queued is not None else "legal"

    @property
    def can_place(self) -> bool:
        """The move form: the viewer's turn, or a move they may queue for it (issue #36)."""
        return self.my_hand is not None and not self.over and (self.is_my_turn or self.can_queue)

    @property
    def seat_to_move(self) -> SeatView | None:
        """The seat whose turn it is ("Waiting for …"), or None (no turn: the game is over or not begun)."""
        return next((seat for seat in self.seats if seat.is_turn), None)

    @property
    def can_resign(self) -> bool:
        """The resign form: the viewer is seated in a game that goes on and still plays in it."""
        return (
            self.my_hand is not None
            and not self.over
            and any(seat.is_me and seat.status == "active" for seat in self.seats)
        )

    @property
    def hand_orders(self) -> list[tuple[str, str]]:
        """The orders the hand's "Sort" list offers: (value, label in the active language)."""
        return [(value, str(label)) for value, label in HandOrder.choices]

    @property
    def hand_shown(self) -> tuple[TileView, ...]:
        """The viewer's tiles in the order the page draws them: their chosen sort.

        Sorted here rather than by the page's script, so the first paint is already
        in order. ``my_hand`` stays as dealt (the emails, the counts).
        """
        return sorted_hand(self.my_hand or (), self.hand_order)

    @property
    def hand_by_slot(self) -> tuple[TileView | None, ...]:
        """The tile in each numbered slot (``hand_slots`` of them), or None for an empty one.

        Unsorted, a tile sits in its own slot (its index: an empty slot stays where the
        tile left). Sorted, the tiles fill the first slots in order, as a shuffle does.
        The template used to find each slot's tile with a loop in a loop (144 steps
        for 12 slots); this is one dictionary look-up per slot.
        """
        if self.hand_order != HandOrder.UNSORTED:
            shown: list[TileView | None] = list(self.hand_shown)
            return tuple(shown + [None] * (self.hand_slots - len(shown)))
        by_index = {tile.index: tile for tile in self.my_hand or ()}
        return tuple(by_index.get(k) for k in range(self.hand_slots))


@dataclass(frozen=True)
class Hint:
    """The best move the computer finds for a player, as the game page shows it.

    ``squares`` are the squares a placement covers (highlighted on the
    board), ``placements`` the placement in the move form's format
    (``H8=C,I8=a``, lower case a diable: what "Place on the board" puts
    there); ``exchange`` the tiles to exchange; ``returns`` the tiles to give
    back for red devils. ``points``/``others_points``/``tiles``/``out`` as in
    ``rules.strategy.Suggestion``. ``left``: hints the player has left.
    """

    version: int
    kind: str
    notation: str
    words: tuple[str, ...] = ()
    points: int = 0
    others_points: int = 0
    tiles: int = 0
    out: bool = False
    squares: tuple[str, ...] = ()
    placements: str = ""
    exchange: str = ""
    returns: str = ""
    reasons: tuple[dict[str, Any], ...] = ()
    """What the evaluation weighed (``rules.strategy.Reason``, as data)."""
    left: int = 0

    @property
    def why(self) -> list[str]:
        """The reasons as phrases in the reader's language (``games/reasons.py``)."""
        return reasons.phrases(self.reasons)

    @classmethod
    def of(cls, best: Suggestion, version: int) -> Hint:
        move = best.move
        kind = {rules.Place: "place", rules.Exchange: "exchange"}.get(type(move), "pass")
        return cls(
            version=version,
            kind=kind,
            notation=best.notation,
            words=best.words,
            points=best.points,
            others_points=best.others_points,
            tiles=best.tiles,
            out=best.out,
            squares=tuple(sq for sq, _ in move.tiles) if isinstance(move, rules.Place) else (),
            placements=",".join(f"{sq}={letter}" for sq, letter in move.tiles)
            if isinstance(move, rules.Place)
            else "",
            exchange=move.tiles if isinstance(move, rules.Exchange) else "",
            returns=move.returns if isinstance(move, rules.Place) else "",
            reasons=tuple(reasons.reason_data(r) for r in best.reasons),
        )

    def as_data(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data.pop("left")
        return data | {
            "words": list(self.words),
            "squares": list(self.squares),
            "reasons": list(self.reasons),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any], *, left: int) -> Hint:
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        fields |= {
            "words": tuple(data.get("words", ())),
            "squares": tuple(data.get("squares", ())),
            "reasons": tuple(data.get("reasons", ())),
        }
        return cls(**fields | {"left": left})


def tab_title(view: GameView, number: int) -> str:
    """The game tab's title, "(Your turn) Game 12" when the viewer is to move.

    Shown twice on the page (``<title>`` and the game area's ``data-tab-title``,
    which the poll's fragment brings to ``static/js/tab.js``): worked out once
    here rather than by an ``{% include %}`` of a template each time (0.1 ms each).
    Plain text, escaped where the template writes it.
    """
    title = gettext("Game %(number)s") % {"number": number}
    if view.is_my_turn and not view.over:
        # Not inside an f-string: xgettext does not look there, and the French would be lost.
        your_turn = gettext("(Your turn)")
        return f"{your_turn} {title}"
    return title
