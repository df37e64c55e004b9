"""The guided first game: a short sans marque game against the computer, on positions prepared for it.

Each step is data: what the page asks the player to do, the one move that
does it, and the computer's prepared reply. The position before step ``n`` is
the deal below with the first ``n`` steps played through ``rules.apply`` (the
reserve is drawn from the top, no shuffle), so nothing but the step number
needs keeping: the page keeps it in the session, which serves visitors
without an account and writes no game row (not rated, in nobody's games, not
in the lobby). Every move the player sends is judged by the engine first (its
message is shown when it refuses), then compared with the step's move.
``tests/learn/test_guided.py`` plays the whole line and checks every stated
effect.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cache

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

import rules

PLAYER, COMPUTER = 0, 1
MODE = "sans-marque"

# 16 tiles each instead of the 40 of R-SETUP-4, to keep the game short.
PLAYER_HAND = "CHATOU?TOYERKNUW"
COMPUTER_HAND = "OPENZRSLDMBF"
RESERVE_TOP = "I"
"""The tile the exchange draws (step 5), on top of the reserve; the rest in the set's order."""


@dataclass(frozen=True)
class Step:
    key: str
    title: Promise
    instruction: Promise
    explanation: Promise
    move: str = ""
    """The player's placement, in the move list's notation (``docs/NOTATION.md``)."""
    returns: str = ""
    """Tiles given back for red devils (sans marque)."""
    exchange: str = ""
    """Tiles put back in an exchange (then ``move`` is empty)."""
    reply: str = ""
    """The computer's prepared reply; empty for the last step."""
    expect_words: tuple[str, ...] = ()
    """The words the player's move forms, main word first (checked by the tests)."""
    expect_reply_words: tuple[str, ...] = ()
    expect_returned: str = ""
    """Tiles the player's move puts back in the reserve (red devils, or an exchange)."""
    expect_drawn: int = 0
    expect_devils: tuple[str, ...] = ()
    """The kinds of special square covered ("red", "black"…)."""


STEPS: tuple[Step, ...] = (
    Step(
        key="start",
        title=_("A first word on Start"),
        instruction=_(
            "The first word of the game begins on the Start square (H8, the star) and reads "
            "to the right or downwards. Place CHAT: tap C in your tiles, then H8, and so on "
            "for H, A and T on I8, J8 and K8 (or drag them, or choose H8 with the keyboard "
            "and type CHAT). Then press Play."
        ),
        explanation=_(
            "CHAT is on the board. Sans marque, a move brings no points at once: the first "
            "player to place all their tiles wins."
        ),
        move="H8→ CHAT",
        reply="I7↓ O(H)",
        expect_words=("CHAT",),
        expect_reply_words=("OH",),
    ),
    Step(
        key="cross",
        title=_("A cross-word"),
        instruction=_(
            "Every later word touches the words on the board and may use their letters. "
            "Make COU downwards from the C of CHAT: O on H9, U on H10."
        ),
        explanation=_(
            "COU uses the C already on H8: you placed only two tiles. Every line of two tiles "
            "or more that your move touches must be a word of the dictionary."
        ),
        move="H8↓ (C)OU",
        reply="H8↓ (COU)P",
        expect_words=("COU",),
        expect_reply_words=("COUP",),
    ),
    Step(
        key="joker",
        title=_("The joker"),
        instruction=_(
            "You have no B, but you hold a joker (the tile with a question mark): it stands for the letter "
            "you choose and is worth 0 points. Make BUT across row 10 with the U on H10: the "
            "joker on G10 as a B, the T on I10. The page asks which letter the joker stands for."
        ),
        explanation=_(
            "Your joker is a B for the rest of the game, worth 0 points. Any letter it could "
            "have been: the most useful tile of all."
        ),
        move="G10→ b(U)T",
        reply="H8↓ (COUP)E",
        expect_words=("BUT",),
        expect_reply_words=("COUPE",),
    ),
    Step(
        key="red-devil",
        title=_("A red devil"),
        instruction=_(
            "A red devil square (R) rewards whoever covers it. Stretch CHAT into CHATOYER: O, Y, "
            "E and R on L8 to O8, the R on the red devil of O8. Sans marque, the red devil lets "
            "you give one tile of your choice back to the reserve: choose the K, worth 9 points."
        ),
        explanation=_(
            "You covered the red devil and gave the K back: one tile fewer to place, and 9 points "
            "fewer for the computer if it went out first. Avec marque, the red devil would have "
            "brought you 10 points instead."
        ),
        move="H8→ (CHAT)OYER",
        returns="K",
        reply="N7↓ N(E)Z",
        expect_words=("CHATOYER",),
        expect_reply_words=("NEZ",),
        expect_returned="K",
        expect_devils=("red",),
    ),
    Step(
        key="exchange",
        title=_("An exchange"),
        instruction=_(
            "Your W fits nowhere. Instead of placing tiles you may exchange some: press Exchange, "
            "choose the W in your tiles, then Confirm the exchange. You draw as many tiles from "
            "the reserve, and that is your whole turn."
        ),
        explanation=_(
            "You put the W back and drew a tile from the reserve. An exchange needs the reserve "
            "to hold at least as many tiles as you put back."
        ),
        exchange="W",
        reply="H8↓ (COUPE)R",
        expect_reply_words=("COUPER",),
        expect_returned="W",
        expect_drawn=1,
    ),
    Step(
        key="out",
        title=_("Go out on a black square"),
        instruction=_(
            "Black squares (✕) are forbidden, except in the move that places every tile you "
            "hold. Place N, U and I downwards from K5, the black square, to make NUIT with the "
            "T of CHAT: you go out."
        ),
        explanation=_(
            "You placed all your tiles: you win. Sans marque, the winner scores the value of the "
            "tiles left in the other hands, doubled for the black square."
        ),
        move="K5↓ NUI(T)",
        expect_words=("NUIT",),
        expect_devils=("black",),
    ),
)

LAST = len(STEPS)
"""The step number once the game is over."""


@cache
def config() -> rules.GameConfig:
    return rules.make_config(MODE, "classique", "classique", rules.get_word_list("fr"))


def deal() -> rules.GameState:
    """The position before step 1: the two hands, the reserve with ``RESERVE_TOP`` first."""
    state = rules.new_game(config(), [tuple(PLAYER_HAND), tuple(COMPUTER_HAND)])
    rest = Counter(state.reserve) - Counter(RESERVE_TOP)
    reserve = tuple(RESERVE_TOP) + tuple(t for t in sorted(rest) for _ in range(rest[t]))
    return replace(state, reserve=reserve)


def player_move(step: Step, state: rules.GameState) -> rules.Move:
    """The move the step asks of the player, built from its data."""
    if step.exchange:
        return rules.Exchange(PLAYER, step.exchange)
    move = rules.notation_to_move(step.move, state, PLAYER)
    assert isinstance(move, rules.Place)
    return replace(move, returns=step.returns)


@dataclass(frozen=True)
class Played:
    """One step as the engine played it: the player's move, then the computer's reply."""

    before: rules.GameState
    move: rules.Move
    after_move: rules.GameState
    events: tuple[rules.Event, ...]
    reply: rules.Move | None
    after: rules.GameState
    reply_events: tuple[rules.Event, ...]

    @property
    def summary(self) -> rules.MoveSummary:
        return rules.summarize(self.events, self.before.n_players)

    @property
    def reply_summary(self) -> rules.MoveSummary:
        return rules.summarize(self.reply_events, self.before.n_players)

    @property
    def notation(self) -> str:
        return str(rules.notate(self.before, self.move))

    @property
    def reply_notation(self) -> str:
        return str(rules.notate(self.after_move, self.reply)) if self.reply else ""


@cache
def played(n: int) -> Played:
    """Step ``n`` (0-based) played from its prepared position (IllegalMove if refused)."""
    before = position(n)
    step = STEPS[n]
    move = player_move(step, before)
    after_move, events = rules.apply(before, move)
    if not step.reply:
        return Played(before, move, after_move, events, None, after_move, ())
    reply = rules.notation_to_move(step.reply, after_move, COMPUTER)
    after, reply_events = rules.apply(after_move, reply)
    return Played(before, move, after_move, events, reply, after, reply_events)


def position(n: int) -> rules.GameState:
    """The position before step ``n`` (0-based; ``LAST``: the game over)."""
    return deal() if n == 0 else played(n - 1).after


class OffLesson(Exception):
    """The engine allows the move, but it is not the one this step asks for."""


def _tiles(move: rules.Move) -> tuple[object, ...]:
    if isinstance(move, rules.Place):
        return ("place", frozenset(move.tiles), "".join(sorted(move.returns or "")))
    if isinstance(move, rules.Exchange):
        return ("exchange", "".join(sorted(move.tiles)))
    return (type(move).__name__,)


def is_step_move(n: int, move: rules.Move) -> bool:
    """True if ``move`` is the one step ``n`` asks for (the same tiles on the same squares)."""
    return _tiles(move) == _tiles(played(n).move)


def still_to_place(n: int, move: rules.Move) -> tuple[tuple[str, str], ...]:
    """The step's tiles not yet put down when ``move`` is a start of step ``n``'s placement
    (some of its tiles, each on its own square); empty otherwise. An unfinished move is
    on its way, not a mistake: the page says what is left rather than refusing it."""
    wanted = played(n).move
    if not isinstance(move, rules.Place) or not isinstance(wanted, rules.Place):
        return ()
    placed = set(move.tiles)
    if not placed or not placed < set(wanted.tiles):
        return ()
    return tuple(tile for tile in wanted.tiles if tile not in placed)


def judge(n: int, move: rules.Move) -> Played:
    """The player's ``move`` at step ``n``: the engine first, then the lesson.

    Raises ``rules.IllegalMove`` (the engine's refusal) or ``OffLesson``; either
    way nothing changes.
    """
    before = position(n)
    rules.apply(before, replace(move, player=PLAYER))  # the engine's message first
    if not is_step_move(n, replace(move, player=PLAYER)):
        raise OffLesson
    return played(n)


def hand_value(state: rules.GameState, seat: int) -> int:
    values = dict(state.config.tiles.values)
    return sum(values.get(tile, 0) for tile in state.hands[seat])
