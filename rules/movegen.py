"""Every legal placement for a hand on a board (the move generator).

The method is Appel and Jacobson's (1988): in each row, then each column,
the *anchors* are the empty squares next to a tile; a new word must cover
one. For every empty square a *cross-check* (a bit mask of letters) says
which letters keep the perpendicular word valid. From each anchor the
generator builds a *left part* on the free squares to its left (or reads the
tiles already there), then extends right through the DAWG (``rules.dawg``),
placing hand tiles on empty squares and reading the board's tiles, and
records every path that ends a word. Each move is found once: from the
leftmost anchor it covers, in the direction of its line (a single tile only
in the "across" pass).

With a diable every prefix of the list is a left part, so a left part is
only built along branches of the DAWG whose words can go on as a word from
its anchor must (``rules.dawg.ENDS`` and ``AFTER``): end with a letter allowed where it
may end, and hold the board's tiles after the anchor. The walk plays a letter
with a tile, or with a diable once the hand has none left for it (in lower
case); each word is then expanded into every way the diables may play its
letters. The strategies break ties by the order of the placements: anchors
left to right, then left and right parts in the DAWG's alphabetical order.

The rules the engine checks all have their place here:

* R-PLACE-2, the first word: 2 to 8 tiles from Départ, rightwards or down;
* R-PLACE-3/4, one unbroken line touching the board, every run a word;
* R-PLACE-5, a black square only on the move that places every tile of the
  hand and leaves it empty for good (at most one; avec marque only once the
  reserve is empty; sans marque not with a green devil that draws a tile);
* R-PLACE-9, a diable is tried as every letter that fits (lower case);
* devils may be covered (their effects are counted on each ``Candidate``).

``tests/rules/test_movegen.py`` proves that the generated set is exactly the
set ``rules.placement.check_placement`` accepts, by brute force, and that the
pruning loses nothing on big French hands.

The generator sees only what the player sees: the board, the player's own
hand, the reserve's size and the game's configuration (a ``PlayerView``).
"""

from __future__ import annotations

import gc
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations, product
from types import MethodType
from typing import NamedTuple

from rules.dawg import AFTER, ALL_LETTERS, ENDS, FINAL, INFO, ROOT, SECOND, Dawg, dawg_for
from rules.material import BLACK, DIABLE, GREEN, RED, Layout
from rules.placement import FIRST_MOVE_MAX, FIRST_MOVE_MIN
from rules.player_view import PlayerView, view
from rules.state import EMPTY, GameConfig, GameState, Place

UPPER = tuple(chr(65 + k) for k in range(26))
LOWER = tuple(chr(97 + k) for k in range(26))
_UNMARKED = "".join(UPPER) + "."
JOKER = 26
"""Index of the diables in a rack (letters are 0-25)."""


class Candidate(NamedTuple):
    """One legal placement, before red-devil returns are chosen.

    Compact on purpose (a 40-tile hand has hundreds of thousands): ``text``
    spells the main word from the first new tile to the word's end, one
    character per square from board index ``start`` by ``step`` (1 across,
    the board's width down): a letter is a new tile (lower case: a diable
    standing for that letter), ``.`` a tile already on the board.
    ``across``: the line of the tiles (a single tile counts as across).
    ``red``, ``green``, ``black``: how many squares of each kind it covers.
    """

    start: int
    step: int
    text: str
    across: bool
    red: int
    green: int
    black: int

    @property
    def tiles(self) -> tuple[tuple[int, str], ...]:
        """``(board index, letter)`` of each new tile, in board order."""
        start, step = self.start, self.step
        return tuple((start + k * step, c) for k, c in enumerate(self.text) if c != ".")

    @property
    def used(self) -> str:
        """The hand tiles it uses, in board order (``?`` for a diable)."""
        return "".join(c if c <= "Z" else DIABLE for c in self.text if c != ".")

    @property
    def size(self) -> int:
        """Number of tiles placed."""
        return len(self.text) - self.text.count(".")

    def place(self, layout: Layout, player: int, returns: str = "") -> Place:
        """The engine's move for this placement (``returns`` for red devils, sans marque)."""
        return Place(player, tuple((layout.name_of(i), c) for i, c in self.tiles), returns)


# Builds a Candidate from a 7-tuple without its Python-level __new__ (a bound
# method is cheaper to call than tuple.__new__ with the class): up to a
# million are made per search of a big hand.
_candidate = MethodType(tuple.__new__, Candidate)


class Position(NamedTuple):
    """What the generator needs, all of it visible to the player to move."""

    config: GameConfig
    board: str
    hand: tuple[str, ...]
    started: bool
    reserve_size: int


def position(seen: PlayerView | GameState, player: int | None = None) -> Position:
    """The generator's input from a ``PlayerView`` (with its config), or from a
    ``GameState`` and a seat, through ``rules.view`` so nothing hidden leaks."""
    if isinstance(seen, GameState):
        seat = seen.turn if player is None else player
        seen = view(seen, seat)
    if seen.config is None or seen.hand is None:
        raise ValueError("the move generator needs a player's view with the game's config")
    return Position(seen.config, seen.board, seen.hand, seen.started, seen.reserve_size)


def legal_placements(seen: PlayerView | GameState, player: int | None = None) -> list[Place]:
    """Every legal placement for the viewer (or ``player`` of a state), as ``Place``.

    Sans marque, a placement that covers red devils still needs its
    ``returns`` (``rules.engine.returns_owed`` says how many); the strategies
    choose them.
    """
    pos = position(seen, player)
    seat = (
        seen.viewer if isinstance(seen, PlayerView) else (seen.turn if player is None else player)
    )
    layout = pos.config.layout
    return [c.place(layout, int(seat or 0)) for c in generate(pos)]


def generate(
    pos: Position, diables: int | None = None, deadline: float | None = None
) -> list[Candidate]:
    """Every legal placement of ``pos.hand`` on ``pos.board``, each exactly once.

    ``diables`` caps how many of the hand's diables a placement may use (None:
    all). Each diable multiplies the placements by up to 26, so a strategy
    holding 40 tiles may search without them first.

    ``deadline`` (a ``time.monotonic()`` value): once it has passed, the
    search stops and returns the placements found so far (legal, but not all).
    """
    return _generate(pos, diables, deadline=deadline)


def words(
    pos: Position, diables: int | None = None, deadline: float | None = None
) -> list[Candidate]:
    """``generate``'s search with the diables expanded lazily: each placement of
    letters once, a diable (lower case) only where the hand has no tile left
    for its letter. ``expand`` turns them into every placement, exactly
    ``generate``'s list; a hand without diables has nothing to expand.

    With a diable in a big hand most placements are the same letters with
    the diable standing for one or another of them: five times as many.
    """
    return _generate(pos, diables, deadline=deadline, expand=False)


def expand(
    pos: Position, found: Iterable[Candidate], diables: int | None = None
) -> list[Candidate]:
    """The placements of ``found`` (from ``words(pos, diables)``), with every way
    the hand's diables may play their letters: ``generate(pos, diables)``, in
    its order."""
    out: list[Candidate] = []
    expander = _expander(_jokers(pos.hand, diables), out.append)
    if expander is None:
        return list(found)
    for cand in found:
        expander(*cand)
    return out


class _OutOfTime(Exception):
    """The search's deadline has passed (caught by ``_generate``)."""


def _jokers(hand: Sequence[str], diables: int | None) -> int:
    """How many diables of ``hand`` a placement may use (``diables`` caps them)."""
    jokers = hand.count(DIABLE)
    return jokers if diables is None else min(jokers, max(0, diables))


def _generate(
    pos: Position,
    diables: int | None = None,
    prune: bool = True,
    dawg: Dawg | None = None,
    deadline: float | None = None,
    expand: bool = True,
) -> list[Candidate]:
    """``generate`` (``words`` when not ``expand``); ``prune`` False (slower)
    lets tests check that pruning the left parts by the DAWG's masks loses
    nothing, and ``dawg`` that a DAWG read from its file searches like one
    packed in memory."""
    hand = pos.hand
    if not hand:
        return []
    config = pos.config
    dawg = dawg_for(config.words) if dawg is None else dawg
    rack = [0] * 27
    for tile in hand:
        if tile != DIABLE:
            rack[ord(tile) - 65] += 1
    rack[JOKER] = _jokers(hand, diables)
    gen = _Search(
        config, pos.board, rack, len(hand), pos.reserve_size, dawg, prune, deadline, expand
    )
    # The search makes no reference cycles, only up to a million small
    # tuples, which would set the cyclic garbage collector off again and
    # again for nothing (a third of the time for a 40-tile hand).
    collecting = gc.isenabled()
    gc.disable()
    try:
        if not pos.started:
            gen.first_move()
        else:
            gen.all_lines()
    except _OutOfTime:
        pass  # what was found so far
    finally:
        if collecting:
            gc.enable()
    return gen.found


def count_kinds(layout: Layout, squares: Sequence[int]) -> tuple[int, int, int]:
    """(red, green, black) squares among ``squares``."""
    cells = layout.cells
    kinds = [cells[i] for i in squares]
    return kinds.count(RED), kinds.count(GREEN), kinds.count(BLACK)


_letter_sets: dict[int, tuple[int, ...]] = {}
"""The letter codes of each mask of letters met, in alphabetical order: the
search's loops run over the letters a node has *and* a square allows."""


def _letters_of(mask: int) -> tuple[int, ...]:
    """The letter codes in ``mask`` (remembered in ``_letter_sets``)."""
    if len(_letter_sets) > 1 << 18:  # a bound on memory; refilled as needed
        _letter_sets.clear()
    codes = _letter_sets[mask] = tuple(k for k in range(26) if mask >> k & 1)
    return codes


_FOLLOWED: dict[tuple[tuple[str, ...], int], tuple[str, ...]] = {}


def _followed(letters: tuple[str, ...], tiles: int) -> tuple[str, ...]:
    """Each of ``letters`` followed by ``tiles`` board tiles (``.`` each)."""
    texts = _FOLLOWED.get((letters, tiles))
    if texts is None:
        texts = _FOLLOWED[letters, tiles] = tuple(c + "." * tiles for c in letters)
    return texts


Expander = Callable[[int, int, str, bool, int, int, int], None]


def _expander(jokers: int, add: Callable[[Candidate], None]) -> Expander | None:
    """The function that adds the walk's word ``text`` (its new letters in upper
    case, or lower case where the walk gave one to a diable) once per way of
    playing its letters with the hand's tiles and ``jokers`` diables; None
    without diables (the word is the one placement). Chosen once per search,
    as it runs up to a million times.

    The search walks letters, not tiles (R-PLACE-9): a letter goes to a
    diable only when the hand has no tile left for it, and which copies the
    diables play is decided here. Searching each diable as its own branch
    would walk every dead end once per diable and position.
    """

    def one_diable(
        start: int, step: int, text: str, across: bool, red: int, green: int, black: int
    ) -> None:
        # Plain loops: cheaper than comprehensions for a few items each.
        if not text.isupper():  # the diable plays any copy of a letter the hand lacks
            lower = text.strip(_UNMARKED)
            short = lower.upper()
            if short not in text:
                # Its only copy, mostly: the walk's word is the one placement.
                add(_candidate((start, step, text, across, red, green, black)))
                return
            text = text.upper()
            k = text.find(short)
            while k >= 0:
                variant = text[:k] + lower + text[k + 1 :]
                add(_candidate((start, step, variant, across, red, green, black)))
                k = text.find(short, k + 1)
            return
        # The word as it is, then the diable in each new letter's place;
        # str.replace lowers the first copy of a letter in one string.
        add(_candidate((start, step, text, across, red, green, black)))
        low = text.lower()
        seen = ""
        for k, c in enumerate(text):
            if c != ".":
                if c in seen:
                    variant = f"{text[:k]}{low[k]}{text[k + 1 :]}"
                else:
                    variant = text.replace(c, low[k], 1)
                    seen += c
                add(_candidate((start, step, variant, across, red, green, black)))

    def diables(
        start: int, step: int, text: str, across: bool, red: int, green: int, black: int
    ) -> None:
        # How many copies of each letter the diables must play, in the word's order.
        taken = Counter(c.upper() for c in text if c.islower())
        forced = taken.total()
        text = text.upper()
        short = {c: taken[c] for c in dict.fromkeys(text) if c in taken}
        spots = [k for k, char in enumerate(text) if char != "."]
        for count in range(forced, min(jokers, len(spots)) + 1):
            if count == 0:
                add(_candidate((start, step, text, across, red, green, black)))
                continue
            if count == forced:
                # Exactly the missing letters: choose which copies the diables play.
                choices = product(
                    *(combinations([k for k in spots if text[k] == c], n) for c, n in short.items())
                )
                sets: Iterable[tuple[int, ...]] = (sum(parts, ()) for parts in choices)
            elif short:
                sets = (
                    chosen
                    for chosen in combinations(spots, count)
                    if all(sum(text[k] == c for k in chosen) >= n for c, n in short.items())
                )
            else:
                sets = combinations(spots, count)
            for chosen in sets:
                variant = text
                for k in chosen:
                    variant = variant[:k] + variant[k].lower() + variant[k + 1 :]
                add(_candidate((start, step, variant, across, red, green, black)))

    return None if not jokers else one_diable if jokers == 1 else diables


class _Search:
    """One generation: the board's lines, cross-checks, and the recursive walk."""

    def __init__(
        self,
        config: GameConfig,
        board: str,
        rack: list[int],
        hand_size: int,
        reserve_size: int,
        dawg: Dawg,
        prune: bool = True,
        deadline: float | None = None,
        expand: bool = True,
    ) -> None:
        layout = config.layout
        self.layout = layout
        self.board = board
        self.rack = rack
        self.hand_size = hand_size
        self.reserve_size = reserve_size
        self.marque = config.marque
        self.dawg = dawg
        self.prune = prune
        self.deadline = deadline
        self.found: list[Candidate] = []
        self.jokers = rack[JOKER]
        # Each word found is added as it is, or through this (the diables).
        self.expand = _expander(self.jokers, self.found.append) if expand else None
        # A black square can only be covered by a move that places the whole
        # hand in one line, and avec marque only once the reserve is empty:
        # otherwise black squares are walls, which prunes the search early.
        longest = max(layout.width, layout.height)
        self.black_ok = hand_size <= longest and (reserve_size == 0 or not self.marque)
        # Sans marque, a green devil draws a tile: no black square then (R-PLACE-5).
        self.green_draws = bool(reserve_size and not self.marque)

    def check_time(self) -> None:
        """Stop the search (``_OutOfTime``) once its deadline has passed; called
        often enough (per anchor, per short left part or first letters) that
        a search stops within milliseconds of it, seldom enough to cost nothing."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _OutOfTime

    def _black_allowed(self, size: int, green: int) -> bool:
        """R-PLACE-5 for a move covering one black square and ``size`` tiles."""
        return size == self.hand_size and not (green and self.green_draws)

    def _record(
        self, start: int, step: int, text: str, across: bool, red: int, green: int, black: int
    ) -> None:
        """Record one word found (the rare paths; the walks add theirs inline)."""
        if self.expand is None:
            self.found.append(_candidate((start, step, text, across, red, green, black)))
        else:
            self.expand(start, step, text, across, red, green, black)

    # --- the first word (R-PLACE-2) ----------------------------------------

    def first_move(self) -> None:
        layout = self.layout
        width = layout.width
        start = layout.start
        col, row = start % width, start // width
        for across in (True, False):
            room = width - col if across else layout.height - row
            step = 1 if across else width
            self._first_line([start + k * step for k in range(min(room, FIRST_MOVE_MAX))], across)

    def _first_line(self, squares: list[int], across: bool) -> None:
        """First words along ``squares``, which start on Départ."""
        layout = self.layout
        rack = self.rack
        cells = layout.cells
        black_ok = self.black_ok
        add = self.found.append
        expand = self.expand
        start = squares[0]
        step = squares[1] - start if len(squares) > 1 else 1
        # What a word of each length covers: (across, red, green, black) for
        # the candidate, or None where it may not end (R-PLACE-5 decides).
        tails: list[tuple[bool, int, int, int] | None] = [None]
        for depth in range(1, len(squares) + 1):
            red, green, black = count_kinds(layout, squares[:depth])
            allowed = not black or (black == 1 and self._black_allowed(depth, green))
            tails.append((across, red, green, black) if allowed else None)
        room = len(squares)

        graph = self.dawg.cells  # not ``cells``: the layout's
        letters_of = self.dawg.letters
        check_time = self.check_time

        def walk(node: int, text: str, depth: int) -> None:
            info = graph[node + INFO]
            if depth >= FIRST_MOVE_MIN and info & FINAL:
                tail = tails[depth]
                if tail is not None:
                    if expand is None:
                        add(_candidate((start, step, text, *tail)))
                    else:
                        expand(start, step, text, *tail)
            if depth == room:
                return
            if cells[squares[depth]] == BLACK and not black_ok:
                return
            if depth < 3:
                check_time()
            deeper = depth + 1
            for code in letters_of[info]:
                # A letter is played by its tile, or else by a diable (in lower case).
                if rack[code]:
                    rack[code] -= 1
                    walk(graph[node + code], text + UPPER[code], deeper)
                    rack[code] += 1
                elif rack[JOKER]:
                    rack[JOKER] -= 1
                    walk(graph[node + code], text + LOWER[code], deeper)
                    rack[JOKER] += 1

        walk(ROOT, "", 0)

    # --- later moves (R-PLACE-3, R-PLACE-4) ----------------------------------

    def all_lines(self) -> None:
        layout = self.layout
        width, height = layout.width, layout.height
        for row in range(height):
            self._line([row * width + c for c in range(width)], True, 1, width)
        for col in range(width):
            self._line([col + r * width for r in range(height)], False, width, 1)

    def _cross(self, index: int, step: int) -> int:
        """Mask of letters allowed on empty square ``index`` by the perpendicular run
        (``step`` is the perpendicular step); ALL_LETTERS when it touches nothing."""
        board = self.board
        width = self.layout.width
        if step == 1:
            lo = index - index % width
            hi = lo + width
        else:
            lo, hi = index % step, len(board)
        start = index
        while start - step >= lo and board[start - step] != EMPTY:
            start -= step
        end = index + step
        while end < hi and board[end] != EMPTY:
            end += step
        if start == index and end == index + step:
            return ALL_LETTERS
        before = board[start:index:step].upper()
        after = board[index + step : end : step].upper()
        return self.dawg.cross_mask(before, after)

    def _line(self, idx: list[int], across: bool, step: int, perp: int) -> None:
        """Moves whose tiles lie in the line of board squares ``idx`` (``step`` apart);
        ``perp`` is the board step perpendicular to the line."""
        board = self.board
        cells = self.layout.cells
        n = len(idx)
        fixed = [-1] * (n + 1)  # letter code of the board's tile, -1 when empty
        for pos, i in enumerate(idx):
            char = board[i]
            if char != EMPTY:
                fixed[pos] = ord(char.upper()) - 65
        black_ok = self.black_ok
        cross = [0] * (n + 1)  # the sentinel square past the end takes nothing
        anchor = [False] * (n + 1)
        any_anchor = False
        for pos, i in enumerate(idx):
            if fixed[pos] >= 0:
                continue
            if cells[i] == BLACK and not black_ok:
                continue
            mask = self._cross(i, perp)
            cross[pos] = mask
            if mask != ALL_LETTERS or (pos > 0 and fixed[pos - 1] >= 0) or fixed[pos + 1] >= 0:
                anchor[pos] = True
                any_anchor = True
        if not any_anchor:
            return
        # Devils and black squares before each position, counting empty squares
        # only: a move covers every empty square between its ends, so its
        # counts are two subtractions.
        reds, greens, blacks = [0], [0], [0]
        for pos, i in enumerate(idx):
            kind = cells[i] if fixed[pos] < 0 else ""
            reds.append(reds[-1] + (kind == RED))
            greens.append(greens[-1] + (kind == GREEN))
            blacks.append(blacks[-1] + (kind == BLACK))

        # After a tile on empty square ``pos``: the board's tiles that follow it
        # (letter codes) and the next empty square (or the sentinel ``n``).
        runs: list[tuple[int, ...]] = [()] * (n + 1)
        nexts = [n] * (n + 1)
        for pos in range(n - 1, -1, -1):
            if fixed[pos + 1] >= 0:
                runs[pos] = (fixed[pos + 1], *runs[pos + 1])
                nexts[pos] = nexts[pos + 1]
            else:
                nexts[pos] = pos + 1

        rack = self.rack
        hand_size = self.hand_size
        prune = self.prune
        add = self.found.append
        expand = self.expand
        here = 0  # the anchor searched from
        first = 0  # position of the first new tile

        # What a word from ``first`` to before ``end`` covers, per first and
        # end: (across, red, green, black) for its candidate, in a tuple that
        # completes it, or None when it covers two black squares (R-PLACE-5;
        # one black square also needs the whole hand, checked when found).
        Tail = tuple[bool, int, int, int] | None
        tail_rows: list[list[Tail] | None] = [None] * (n + 1)  # made when first needed

        def tails_from(f: int) -> list[Tail]:
            row: list[Tail] = [None] * (f + 1)
            for end in range(f + 1, n + 1):
                black = blacks[end] - blacks[f]
                row.append(
                    (across, reds[end] - reds[f], greens[end] - greens[f], black)
                    if black < 2
                    else None
                )
            tail_rows[f] = row
            return row

        tails: list[Tail] = []
        start = 0
        green_draws = self.green_draws

        # What a tile on empty square ``pos`` leads to, read once per square
        # instead of once per visit: its cross-check, the board's tiles that
        # follow (letter codes), the next empty square and its cross-check,
        # and the text of each letter followed by those tiles ("." each),
        # played by its tile (upper case) or by a diable (lower case).
        steps = [
            (
                cross[p],
                runs[p],
                nexts[p],
                cross[nexts[p]],
                _followed(UPPER, len(runs[p])),
                _followed(LOWER, len(runs[p])),
            )
            for p in range(n + 1)
        ]

        def finish(end: int, text: str, placed: int) -> None:
            """Record the word ``text``, which ends before square ``end`` (the
            lone tiles; ``extend`` records its words inline)."""
            if placed == 1 and not across:
                return  # a single tile: found once, in the across pass
            tail = (tail_rows[first] or tails_from(first))[end]
            if tail is None or (tail[3] and not self._black_allowed(placed, tail[2])):
                return
            self._record(idx[first], step, text, *tail)

        graph = self.dawg.cells  # not ``cells``: the layout's
        choices = _letter_sets
        check_time = self.check_time

        # The letters the hand can still play: by a tile (``tiles``, kept up
        # to date as tiles run out), or any letter while a diable is left.
        tiles = 0
        for code in range(26):
            if rack[code]:
                tiles |= 1 << code

        def extend(pos: int, node: int, info: int, text: str, placed: int, have: int) -> None:
            """Go on from ``node`` (whose INFO cell is ``info``) with a tile on
            empty square ``pos`` and the board's tiles after it; ``text`` so
            far, with ``placed`` tiles; ``have``: the letters the hand can play."""
            nonlocal tiles
            mask, run, nxt, next_mask, letters, diable_letters = steps[pos]
            # The node's letters that the square's cross-check and the hand allow.
            key = info & mask & have
            codes = choices.get(key)
            if codes is None:
                codes = _letters_of(key)
            placed += 1
            # Whether a word ending before ``nxt`` is a move depends on the
            # square and the tiles placed, not on the letter: decided once.
            # A single tile is found once, in the across pass; a black square
            # only with the whole hand (R-PLACE-5).
            tail = tails[nxt]
            if (
                tail is None
                or (placed == 1 and not across)
                or (tail[3] and (placed != hand_size or (tail[2] and green_draws)))
            ):
                records = False
                red = green = black = 0
            else:
                records = True
                _, red, green, black = tail
            # Go on only where the next square takes a letter of the node's
            # that the hand can play (fewer once a last tile is played).
            onwards = next_mask & have
            for code in codes:
                child = graph[node + code]
                if run:
                    for f in run:  # the board's tiles after the square (dead node: stays)
                        child = graph[child + f]
                # The word may end before ``nxt``, or take a letter there.
                child_info = graph[child + INFO]
                if child_info & FINAL:
                    # Played by its tile, or else by a diable (in lower case).
                    word = text + (letters[code] if rack[code] else diable_letters[code])
                    if records:
                        if expand is None:
                            add(_candidate((start, step, word, across, red, green, black)))
                        else:
                            expand(start, step, word, across, red, green, black)
                    if not child_info & onwards:
                        continue
                elif child_info & onwards:
                    word = text + (letters[code] if rack[code] else diable_letters[code])
                else:
                    continue
                # Go on, one tile fewer in the hand.
                count = rack[code]
                if count > 1:
                    rack[code] = count - 1
                    extend(nxt, child, child_info, word, placed, have)
                    rack[code] = count
                elif count:  # its last tile: the letter only by a diable now
                    rack[code] = 0
                    tiles ^= 1 << code
                    extend(nxt, child, child_info, word, placed, have if rack[JOKER] else tiles)
                    tiles ^= 1 << code
                    rack[code] = 1
                else:
                    jokers = rack[JOKER]
                    rack[JOKER] = jokers - 1
                    extend(nxt, child, child_info, word, placed, have if jokers > 1 else tiles)
                    rack[JOKER] = jokers

        def left_part(node: int, info: int, limit: int, text: str, have: int) -> None:
            """Left parts ``text`` and longer, on up to ``limit`` more free squares;
            ``have``: the letters the hand can play."""
            nonlocal first, tails, start, tiles
            if info & anchor_mask and graph[node + right_cell] & right_after:
                first = here - len(text)
                tails = tail_rows[first] or tails_from(first)
                start = idx[first]
                extend(here, node, info, text, len(text), have)
            if not limit:
                return
            if len(text) < 2:
                check_time()
            last = limit == 1  # on the last free square it can only go on to the anchor
            key = info & have
            codes = choices.get(key)
            if codes is None:
                codes = _letters_of(key)
            for code in codes:
                # A branch is worth walking only if its words may end as a word
                # from this anchor must (``endings``), and may hold after the
                # anchor's letter the tiles that follow it (``later``), the
                # first right after it on the last free square.
                child = graph[node + code]
                if not graph[child + ENDS] & endings:
                    continue
                if later and graph[child + AFTER] & later != later:
                    continue
                child_info = graph[child + INFO]
                if last and not (
                    child_info & anchor_mask and graph[child + right_cell] & right_after
                ):
                    continue
                count = rack[code]
                if count > 1:
                    rack[code] = count - 1
                    left_part(child, child_info, limit - 1, text + UPPER[code], have)
                    rack[code] = count
                elif count:
                    rack[code] = 0
                    tiles ^= 1 << code
                    below = have if rack[JOKER] else tiles
                    left_part(child, child_info, limit - 1, text + UPPER[code], below)
                    tiles ^= 1 << code
                    rack[code] = 1
                else:
                    jokers = rack[JOKER]
                    rack[JOKER] = jokers - 1
                    below = have if jokers > 1 else tiles
                    left_part(child, child_info, limit - 1, text + LOWER[code], below)
                    rack[JOKER] = jokers

        for a in range(n):
            if not anchor[a] or not cross[a]:
                # No letter fits the perpendicular word here: no move covers
                # this square, and a left part would be enumerated for nothing.
                continue
            check_time()
            here = first = a
            tails = tail_rows[a] or tails_from(a)
            start = idx[a]
            anchor_mask = cross[a]
            if a > 0 and fixed[a - 1] >= 0:
                # The tiles already left of the anchor start the word.
                s = a - 1
                while s > 0 and fixed[s - 1] >= 0:
                    s -= 1
                node = ROOT
                for p in range(s, a):
                    node = graph[node + fixed[p]]
                info = graph[node + INFO]
                if info:  # not the dead node
                    extend(a, node, info, "", 0, ALL_LETTERS if rack[JOKER] else tiles)
                continue
            if across and fixed[a + 1] < 0:
                # A lone tile with nothing left or right: its only word is
                # the perpendicular one, which the cross-check decided.
                mask = anchor_mask
                if mask != ALL_LETTERS:
                    for code in range(26):
                        if (mask >> code) & 1:
                            if rack[code]:
                                finish(a + 1, UPPER[code], 1)
                            elif rack[JOKER]:
                                finish(a + 1, LOWER[code], 1)
            # The letters a word from this anchor may end with: few when it must
            # stop at the edge or before a square no letter fits ("…xD").
            endings = 0
            p = a
            while cross[p]:
                endings |= (1 << runs[p][-1]) if runs[p] else cross[p]
                p = nexts[p]
            limit = 0
            p = a - 1
            while p >= 0 and fixed[p] < 0 and cross[p] and not anchor[p]:
                limit += 1
                p -= 1
            # The board's tiles after the anchor come after the next letter of a
            # left part (AFTER), the first right after it once it ends (SECOND;
            # without tiles, any letter below: a test left parts pass anyway).
            later = 0
            for code in runs[a]:
                later |= 1 << code
            if runs[a]:
                right_cell, right_after = SECOND, 1 << runs[a][0]
            else:
                right_cell, right_after = ENDS, ALL_LETTERS
            if not prune:
                endings, later, right_cell, right_after = ALL_LETTERS, 0, ENDS, ALL_LETTERS
            have = ALL_LETTERS if rack[JOKER] else tiles
            left_part(ROOT, graph[ROOT + INFO], min(limit, hand_size - 1), "", have)
