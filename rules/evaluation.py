"""What a placement does at once, from one player's view.

Everything here reads a ``PlayerView`` only (R-HIDE-1): the board, the
player's own hand, hand sizes, scores and the reserve's size. The tiles the
player cannot see (``unseen``: the other hands and the reserve together) are
known as a multiset, since the tile set is public; which of them is where is
not, so expectations use their average.

``Seen.effects`` is the fast path the strategies use for every candidate; it
is tested equal to ``rules.apply`` (``tests/rules/test_strategy.py``). What a
hand is worth is the strategies' business (``rules.strategy.Judge.leave``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rules.engine import (
    FIN_DE_PARTIE,
    FIN_DE_PARTIE_BLACK,
    GREEN_PENALTY_POINTS,
    MARQUE_HAND,
    RED_BONUS_POINTS,
)
from rules.material import DIABLE, RED, TileSet
from rules.movegen import Candidate
from rules.player_view import PlayerView
from rules.state import ACTIVE, EMPTY, GameConfig, GameState

VOWELS = frozenset("AEIOUY")


def config_of(seen: PlayerView) -> GameConfig:
    """The view's game configuration (ValueError if the view was built without it)."""
    if seen.config is None:
        raise ValueError("this view has no game config: build it with rules.view(state, player)")
    return seen.config


def hand_of(seen: PlayerView) -> tuple[str, ...]:
    """The viewer's own hand (ValueError for a spectator's view)."""
    if seen.hand is None or seen.viewer is None:
        raise ValueError("a spectator's view has no hand")
    return seen.hand


def unseen(seen: PlayerView) -> Counter[str]:
    """The tiles the viewer cannot see: the whole set minus the board and the own hand.

    They are the other players' hands and the reserve, together. A diable on
    the board (lower case there) counts as a diable of the set, not as the
    letter it stands for. A spectator's view has no hand: for a spectator the
    unseen tiles are every hand and the reserve (the game page's "Unseen
    tiles" panel, ``games.presenters.UnseenView``).
    """
    tiles: Counter[str] = Counter(config_of(seen).tiles.counts)
    tiles.subtract(DIABLE if c.islower() else c for c in seen.board if c != EMPTY)
    tiles.subtract(seen.hand or ())
    return +tiles


def value(tiles: TileSet, letters: Iterable[str]) -> int:
    """Total value of hand tiles (``?`` or a lower-case letter for a diable: 0)."""
    values = tiles.values
    return sum(values.get(t, 0) for t in letters)


@dataclass(frozen=True, slots=True)
class Effects:
    """What one placement does at once, as the mover can know it.

    ``gain``: points the mover scores now (marque: red devils, and going out:
    fin de partie plus the others' tiles, exact since the reserve is then
    empty; sans marque: going out, when the reserve is empty, else 0).
    ``others``: points each other player still in the game scores (green
    devils, marque). ``others_lose``: total value the other players lose
    when the mover goes out in marque. ``kept``: the tiles left in hand
    before any draw. ``drawn``: how many tiles the mover then draws
    (refill, or green-devil penalty). ``shed``: net tiles out of the hand.
    ``out``: the mover holds no tile after the move.
    """

    gain: int
    others: int
    others_lose: int
    kept: tuple[str, ...]
    drawn: int
    shed: int
    out: bool


def remove(hand: Iterable[str], tiles: Iterable[str]) -> list[str]:
    """``hand`` without ``tiles`` (ValueError if one is missing)."""
    rest = list(hand)
    for tile in tiles:
        rest.remove(tile)
    return rest


class Seen:
    """One player's view, with what every evaluation of it reuses."""

    def __init__(self, seen: PlayerView) -> None:
        self.view = seen
        self.config = config_of(seen)
        self.hand = hand_of(seen)
        self.player: int = seen.viewer  # type: ignore[assignment]
        self.marque = self.config.marque
        self.tiles = self.config.tiles
        self.reserve = seen.reserve_size
        self.hidden = unseen(seen)
        self.hidden_count = sum(self.hidden.values())
        self.hidden_value = value(self.tiles, self.hidden.elements())
        self.others_active = sum(
            1 for seat, status in enumerate(seen.status) if status == ACTIVE and seat != self.player
        )

    def returns_owed(self, move: Candidate) -> int:
        """Tiles ``move`` must give back for red devils (sans marque; R-PLACE-7)."""
        return 0 if self.marque else min(move.red, len(self.hand) - move.size)

    def effects(self, move: Candidate, returns: str = "") -> Effects:
        """The immediate effects of ``move`` with red-devil ``returns`` (sans marque)."""
        kept = remove(remove(self.hand, move.used), returns)
        reserve = self.reserve
        if self.marque:
            gain = RED_BONUS_POINTS * move.red
            others = GREEN_PENALTY_POINTS * move.green if self.others_active else 0
            drawn = min(MARQUE_HAND - len(kept), reserve) if len(kept) < MARQUE_HAND else 0
            out = not kept and not drawn
            others_lose = 0
            if out:  # the reserve is empty: the unseen tiles are the other hands
                gain += (FIN_DE_PARTIE_BLACK if move.black else FIN_DE_PARTIE) + self.hidden_value
                others_lose = self.hidden_value
            return Effects(gain, others, others_lose, tuple(kept), drawn, move.size, out)
        drawn = min(move.green, reserve + len(returns))
        out = not kept and not drawn
        gain = 0
        if out and reserve == 0:  # then the unseen tiles are exactly the other hands
            gain = self.hidden_value * (2 if move.black else 1)
        return Effects(gain, 0, 0, tuple(kept), drawn, move.size + len(returns) - drawn, out)


def open_reds(board: str, cells: str, width: int, reach: int = 7) -> set[int]:
    """Red devils a placement could probably reach next turn.

    A red devil square is "open" when it is empty and, along its row or its
    column, an empty square next to a tile lies at most ``reach`` squares
    away with only empty, non-black squares between: a word laid on that
    line could cover both. A heuristic for the strategies, not a rule.
    """
    size = len(board)
    height = size // width
    found: set[int] = set()
    for index, kind in enumerate(cells):
        if kind != RED or board[index] != EMPTY:
            continue
        col, row = index % width, index // width
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            c, r = col, row
            for _ in range(reach + 1):
                if not (0 <= c < width and 0 <= r < height):
                    break
                i = r * width + c
                if board[i] != EMPTY or (cells[i] == "#" and i != index):
                    break
                if _touches(board, i, width, height):
                    found.add(index)
                    break
                c += dc
                r += dr
            if index in found:
                break
    return found


def _touches(board: str, index: int, width: int, height: int) -> bool:
    col, row = index % width, index // width
    return (
        (col > 0 and board[index - 1] != EMPTY)
        or (col < width - 1 and board[index + 1] != EMPTY)
        or (row > 0 and board[index - width] != EMPTY)
        or (row < height - 1 and board[index + width] != EMPTY)
    )


def board_after(board: str, move: Candidate) -> str:
    """``board`` with ``move``'s tiles on it."""
    squares = list(board)
    for index, char in move.tiles:
        squares[index] = char
    return "".join(squares)


def shadow_state(seen: PlayerView) -> GameState:
    """A ``GameState`` with exactly what the viewer knows, for ``check_placement`` and
    ``notate`` (words and notation of a suggested move).

    The other hands are empty and the reserve holds placeholders: never
    ``apply`` a move to it.
    """
    config = config_of(seen)
    viewer = seen.viewer
    hand = hand_of(seen)
    hands = tuple(hand if seat == viewer else () for seat in range(len(seen.hand_sizes)))
    return GameState(
        config=config,
        board=seen.board,
        hands=hands,
        reserve=(DIABLE,) * seen.reserve_size,
        scores=seen.scores,
        status=seen.status,
        turn=seen.turn,
        passed=(),
        move_count=seen.move_count,
        started=seen.started,
        result=seen.result,
    )
