"""The worked examples of the rules page, judged by ``rules/`` every time they are drawn.

Each example is data: the words already on the board, the two hands, the move
in the notation of ``docs/NOTATION.md`` and what the page says the move does.
``judge`` plays the move through the engine and returns what really happened;
the page prints the engine's figures, and ``tests/learn`` checks them against
``expect``, so an example the rules stop allowing fails the suite instead of
teaching a wrong rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cache

import rules
from games.presenters import SquareView
from games.selectors import board_rows


@dataclass(frozen=True)
class Effects:
    """What a move does, as the page states it."""

    words: tuple[str, ...]
    """Every word the move forms, main word first."""
    points: tuple[int, ...] = (0, 0)
    """Points each player gains (negative: loses) by the move."""
    drawn: int = 0
    """Tiles the mover draws (refill, or a green devil's penalty)."""
    returned: int = 0
    """Tiles the mover gives back for red devils (sans marque)."""
    goes_out: bool = False
    black_square: bool = False


@dataclass(frozen=True)
class Example:
    key: str
    mode: str
    """``"marque"`` or ``"sans-marque"``."""
    board: tuple[tuple[str, bool, str], ...]
    """Words already on the board: first square, across?, letters."""
    hands: tuple[str, str]
    """The mover's hand (player 1) and the other player's (player 2)."""
    move: str
    """The move, as the move list writes it."""
    window: tuple[str, str]
    """The board drawn: its top-left and bottom-right squares."""
    expect: Effects
    returns: str = ""
    empty_reserve: bool = False


CHAT = ("H8", True, "CHAT")

EXAMPLES: tuple[Example, ...] = (
    Example(
        key="first-word",
        mode="marque",
        board=(),
        hands=("CHATRELIONSE", "AEIMNOPRSTUV"),
        move="H8→ CHAT",
        window=("F6", "M10"),
        expect=Effects(words=("CHAT",), drawn=4),
    ),
    Example(
        key="cross-word",
        mode="marque",
        board=(CHAT,),
        hands=("MLEIONSRUEAP", "AEIMNOPRSTUV"),
        move="J7↓ M(A)L",
        window=("F6", "M10"),
        expect=Effects(words=("MAL",), drawn=2),
    ),
    Example(
        key="red-marque",
        mode="marque",
        board=(CHAT,),
        hands=("OYERLINSEUAP", "AEIMNOPRSTUV"),
        move="H8→ (CHAT)OYER",
        window=("G6", "O10"),
        expect=Effects(words=("CHATOYER",), points=(10, 0), drawn=4),
    ),
    Example(
        key="red-sans",
        mode="sans-marque",
        board=(CHAT,),
        hands=("OYERLINSEUAPQ", "AEIMNOPRSTUV"),
        move="H8→ (CHAT)OYER",
        returns="Q",
        window=("G6", "O10"),
        expect=Effects(words=("CHATOYER",), returned=1),
    ),
    Example(
        key="green-marque",
        mode="marque",
        board=(CHAT,),
        hands=("BOLINSEUAPRT", "AEIMNOPRSTUV"),
        move="J6↓ BO(A)",
        window=("F5", "M10"),
        expect=Effects(words=("BOA",), points=(0, 5), drawn=2),
    ),
    Example(
        key="green-sans",
        mode="sans-marque",
        board=(CHAT,),
        hands=("BOLINSEUAPRT", "AEIMNOPRSTUV"),
        move="J6↓ BO(A)",
        window=("F5", "M10"),
        expect=Effects(words=("BOA",), drawn=1),
    ),
    Example(
        key="black-marque",
        mode="marque",
        board=(CHAT,),
        hands=("NUI", "ZEST"),
        move="K5↓ NUI(T)",
        empty_reserve=True,
        window=("G4", "N10"),
        # 50 of fin de partie on a black square, plus Z9 E1 S1 T1 = 12 left with player 2,
        # who loses those 12.
        expect=Effects(words=("NUIT",), points=(62, -12), goes_out=True, black_square=True),
    ),
    Example(
        key="black-sans",
        mode="sans-marque",
        board=(CHAT,),
        hands=("NUI", "ZEST"),
        move="K5↓ NUI(T)",
        window=("G4", "N10"),
        # The 12 points left with player 2, doubled for the black square.
        expect=Effects(words=("NUIT",), points=(24, 0), goes_out=True, black_square=True),
    ),
)

BY_KEY = {example.key: example for example in EXAMPLES}


@dataclass(frozen=True)
class Judged:
    """An example as the engine played it, ready to draw."""

    example: Example
    columns: tuple[str, ...]
    rows: tuple[tuple[int, tuple[SquareView, ...]], ...]
    """The window's rows after the move: (row number, squares); the move's tiles marked."""
    notation: str
    effects: Effects
    scores: tuple[int, ...]
    """Both players' scores after the move."""
    hand_after: int
    """Tiles left in the mover's hand."""

    @property
    def key(self) -> str:
        return self.example.key

    @property
    def mode(self) -> str:
        return self.example.mode

    @property
    def other_points(self) -> int:
        return self.effects.points[1]

    @property
    def mover_points(self) -> int:
        return self.effects.points[0]

    @property
    def lost_points(self) -> int:
        return -self.effects.points[1]


def position(example: Example) -> rules.GameState:
    """The position before the example's move: its words on the board, its hands dealt."""
    config = rules.make_config(example.mode, "classique", "classique", rules.get_word_list("fr"))
    layout = config.layout
    board = list("." * (layout.width * layout.height))
    on_board: Counter[str] = Counter()
    for square, across, letters in example.board:
        index = layout.index(square)
        step = 1 if across else layout.width
        for k, letter in enumerate(letters):
            board[index + k * step] = letter
            on_board[letter] += 1
    # The engine deals from a whole set; the tiles on the board then leave the reserve,
    # whose rest stays in the set's fixed order, so every example draws the same tiles.
    state = rules.new_game(config, [tuple(hand) for hand in example.hands])
    rest = Counter(state.reserve) - on_board
    reserve = (
        () if example.empty_reserve else tuple(t for t in sorted(rest) for _ in range(rest[t]))
    )
    return replace(state, board="".join(board), reserve=reserve, started=bool(example.board))


def example_move(example: Example, state: rules.GameState) -> rules.Place:
    move = rules.notation_to_move(example.move, state, 0)
    assert isinstance(move, rules.Place)
    return replace(move, returns=example.returns)


@cache
def judge(key: str) -> Judged:
    """Play the example ``key`` through the engine (IllegalMove if the rules refuse it)."""
    example = BY_KEY[key]
    before = position(example)
    move = example_move(example, before)
    after, events = rules.apply(before, move)
    summary = rules.summarize(events, before.n_players)
    result = summary.result
    effects = Effects(
        words=summary.words,
        points=summary.points,
        drawn=len(summary.drawn),
        returned=len(summary.returned),
        goes_out=result is not None and result.end == "out",
        black_square=result is not None and result.black_square,
    )
    config = after.config
    placed = {square for square, _ in move.tiles}
    (left, top), (right, bottom) = (rules.parse_square(s) for s in example.window)
    every_row = board_rows(config, after.board, placed)
    every_column = tuple(rules.format_square(c, 0)[0] for c in range(config.layout.width))
    rows = tuple((r + 1, every_row[r][left : right + 1]) for r in range(top, bottom + 1))
    return Judged(
        example=example,
        columns=every_column[left : right + 1],
        rows=rows,
        notation=str(rules.notate(before, move)),
        effects=effects,
        scores=after.scores,
        hand_after=len(after.hands[0]),
    )


def judged_examples() -> dict[str, Judged]:
    """Every example, by key, for the page's template."""
    return {example.key.replace("-", "_"): judge(example.key) for example in EXAMPLES}
