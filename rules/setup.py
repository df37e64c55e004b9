"""Before play: the configuration, who plays first, the deal, the initial state."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rules.dictionary import WordList, get_word_list
from rules.material import DIABLE, Layout, TileSet, load_layout, load_tiles
from rules.state import ACTIVE, EMPTY, MODES, GameConfig, GameState

SANS_MARQUE_DEAL = {2: 40, 3: 32, 4: 24, 5: 18, 6: 16, 7: 14, 8: 12}
MARQUE_DEAL = {2: 12, 3: 12, 4: 12}
FIRST_DRAW_MAX_ROUNDS = 50


def make_config(
    mode: str,
    layout: Layout | str = "classique",
    tiles: TileSet | str = "classique",
    words: WordList | str = "fr",
) -> GameConfig:
    """A GameConfig from objects or built-in names; ValueError if anything is unknown."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (expected 'marque' or 'sans-marque')")
    return GameConfig(
        mode=mode,  # type: ignore[arg-type]
        layout=load_layout(layout) if isinstance(layout, str) else layout,
        tiles=load_tiles(tiles) if isinstance(tiles, str) else tiles,
        words=get_word_list(words) if isinstance(words, str) else words,
    )


def player_counts(mode: str) -> range:
    """How many players ``mode`` allows (R-SETUP-3): 2-4 avec marque, 2-8 sans marque."""
    return range(2, 5) if mode == "marque" else range(2, 9)


def deal_size(mode: str, n_players: int) -> int:
    """Tiles dealt to each player (R-SETUP-4); ValueError for a bad player count."""
    table = MARQUE_DEAL if mode == "marque" else SANS_MARQUE_DEAL
    if mode not in MODES or n_players not in table:
        raise ValueError(
            f"{mode} is played by {player_counts(mode).start} to "
            f"{player_counts(mode).stop - 1} players, not {n_players}"
        )
    return table[n_players]


def deal(
    config: GameConfig, n_players: int, rng: random.Random
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """Shuffle the set with ``rng`` and deal (R-SETUP-4): ``(hands, reserve)``.

    Hand 0 is the first player's (rotate seats so the first player sits first).
    """
    size = deal_size(config.mode, n_players)
    bag = config.tiles.tiles()
    if size * n_players > len(bag):
        raise ValueError(f"the tile set has {len(bag)} tiles, too few to deal {size} each")
    rng.shuffle(bag)
    hands = tuple(tuple(bag[i * size : (i + 1) * size]) for i in range(n_players))
    return hands, tuple(bag[size * n_players :])


def new_game(
    config: GameConfig,
    hands: Sequence[Sequence[str]],
    reserve: Sequence[str] | None = None,
) -> GameState:
    """The initial state: seat 0 moves first.

    ``hands`` are tile characters (strings or tuples, ``?`` for a diable).
    ``reserve`` is in draw order, top first; when None it is the set minus the
    hands (in the set's fixed order). Together they must be exactly the tile
    set. The size of each hand is not checked against R-SETUP-4, so variants
    and tests may deal differently; ``deal`` follows the rule.
    """
    n = len(hands)
    if n not in player_counts(config.mode):
        deal_size(config.mode, n)  # raises with the message
    hand_tuples = tuple(tuple(hand) for hand in hands)
    counts = config.tiles.counts
    dealt = Counter(t for hand in hand_tuples for t in hand)
    for tile in dealt:
        if tile not in counts:
            raise ValueError(f"tile {tile!r} in a hand is not in the tile set")
    full = Counter(counts)
    if reserve is None:
        if dealt - full:
            raise ValueError("the hands hold more tiles than the set has")
        rest = full - dealt
        reserve_t = tuple(t for t in sorted(rest) for _ in range(rest[t]))
    else:
        reserve_t = tuple(reserve)
        for tile in set(reserve_t):
            if tile not in counts:
                raise ValueError(f"tile {tile!r} in the reserve is not in the tile set")
        if dealt + Counter(reserve_t) != full:
            raise ValueError("hands and reserve together are not exactly the tile set")
    layout = config.layout
    return GameState(
        config=config,
        board=EMPTY * (layout.width * layout.height),
        hands=hand_tuples,
        reserve=reserve_t,
        scores=(0,) * n,
        status=(ACTIVE,) * n,
        turn=0,
        passed=(),
        move_count=0,
        started=False,
    )


@dataclass(frozen=True, slots=True)
class FirstPlayerDraw:
    """The draw for the first player (R-SETUP-1), as shown to the players.

    ``rounds``: each round's draws as ``(seat, tile)``; later rounds only hold
    the seats that tied for lowest or drew a diable. ``first``: the winner.
    """

    rounds: tuple[tuple[tuple[int, str], ...], ...]
    first: int


def draw_first_player(tiles: TileSet, n_players: int, rng: random.Random) -> FirstPlayerDraw:
    """Each player draws a tile; the lowest letter plays first (R-SETUP-1).

    Players tied for lowest, and those who drew a diable, draw again among
    themselves; every round draws from the full, reshuffled set. After
    FIRST_DRAW_MAX_ROUNDS rounds (only possible with a degenerate set) the
    lowest remaining seat plays first.
    """
    if n_players < 1:
        raise ValueError("nobody to draw")
    bag = tiles.tiles()
    if len(bag) < n_players:
        raise ValueError("the tile set has fewer tiles than players")
    seats = list(range(n_players))
    rounds: list[tuple[tuple[int, str], ...]] = []
    while len(rounds) < FIRST_DRAW_MAX_ROUNDS:
        rng.shuffle(bag)
        draws = tuple(zip(seats, bag, strict=False))
        rounds.append(draws)
        letters = [t for _, t in draws if t != DIABLE]
        if letters:
            lowest = min(letters)
            tied = [s for s, t in draws if t == lowest]
            if len(tied) == 1:
                return FirstPlayerDraw(tuple(rounds), tied[0])
            seats = tied + [s for s, t in draws if t == DIABLE]
            seats.sort()
    return FirstPlayerDraw(tuple(rounds), min(seats))


def seat_rotation(first: int, n_players: int) -> tuple[int, ...]:
    """Original seats in engine order: the first player first, then round the table."""
    return tuple((first + k) % n_players for k in range(n_players))
