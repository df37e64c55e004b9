"""Computer players: a move for a seat, at two levels, in both modes; hints.

Everything starts from a ``PlayerView`` (``rules.view(state, seat)``), so a
computer player knows exactly what a person in its seat would: the board,
its own hand, the scores, hand sizes and the reserve's size (R-HIDE-1).

Levels (docs/COMPUTER.md explains the choices and the numbers):

``"debutant"``
    Plays like a newcomer: only words a newcomer could know, short ones
    first, at most one diable per move. Every word a move forms (the main
    word and each cross word) must be a common word
    (``rules.common_words``: wordfreq Zipf frequency at least 3, about
    24,000 of the list's 406,000 words). It looks only at what a move does
    at once: avec marque, red devils (+10), green devils (others +5) and
    going out; sans marque, the tiles it gets rid of; and from either it
    takes ``SHORT_WORD`` per letter of the main word beyond ``EASY_LENGTH``
    (5), so with nothing else at stake it plays words of up to five
    letters. It picks at random among its top five (equal values in random
    order), returns random tiles for red devils. When it knows no word it can
    place, it exchanges its heaviest tiles (as when it cannot place
    anything); with an empty reserve it then plays the shortest of the
    moves it does not know (still at most one diable), so that it is never
    stuck passing to the end.

``"confirme"``
    Weighs each move by its *equity*: avec marque, the points it scores
    relative to the others (red devils, green devils given away, going out
    with 25 or 50 and the others' tiles) plus the value of the hand kept for
    later (``Judge.leave``: good letters, vowels and consonants balanced, no
    duplicates, diables kept, and the tiles' own values, which count against
    the player at the end); sans marque, the tiles it sheds (placed, plus
    red-devil returns, minus green-devil draws) first, then the same hand
    value, so high-value and awkward tiles go first. Red-devil returns are
    the worst tiles of the hand. On a short list of the best moves it
    subtracts the red devils a move opens to the next player, and once the
    reserve is empty it prefers a move after which the rest of the hand can
    go out. It exchanges when that beats every placement (a hopeless hand),
    and passes only when it can neither place nor exchange.

Both play a diable only with a hand of at most ``DIABLE_HAND`` tiles, or
when nothing else can be placed (the débutant: no common word): a diable is the best tile to keep for the
end, and each one multiplies the placements to consider by up to 26.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules.common_words import common_in
from rules.engine import GREEN_PENALTY_POINTS, MARQUE_HAND, RED_BONUS_POINTS
from rules.errors import IllegalMove
from rules.evaluation import VOWELS, Effects, Seen, board_after, open_reds, remove, shadow_state
from rules.material import DIABLE
from rules.movegen import UPPER, Candidate, Position, count_kinds, generate, words
from rules.notation import notate
from rules.placement import check_placement
from rules.player_view import PlayerView
from rules.state import EMPTY, Exchange, Move, Pass, Place

LEVELS = ("debutant", "confirme")
DIABLE_HAND = 12
"""Largest hand that searches placements with its diables straight away."""

# Worth of a letter kept in hand, in points (marque; sans marque against TILE
# per tile shed): how easily it makes French words. Set by hand, then checked
# by bot-against-bot series (docs/COMPUTER.md); the tile's own value is
# counted apart, as a liability growing towards the end.
WORTH: dict[str, float] = {
    "A": 1.0, "E": 2.0, "I": 0.8, "O": 0.2, "U": 0.0, "Y": -4.0,
    "S": 2.0, "R": 1.2, "N": 1.0, "T": 1.0, "L": 0.8,
    "D": 0.2, "M": 0.2, "C": -0.2, "P": -0.2, "G": -0.8, "B": -1.0,
    "F": -1.5, "H": -1.5, "V": -2.0,
    "J": -4.0, "Q": -4.5, "K": -6.0, "W": -6.0, "X": -3.0, "Z": -3.0,
    DIABLE: 7.0,
}  # fmt: skip
VOWEL_SHARE = 0.42
"""Share of vowels in a comfortable hand (diables count half)."""
BALANCE = 1.2
"""Cost of each vowel too many or too few, to the power 1.5."""
DUPLICATE = 1.5
"""Cost of each copy of a letter beyond the comfortable number."""
COMFORTABLE = dict.fromkeys("EAISNRTLOU", 2) | {"E": 3}
TILE = 8.0
"""Sans marque: equity of one tile out of the hand."""
GOING_OUT = 1000.0
"""Sans marque: equity of going out (winning)."""
EXPOSE = {"marque": 6.0, "sans-marque": 4.0}
"""Cost of each red devil a move opens to the next player."""
OUT_NEXT = {"marque": 20.0, "sans-marque": 300.0}
"""Reserve empty: bonus when the hand kept can go out on the next turn."""
EXCHANGE_COST = 4.0
"""Marque: an exchange spends a turn that could have scored or shed."""
PASS_COST = EXCHANGE_COST + 1.0
"""A pass spends a turn and changes nothing: never better than a useful exchange."""
SHORTLIST = 40
LOOKAHEAD = 8
DEBUTANT_TOP = 5
SHORT_WORD = 0.5
"""Débutant: what each letter of the main word beyond ``EASY_LENGTH`` takes off a move's value."""
EASY_LENGTH = 5
"""Débutant: a main word this long or shorter costs nothing."""
DEBUTANT_DIABLES = 1
"""Débutant: most diables in one move."""


HEAVY = 8
"""A tile worth this many points or more is a burden to keep (J, Q, K, W, X, Y, Z)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """One thing the evaluation weighed in a move: what a hint says to explain it.

    ``code`` is stable (the site translates it); ``amount`` and ``tiles`` fill it in:

    - ``red-points``: avec marque, ``amount`` points from red devils.
    - ``green-points``: avec marque, each other player gains ``amount`` (green devils).
    - ``goes-out``: the move places the last tiles; ``amount`` the points it scores
      then (0 when the view cannot tell them: sans marque with tiles in the reserve).
    - ``black-square``: it goes out on a black square, which doubles the end score.
    - ``sheds``: sans marque, ``amount`` tiles out of the hand (placed, plus given
      back, less drawn).
    - ``returns``: sans marque, ``tiles`` given back for red devils (the worst kept).
    - ``green-draw``: sans marque, ``amount`` penalty tiles to draw (green devils).
    - ``plays-heavy``: it places ``tiles``, costly to keep to the end.
    - ``plays-awkward``: it places ``tiles``, letters that make few words.
    - ``keeps``: nothing else stands out: the hand kept, ``tiles``, plays well.
    - ``keeps-diable``: the hand kept still holds a diable.
    - ``out-next``: the reserve is empty and the tiles kept can all go out next turn.
    - ``opens-red``: it leaves ``amount`` red devil(s) open to the next player.
    - ``exchange``: exchange ``tiles``, the hardest of the hand to place.
    - ``pass``: nothing on offer is better than passing.
    - ``ahead-points``, ``ahead-tiles``, ``ahead-hand``, ``ahead-safety``,
      ``ahead-out-next``: why it ranks above the next best move (``tiles`` holds
      that move's notation): more points, more tiles shed, a better hand kept,
      fewer red devils opened, or a hand that can go out next turn;
      ``ahead-close``: the two are worth about the same.
    """

    code: str
    amount: int = 0
    tiles: str = ""


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A complete move and what it does, for hints and analysis.

    ``move`` is ready for ``rules.apply`` (red-devil ``returns`` chosen).
    ``notation``: as in the move history. ``score``: the confirmé equity
    (comparable within one position only). ``points``: what the mover scores
    at once, when the view tells it exactly (devils; going out avec marque,
    or sans marque with an empty reserve). ``others_points``: what each other
    player scores at once (green devils, avec marque). ``tiles``: sans
    marque, the net tiles out of the hand; avec marque, the tiles placed.
    ``out``: the move ends the game by going out. ``words``: the words
    formed, main word first. ``reasons``: what the evaluation weighed, most
    telling first (``Reason``).
    """

    move: Move
    notation: str
    score: float
    points: int = 0
    others_points: int = 0
    tiles: int = 0
    out: bool = False
    words: tuple[str, ...] = ()
    reasons: tuple[Reason, ...] = ()


class Judge:
    """The evaluation of moves from one view (both levels use it)."""

    def __init__(self, seen: PlayerView) -> None:
        self.s = Seen(seen)
        s = self.s
        self.mode = s.config.mode
        self.values = s.tiles.values
        # The hand's tiles count against the player at the end: the nearer
        # the end (the smaller the reserve), the more they weigh.
        self.liability = 0.25 + 0.75 * (1.0 - min(1.0, s.reserve / 30.0))
        if not s.marque:
            self.liability *= 0.5
        hidden = s.hidden
        count = s.hidden_count or 1
        self.draw_worth = (
            sum(
                (WORTH.get(t, 0.0) - self.liability * self.values.get(t, 0)) * k
                for t, k in hidden.items()
            )
            / count
        )
        self.draw_vowels = (
            sum(
                k * (1.0 if t in VOWELS else 0.5 if t == DIABLE else 0.0) for t, k in hidden.items()
            )
            / count
        )
        self._leaves: dict[tuple[str, int], float] = {}
        # The linear part of ``leave`` per character of a candidate's text
        # (a diable's lower-case letter worth a diable, a board tile nothing).
        self.linear = {
            t: WORTH.get(t, 0.0) - self.liability * self.values.get(t, 0)
            for t in {*WORTH, *self.values, *UPPER}
        }
        self.linear.update({t.lower(): self.linear[DIABLE] for t in UPPER})
        self.linear["."] = 0.0
        self.vowel = {t: 1.0 if t in VOWELS else 0.0 for t in self.linear}
        self.vowel.update({t: 0.5 for t in self.linear if t.islower() or t == DIABLE})
        self.vowel["."] = 0.0

    # --- the hand kept ------------------------------------------------------

    def leave(self, kept: Sequence[str], drawn: int = 0) -> float:
        """Worth of keeping ``kept`` and drawing ``drawn`` unknown tiles."""
        key = ("".join(sorted(kept)), drawn)
        cached = self._leaves.get(key)
        if cached is not None:
            return cached
        values = self.values
        worth = sum(WORTH.get(t, 0.0) - self.liability * values.get(t, 0) for t in kept)
        worth += drawn * self.draw_worth
        size = len(kept) + drawn
        if size:
            vowels = sum(1.0 if t in VOWELS else 0.5 if t == DIABLE else 0.0 for t in kept)
            vowels += drawn * self.draw_vowels
            worth -= BALANCE * abs(vowels - VOWEL_SHARE * size) ** 1.5
            scale = max(1.0, size / 12.0)  # a 40-tile hand has duplicates anyway
            for letter, k in Counter(kept).items():
                if letter != DIABLE:
                    extra = k - COMFORTABLE.get(letter, 1) * scale
                    if extra > 0:
                        worth -= DUPLICATE * extra
        self._leaves[key] = worth
        return worth

    def worst(self, tiles: Sequence[str], count: int) -> str:
        """The ``count`` tiles of ``tiles`` whose loss improves the hand most."""
        rest = list(tiles)
        chosen: list[str] = []
        for _ in range(min(count, len(rest))):
            best = max(
                sorted(set(rest)),
                key=lambda t: self.leave(remove(rest, t)),
            )
            rest.remove(best)
            chosen.append(best)
        return "".join(chosen)

    # --- equities -------------------------------------------------------------

    def equity(self, effects: Effects, move: Candidate | None = None) -> float:
        """The confirmé equity of a move's effects (``move`` for a placement)."""
        s = self.s
        worth = self.leave(effects.kept, effects.drawn)
        if s.marque:
            others = max(1, s.others_active)
            return effects.gain - effects.others + effects.others_lose / others + worth
        equity = TILE * effects.shed + worth
        if effects.out:
            equity += GOING_OUT + effects.gain
            if move is not None and move.black and not effects.gain:
                equity += s.hidden_value / 2  # the doubled score, estimated
        return equity

    def place_effects(self, move: Candidate, level: str, rng: random.Random) -> tuple[str, Effects]:
        """The move's red-devil returns for ``level``, and its effects."""
        s = self.s
        owed = s.returns_owed(move)
        returns = ""
        if owed:
            kept = remove(s.hand, move.used)
            if level == "debutant":
                returns = "".join(rng.sample(kept, owed))
            else:
                returns = self.worst(kept, owed)
        return returns, s.effects(move, returns)

    def exchange_option(self) -> tuple[float, str] | None:
        """The best exchange (equity, tiles), or None when the reserve cannot take one."""
        s = self.s
        most = min(len(s.hand), s.reserve)
        if most < 1:
            return None
        order = sorted(s.hand, key=lambda t: WORTH.get(t, 0.0) - self.liability * self.values[t])
        best: tuple[float, str] | None = None
        for k in range(1, most + 1):
            kept = order[k:]
            equity = self.leave(kept, k) - (EXCHANGE_COST if s.marque else 0.0)
            if best is None or equity > best[0]:
                best = (equity, "".join(order[:k]))
        return best


def _candidates(seen: Seen, deadline: float | None = None) -> list[Candidate]:
    hand = seen.hand
    pos = Position(seen.config, seen.view.board, hand, seen.view.started, seen.reserve)
    if len(hand) <= DIABLE_HAND or DIABLE not in hand:
        return generate(pos, deadline=deadline)
    return (
        generate(pos, 0, deadline) or generate(pos, 1, deadline) or generate(pos, deadline=deadline)
    )


def _deadline(limit: float | None) -> float | None:
    """The ``time.monotonic()`` by which a search of ``limit`` seconds must answer."""
    if limit is None:
        return None
    if not limit > 0:  # also NaN
        raise ValueError(f"a search's time limit must be a positive number of seconds: {limit!r}")
    return time.monotonic() + limit


@dataclass(slots=True)
class _Option:
    """A move being weighed; a placement's ``Place`` is built only when needed."""

    score: float
    move: Move | None
    effects: Effects | None = None
    candidate: Candidate | None = None
    returns: str = ""
    exposed: int = 0
    """Red devils the move opens to the next player (``_refine``)."""
    out_next: bool = False
    """The hand kept can go out on the next turn (``_refine``)."""

    def resolve(self, judge: Judge) -> Move:
        if self.move is None:
            assert self.candidate is not None
            s = judge.s
            self.move = self.candidate.place(s.config.layout, s.player, self.returns)
        return self.move


def _rank_confirme(
    judge: Judge,
    cands: list[Candidate],
    rng: random.Random,
    top: int = 1,
    deadline: float | None = None,
) -> list[_Option]:
    """The options (placements, exchange, pass), best first by confirmé equity.

    The first ``top`` are exactly those, in the order, that weighing every
    candidate in full would give; the options after them are only some of
    the others. Weighing a candidate in full (``Judge.place_effects``, which
    chooses red-devil returns one tile at a time) costs far more than the
    search found it: a 40-tile hand has tens of thousands of candidates. So
    each gets a cheap upper bound of its equity first (``_bounds``), and the
    candidates are weighed from the highest bound down, until no bound left
    can reach the short list (``SHORTLIST``, which ``_refine`` looks at
    again), nor then the ``top`` first places: usually a few hundred.

    Past ``deadline`` (``time.monotonic()``), no further candidate is weighed
    (but the first 64 by bound always are): the best of those weighed so
    far, with the exchange and the pass.
    """
    s = judge.s
    player = s.player
    if not s.marque and len(cands) > 4 * SHORTLIST:
        # Shedding dominates sans marque: only moves within two tiles of the
        # most tiles shed can win, so only those are weighed in full.
        hand_size, reserve = len(s.hand), s.reserve
        rough = [
            size + min(c.red, hand_size - size) - min(c.green, reserve + c.red)
            for c in cands
            for size in (len(c.text) - c.text.count("."),)
        ]
        least = max(rough) - 2
        cands = [c for c, r in zip(cands, rough, strict=True) if r >= least]
    bounds = _bounds(judge, cands)
    order = sorted(range(len(cands)), key=bounds.__getitem__, reverse=True)  # stable

    def weigh(index: int) -> tuple[_Option, int]:
        cand = cands[index]
        returns, eff = judge.place_effects(cand, "confirme", rng)
        return _Option(judge.equity(eff, cand), None, eff, cand, returns), index

    def late() -> bool:
        return deadline is not None and time.monotonic() > deadline

    # The short list: weigh until the SHORTLIST-th best score so far beats
    # every bound left, so no candidate left can enter it (ties included: a
    # bound equal to it is weighed, as the earlier candidate wins a tie).
    weighed: list[tuple[_Option, int]] = []
    best: list[float] = []  # the SHORTLIST best scores, a min-heap
    k = 0
    while k < len(order) and not (len(best) >= SHORTLIST and bounds[order[k]] < best[0]):
        # Late, the first few by bound are still weighed: a search stopped
        # by its limit answers with the best placement it found, not an
        # exchange because none was weighed.
        if k and k % 64 == 0 and late():
            break
        option = weigh(order[k])
        k += 1
        weighed.append(option)
        if len(best) < SHORTLIST:
            heapq.heappush(best, option[0].score)
        else:
            heapq.heappushpop(best, option[0].score)
    by_score = lambda pair: (-pair[0].score, pair[1])  # noqa: E731 - ties: the search's order
    weighed.sort(key=by_score)
    ranked = [option for option, _ in weighed]
    _refine(judge, ranked, deadline)
    short = ranked[:SHORTLIST]
    rest = weighed[len(short) :]
    tail: list[_Option] = []
    exchange = judge.exchange_option()
    if exchange is not None:
        tail.append(_Option(exchange[0], Exchange(player, exchange[1])))
    tail.append(_Option(judge.leave(s.hand) - PASS_COST, Pass(player)))

    def merged() -> list[_Option]:
        options = [*short, *(option for option, _ in rest), *tail]
        options.sort(key=lambda o: -o.score)
        return options

    options = merged()
    # The second look moved scores on the short list: weigh what might still
    # reach the first ``top`` places from below it.
    floor = options[top - 1].score if len(options) >= top else -math.inf
    more = False
    while k < len(order) and bounds[order[k]] >= floor and not (k % 64 == 0 and late()):
        rest.append(weigh(order[k]))
        k += 1
        more = True
    if more:
        rest.sort(key=by_score)
        options = merged()
    return options


def _bounds(judge: Judge, cands: list[Candidate]) -> list[float]:
    """For each candidate, a number its confirmé equity cannot exceed, cheaply.

    Everything in the equity but the hand kept is exact (tiles shed, points,
    draws). The hand kept (``Judge.leave``) is its tiles' worth, less two
    penalties that are never negative: its balance of vowels, exact here but
    for red-devil returns (each takes 0 to 1 vowel out), and its duplicates,
    left out. Returns take out at least the ``owed`` lowest worths of the
    hand. A move that goes out is never bounded (infinite): its bonus is
    weighed in full.
    """
    s = judge.s
    worth = judge.linear
    vowel = judge.vowel
    hand_size, reserve = len(s.hand), s.reserve
    whole = sum(worth[t] for t in s.hand)
    vowels = sum(vowel[t] for t in s.hand)
    lowest = [0.0]
    for w in sorted(worth[t] for t in s.hand):
        lowest.append(lowest[-1] + w)
    draw, draw_vowels = judge.draw_worth, judge.draw_vowels
    slack = 1e-6  # rounding: the exact sums are added in another order
    get, get_vowel = worth.__getitem__, vowel.__getitem__
    bounds: list[float] = []
    add = bounds.append
    marque = s.marque
    green = GREEN_PENALTY_POINTS if s.others_active else 0
    for c in cands:
        text = c.text
        size = len(text) - text.count(".")
        if marque:
            owed = 0
            kept = hand_size - size
            drawn = min(MARQUE_HAND - kept, reserve) if kept < MARQUE_HAND else 0
            equity: float = RED_BONUS_POINTS * c.red - green * c.green
        else:
            owed = min(c.red, hand_size - size)
            kept = hand_size - size - owed
            drawn = min(c.green, reserve + owed)
            equity = TILE * (size + owed - drawn)
        if not kept and not drawn:
            add(math.inf)
            continue
        most = vowels - sum(map(get_vowel, text)) + drawn * draw_vowels
        share = VOWEL_SHARE * (kept + drawn)
        gap = share - most if share > most else most - owed - share if most - owed > share else 0.0
        equity += whole - sum(map(get, text)) - lowest[owed] + drawn * draw
        add(equity - BALANCE * gap**1.5 + slack)
    return bounds


def _refine(judge: Judge, options: list[_Option], deadline: float | None = None) -> None:
    """Second look at the short list: red devils opened, and going out next turn
    (not looked for past ``deadline``, a ``time.monotonic()``)."""
    s = judge.s
    layout = s.config.layout
    board = s.view.board
    cells, width = layout.cells, layout.width
    before = open_reds(board, cells, width)
    short = options[:SHORTLIST]
    for option in short:
        cand = option.candidate
        assert cand is not None and option.effects is not None
        if option.effects.out:
            continue
        after = open_reds(board_after(board, cand), cells, width)
        option.exposed = len(after - before)
        option.score -= EXPOSE[judge.mode] * option.exposed
    short.sort(key=lambda o: -o.score)
    if s.reserve == 0:
        # A move places its tiles in one line: a hand longer than every line
        # cannot go out in one move, and needs no search to tell.
        longest = max(layout.width, layout.height)
        for option in short[:LOOKAHEAD]:
            eff, cand = option.effects, option.candidate
            assert eff is not None and cand is not None
            if eff.out or eff.drawn or not eff.kept or len(eff.kept) > longest:
                continue
            if deadline is not None and time.monotonic() > deadline:
                break
            nxt = Position(s.config, board_after(board, cand), eff.kept, True, 0)
            size = len(eff.kept)
            # Words, not every placement: the diables' variants place as many tiles.
            if any(c.size == size for c in words(nxt, deadline=deadline)):
                option.out_next = True
                option.score += OUT_NEXT[judge.mode]
    options[: len(short)] = sorted(short, key=lambda o: -o.score)


def formed_words(board: str, width: int, cand: Candidate) -> list[str]:
    """The words ``cand`` forms on ``board`` (a layout ``width`` wide), main word first.

    The main word is the whole run of tiles through the new ones (``cand.text``
    starts at the first new tile, so board tiles before it are read here); each
    new tile adds the run across it. Runs of one letter are no words: a single
    tile whose word runs down has that word only (and first).
    Upper case: a diable's letter reads as the letter.
    """
    return WordsFormed(board, width)(cand)


class WordsFormed:
    """``formed_words`` for many candidates on one board, fast.

    The débutant checks every candidate's words (a 40-tile hand has 100,000
    of them): the board tiles before a main word depend only on where it
    starts, and a cross word only on its square and letter, so each is read
    from the board once and remembered.
    """

    def __init__(self, board: str, width: int) -> None:
        self.board, self.width = board, width
        self.before: dict[tuple[int, int], str] = {}
        self.cross: dict[tuple[int, str, int], str] = {}

    def _run(self, index: int, step: int) -> tuple[str, str]:
        """The board tiles before and after ``index`` in its line by ``step``."""
        board, width, size = self.board, self.width, len(self.board)
        row = index // width

        def filled(i: int) -> bool:
            # Across, a run stays in its row; down, on the board.
            inside = 0 <= i < size and (step != 1 or i // width == row)
            return inside and board[i] != EMPTY

        first = index
        while filled(first - step):
            first -= step
        last = index
        while filled(last + step):
            last += step
        return board[first:index:step].upper(), board[index + step : last + 1 : step].upper()

    def __call__(self, cand: Candidate) -> list[str]:
        board, start, step = self.board, cand.start, cand.step
        prefix = self.before.get((start, step))
        if prefix is None:
            prefix = self.before[start, step] = self._run(start, step)[0]
        text = cand.text
        if "." in text:
            text = "".join(board[start + k * step] if c == "." else c for k, c in enumerate(text))
        found = [prefix + text.upper()]
        across = self.width if step == 1 else 1
        for index, letter in cand.tiles:
            key = (index, letter, across)
            word = self.cross.get(key)
            if word is None:
                before, after = self._run(index, across)
                word = self.cross[key] = before + letter.upper() + after
            found.append(word)
        # A single tile's line is "across" by convention: its word may run down only.
        return [word for word in found if len(word) > 1]


def _debutant_candidates(
    seen: Seen, deadline: float | None = None
) -> tuple[list[tuple[Candidate, int]], list[tuple[Candidate, int]]]:
    """The débutant's placements: (those whose words are all common, the others).

    At most ``DEBUTANT_DIABLES`` diables each; with a hand over ``DIABLE_HAND``
    tiles, none first, as both levels do. Each comes with its main word's
    length: ``(candidate, length)``.
    """
    hand = seen.hand
    pos = Position(seen.config, seen.view.board, hand, seen.view.started, seen.reserve)
    common = common_in(seen.config.words)
    formed_by = WordsFormed(seen.view.board, seen.config.layout.width)

    def split(
        cands: list[Candidate],
    ) -> tuple[list[tuple[Candidate, int]], list[tuple[Candidate, int]]]:
        known: list[tuple[Candidate, int]] = []
        unknown: list[tuple[Candidate, int]] = []
        for cand in cands:
            formed = formed_by(cand)
            entry = (cand, len(formed[0]) if formed else 0)
            (known if all(w in common for w in formed) else unknown).append(entry)
        return known, unknown

    if DIABLE in hand and len(hand) > DIABLE_HAND:
        known, unknown = split(generate(pos, 0, deadline))
        if known:
            return known, unknown
    return split(generate(pos, DEBUTANT_DIABLES, deadline))


def _choose_debutant(
    judge: Judge,
    known: list[tuple[Candidate, int]],
    unknown: list[tuple[Candidate, int]],
    rng: random.Random,
) -> Move:
    s = judge.s
    player = s.player
    if not known and (s.reserve or not unknown):
        if s.reserve:
            # Give back the heaviest tiles, as a beginner would.
            heavy = sorted(s.hand, key=lambda t: -judge.values[t])
            return Exchange(player, "".join(heavy[: min(3, s.reserve)]))
        return Pass(player)

    def simple(entry: tuple[Candidate, int]) -> float:
        c, length = entry
        if s.marque:
            out = c.size == len(s.hand) and s.reserve == 0
            bonus = (50 if c.black else 25) if out else 0
            value = 10 * c.red - 5 * c.green + bonus
        else:
            value = c.size + min(c.red, len(s.hand) - c.size) - min(c.green, s.reserve)
        return value - SHORT_WORD * max(0, length - EASY_LENGTH)

    pool = list(known or unknown)
    rng.shuffle(pool)  # equal values: any of them, not the generator's first
    ranked = sorted(pool, key=simple, reverse=True)[:DEBUTANT_TOP]
    cand, _ = rng.choice(ranked)
    returns, _ = judge.place_effects(cand, "debutant", rng)
    return cand.place(s.config.layout, player, returns)


def choose_move(
    seen: PlayerView,
    level: str = "confirme",
    rng: random.Random | None = None,
    *,
    limit: float | None = None,
) -> Move:
    """The move a computer player of ``level`` makes from ``seen``.

    ``seen`` is ``rules.view(state, seat)`` for the seat to move. The move is
    complete (diables' letters, red-devil returns) and legal for
    ``rules.apply``. ``rng`` drives the débutant's choices (and nothing
    else), so a seeded ``rng`` replays the same game.

    ``limit``: seconds the search may take (None: no limit). Once they have
    passed, it stops and plays the best move among those found so far, or
    exchanges or passes when it found none: never an error.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (expected one of {', '.join(LEVELS)})")
    if seen.result is not None or seen.turn != seen.viewer:
        raise ValueError("a computer player moves only on its own turn in a game not over")
    deadline = _deadline(limit)
    rng = rng if rng is not None else random.Random()
    judge = Judge(seen)
    if level == "debutant":
        return _choose_debutant(judge, *_debutant_candidates(judge.s, deadline), rng)
    cands = _candidates(judge.s, deadline)
    return _rank_confirme(judge, cands, rng, 1, deadline)[0].resolve(judge)


def best_moves(seen: PlayerView, n: int = 1, *, limit: float | None = None) -> list[Suggestion]:
    """The ``n`` best moves for the viewer, by the confirmé's equity, best first.

    For hints ("the best move") and analysis. Includes an exchange or a pass
    when they rank among the best (always at least one suggestion).

    ``limit``: seconds the search may take (None: no limit). Once they have
    passed, the moves are the best of those found so far (an exchange or a
    pass when none was), never an error.
    """
    deadline = _deadline(limit)
    judge = Judge(seen)
    cands = _candidates(judge.s, deadline)
    options = _rank_confirme(judge, cands, random.Random(0), max(2, n), deadline)
    shown = [suggest(judge, option) for option in options[: max(1, n)]]
    if len(options) > 1:
        runner_up = suggest(judge, options[1])
        ahead = _ahead(judge, options[0], options[1], runner_up.notation)
        if ahead is not None:
            first = shown[0]
            shown[0] = replace(first, reasons=(*first.reasons, ahead))
    return shown


def suggest(judge: Judge, option: _Option) -> Suggestion:
    """An option as a ``Suggestion`` (notation and words from the engine)."""
    state = shadow_state(judge.s.view)
    move = option.resolve(judge)
    notation = str(notate(state, move))
    reasons = _reasons(judge, option, move)
    if isinstance(move, Place):
        eff = option.effects
        assert eff is not None
        words = tuple(w for w, _, _ in check_placement(state, move).words)
        return Suggestion(
            move, notation, option.score, eff.gain, eff.others, eff.shed, eff.out, words, reasons
        )
    return Suggestion(move, notation, option.score, reasons=reasons)


def _reasons(judge: Judge, option: _Option, move: Move) -> tuple[Reason, ...]:
    """What the evaluation weighed in ``option``, the most telling first."""
    s = judge.s
    if isinstance(move, Exchange):
        return (Reason("exchange", len(move.tiles), move.tiles),)
    if not isinstance(move, Place):
        return (Reason("pass"),)
    eff, cand = option.effects, option.candidate
    assert eff is not None and cand is not None
    reasons: list[Reason] = []
    if eff.out:
        reasons.append(Reason("goes-out", eff.gain))
        if cand.black:
            reasons.append(Reason("black-square"))
    if s.marque:
        if cand.red:
            reasons.append(Reason("red-points", RED_BONUS_POINTS * cand.red))
        if eff.others:
            reasons.append(Reason("green-points", eff.others))
    else:
        if not eff.out and eff.shed > 0:  # penalty draws can outweigh the tiles placed
            reasons.append(Reason("sheds", eff.shed))
        if option.returns:
            reasons.append(Reason("returns", len(option.returns), option.returns))
        if eff.drawn:
            reasons.append(Reason("green-draw", eff.drawn))
    if option.out_next:
        reasons.append(Reason("out-next"))
    heavy = "".join(t for t in cand.used if judge.values.get(t, 0) >= HEAVY)
    if heavy:
        reasons.append(Reason("plays-heavy", len(heavy), heavy))
    awkward = "".join(t for t in cand.used if WORTH.get(t, 0.0) < 0 and t not in heavy)
    if awkward:
        reasons.append(Reason("plays-awkward", len(awkward), awkward))
    if DIABLE in eff.kept:
        reasons.append(Reason("keeps-diable", eff.kept.count(DIABLE)))
    if not reasons:
        reasons.append(Reason("keeps", len(eff.kept), "".join(sorted(eff.kept))))
    if option.exposed:
        reasons.append(Reason("opens-red", option.exposed))
    return tuple(reasons)


def _parts(judge: Judge, option: _Option) -> dict[str, float]:
    """``option``'s equity in parts (they add up to its score), to say why one beats another."""
    s = judge.s
    eff, cand = option.effects, option.candidate
    if eff is None or cand is None:  # an exchange or a pass: all in the hand kept
        return {"hand": option.score}
    parts = {"hand": judge.leave(eff.kept, eff.drawn)}
    if s.marque:
        parts["points"] = eff.gain - eff.others + eff.others_lose / max(1, s.others_active)
    else:
        parts["tiles"] = option.score - parts["hand"]  # shed tiles, going out and its score
    parts["safety"] = -EXPOSE[judge.mode] * option.exposed
    parts["out-next"] = OUT_NEXT[judge.mode] if option.out_next else 0.0
    if not s.marque:
        parts["tiles"] -= parts["safety"] + parts["out-next"]
    return parts


def _ahead(judge: Judge, best: _Option, other: _Option, other_notation: str) -> Reason | None:
    """Why ``best`` ranks above ``other``: the part of the equity where it gains most."""
    mine, theirs = _parts(judge, best), _parts(judge, other)
    gains = {key: mine.get(key, 0.0) - theirs.get(key, 0.0) for key in mine.keys() | theirs}
    key = max(sorted(gains), key=lambda k: gains[k])
    if round(gains[key]) < 1:
        return Reason("ahead-close", 0, other_notation)  # a close call: say with what
    return Reason(f"ahead-{key}", round(gains[key]), other_notation)


def evaluate_move(seen: PlayerView, move: Move) -> Suggestion:
    """``move`` (legal from ``seen``) as a ``Suggestion``, scored like the best moves,
    so analysis can compare what was played with what could have been.

    Raises IllegalMove for a placement or exchange the viewer could not play,
    ValueError for a resignation (not a move to weigh).
    """
    judge = Judge(seen)
    s = judge.s
    if isinstance(move, Place):
        placement = check_placement(shadow_state(seen), move)  # raises IllegalMove
        squares = placement.squares
        width = s.config.layout.width
        step = 1 if len({i // width for i in squares}) == 1 else width
        chars = dict(zip(squares, (c for _, c in move.tiles), strict=True))
        first, last = min(squares), max(squares)
        text = "".join(chars.get(i, ".") for i in range(first, last + 1, step))
        cand = Candidate(first, step, text, step == 1, *count_kinds(s.config.layout, squares))
        returns = move.returns if isinstance(move.returns, str) else ""
        try:
            if len(returns) != s.returns_owed(cand):
                raise ValueError(returns)
            eff = s.effects(cand, returns)
        except ValueError:
            raise IllegalMove(
                "returns",
                "R-PLACE-7",
                "Les lettres rendues pour les diables rouges ne conviennent pas.",
                "The tiles given back for red devils do not fit.",
            ) from None
        option = _Option(judge.equity(eff, cand), move, eff, cand)
        # The second look the ranking gives its short list (red devils opened,
        # going out next turn): without it the best move itself, played,
        # would score less than when it was found.
        _refine(judge, [option])
        return suggest(judge, option)
    if isinstance(move, Exchange):
        try:
            if not move.tiles or len(move.tiles) > s.reserve:
                raise ValueError(move.tiles)
            kept = remove(s.hand, move.tiles)
        except ValueError:
            raise IllegalMove(
                "not-in-hand",
                "R-HAND-1",
                "Vous ne pouvez pas échanger ces lettres.",
                "You cannot exchange these tiles.",
            ) from None
        score = judge.leave(kept, len(move.tiles)) - (EXCHANGE_COST if s.marque else 0.0)
        return suggest(judge, _Option(score, move))
    if isinstance(move, Pass):
        return suggest(judge, _Option(judge.leave(s.hand) - PASS_COST, move))
    raise ValueError("only placements, exchanges and passes are weighed")
