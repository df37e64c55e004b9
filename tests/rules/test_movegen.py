"""The move generator finds exactly the placements the engine accepts.

The main property: on small random boards, hands and word lists, the set of
generated placements equals the set found by brute force (every line, every
choice of squares, every arrangement of the hand, every letter for a diable,
each judged by ``check_placement``).
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    GameState,
    IllegalMove,
    Layout,
    Move,
    Place,
    WordSet,
    apply,
    deal,
    make_config,
    new_game,
    view,
)
from rules.dawg import (
    AFTER,
    ALL_LETTERS,
    DEAD,
    ENDS,
    FINAL,
    INFO,
    SECOND,
    STRIDE,
    Dawg,
    dawg_for,
)
from rules.engine import returns_owed
from rules.material import DIABLE
from rules.movegen import (
    Candidate,
    Position,
    _generate,
    expand,
    generate,
    legal_placements,
    position,
    words,
)
from rules.placement import check_placement
from rules.randomplay import find_move
from rules.state import EMPTY
from tests.rules.helpers import SMALL, WORDS, put, start

pytestmark = pytest.mark.slow  # seconds of CPU each: run first (tests/conftest.py)

# Words over few letters, so that brute force over a diable's letters is cheap
# and random boards fill with crossings.
BASE_WORDS = [
    "AS", "TA", "TE", "ET", "ES", "SE", "RA", "AR", "RE", "ER", "SA", "AT",
    "ART", "ARE", "RAT", "TAS", "SET", "EST", "TES", "RAS", "ERE", "ETE", "TRES",
    "RATS", "ARTS", "TARE", "RATE", "TAR", "ERS", "SERA", "ETAT", "TETE",
    "RESTA", "TERRE", "ETES", "TARES", "RATES", "ASTER", "STAR", "TATA", "SEST",
]  # fmt: skip
LETTERS = "AERST"


def brute_force(state: GameState, player: int) -> set[frozenset[tuple[int, str]]]:
    """Every placement ``check_placement`` accepts, found the slow way."""
    layout = state.config.layout
    width, height = layout.width, layout.height
    hand = state.hands[player]
    words = state.config.words
    assert isinstance(words, WordSet)  # positions() plays on a WordSet
    letters = sorted({c for word in words.words for c in word})
    lines = [[r * width + c for c in range(width)] for r in range(height)]
    lines += [[c + r * width for r in range(height)] for c in range(width)]
    found: set[frozenset[tuple[int, str]]] = set()
    for line in lines:
        empties = [i for i in line if state.board[i] == EMPTY]
        for k in range(1, len(hand) + 1):
            arrangements = set(itertools.permutations(hand, k))
            for squares in itertools.combinations(empties, k):
                for tiles in arrangements:
                    options = [[t] if t != "?" else [x.lower() for x in letters] for t in tiles]
                    for chars in itertools.product(*options):
                        pairs = tuple(zip(squares, chars, strict=True))
                        move = Place(player, tuple((layout.name_of(i), c) for i, c in pairs))
                        try:
                            check_placement(state, move)
                        except IllegalMove:
                            continue
                        found.add(frozenset(pairs))
    return found


def generated(state: GameState, player: int) -> list[Candidate]:
    return generate(position(view(state, player)))


@st.composite
def layouts(draw: st.DrawFn) -> Layout:
    width = draw(st.integers(3, 6))
    height = draw(st.integers(3, 6))
    kinds = st.sampled_from("......##GR")
    cells = [draw(kinds) for _ in range(width * height)]
    cells[draw(st.integers(0, width * height - 1))] = "D"
    rows = ["".join(cells[r * width : (r + 1) * width]) for r in range(height)]
    return Layout.from_rows(rows)


@st.composite
def positions(draw: st.DrawFn) -> GameState:
    """A small board reached by random legal placements, then a fresh hand."""
    words = WordSet(draw(st.sets(st.sampled_from(BASE_WORDS), min_size=12)))
    layout = draw(layouts())
    mode = draw(st.sampled_from(["marque", "sans-marque"]))
    config = make_config(mode, layout, "classique", words)
    state = new_game(config, [tuple("AEERSTT"), tuple("AERST")])
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 5))):
        dealt = tuple(rng.choice(LETTERS) for _ in range(rng.randint(2, 5)))
        state = replace(state, hands=(dealt, state.hands[1]), turn=0)
        moves = generated(state, 0)
        if not moves:
            continue
        tiles = rng.choice(moves).tiles
        board = list(state.board)
        for index, char in tiles:
            board[index] = char
        state = replace(state, board="".join(board), started=True)
    hand = draw(st.lists(st.sampled_from(LETTERS + "??"), min_size=1, max_size=4))
    if hand.count("?") > 1 and len(hand) > 2:
        hand.remove("?")  # two diables and more tiles: too slow for brute force
    reserve = ("A",) * draw(st.sampled_from([0, 0, 1, 5]))
    return replace(state, hands=(tuple(hand), state.hands[1]), reserve=reserve, turn=0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=positions())
def test_the_generator_finds_exactly_the_placements_brute_force_finds(state):
    moves = generated(state, 0)
    as_sets = [frozenset(m.tiles) for m in moves]
    assert len(as_sets) == len(set(as_sets)), "a placement was generated twice"
    assert set(as_sets) == brute_force(state, 0)
    # The diables expanded lazily give the same list, in the same order.
    pos = position(view(state, 0))
    assert expand(pos, words(pos)) == moves


# --- focused cases on the 7x7 test board -----------------------------------------------


def test_r_place_2_first_words_start_on_depart_rightwards_or_down():
    state = start("marque", ("CHATSEL", "ETAROIS"), layout=SMALL)
    moves = generated(state, 0)
    depart = SMALL.start
    for move in moves:
        indexes = [i for i, _ in move.tiles]
        assert min(indexes) == depart and 2 <= len(indexes) <= 8
    words = {"".join(c for _, c in m.tiles) for m in moves}
    # D4 has four squares to the edge, both ways; G4 is a green devil.
    assert {"CHAT", "LES", "TAS"} <= words and "CHATS" not in words
    assert all(m.green == 1 for m in moves if m.size == 4 and m.across)


def test_r_place_9_a_diable_is_tried_as_every_fitting_letter():
    state = put(start("marque", ("?", "ETAROIS")), "H8", True, "CHAT")
    singles = {m.tiles for m in generated(state, 0)}
    layout = state.config.layout
    assert ((layout.index("L8"), "s"),) in singles  # CHATs
    assert ((layout.index("K9"), "e"),) in singles  # TE down
    assert all(len(t) == 1 and t[0][1].islower() for t in singles)
    assert set(map(frozenset, singles)) == brute_force(state, 0)


def test_r_place_5_a_black_square_only_on_the_move_that_empties_the_hand_for_good():
    # SMALL: Départ D4, black square D6. L on D4; E on D5 makes LE, E S makes LES.
    state = put(start("marque", ("ES", "ETAROIS"), layout=SMALL), "D4", False, "L")
    black = SMALL.index("D6")
    with_reserve = generated(state, 0)
    assert not any(black in dict(m.tiles) for m in with_reserve)
    out = [m for m in generated(replace(state, reserve=()), 0) if black in dict(m.tiles)]
    assert [(m.size, m.black) for m in out] == [(2, 1)]
    sans = put(start("sans-marque", ("ES", "ETAROIS"), layout=SMALL), "D4", False, "L")
    assert any(black in dict(m.tiles) for m in generated(sans, 0))  # reserve or not
    assert not any(
        black in dict(m.tiles)
        for m in generated(replace(sans, hands=(("E", "S", "A"), sans.hands[1])), 0)
    )


def test_r_place_5_sans_marque_no_black_square_when_a_green_devil_draws_a_tile():
    # S on the green devil D3, A already on D4, L, E on the black square D6: SALE.
    words = WordSet(["SALE", "SA"])
    base = put(start("sans-marque", ("SLE", "ETAROIS"), SMALL, words), "D4", False, "A")
    sale = {(SMALL.index("D3"), "S"), (SMALL.index("D5"), "L"), (SMALL.index("D6"), "E")}
    with_reserve = {frozenset(m.tiles) for m in generated(base, 0)}
    without = {frozenset(m.tiles): m for m in generated(replace(base, reserve=()), 0)}
    assert frozenset(sale) not in with_reserve
    assert (without[frozenset(sale)].green, without[frozenset(sale)].black) == (1, 1)
    assert with_reserve == brute_force(base, 0)


def test_devils_covered_are_counted():
    state = put(start("sans-marque", ("SE", "ETAROIS"), layout=SMALL), "E7", True, "TA")
    moves = {m.tiles: m for m in generated(state, 0)}
    tas = moves[((SMALL.index("G7"), "S"),)]
    assert (tas.red, tas.green, tas.black) == (1, 0, 0)


# --- the real French list ------------------------------------------------------------


@pytest.fixture(scope="module")
def french():
    return make_config("marque", words="fr")


def _midgame(config, seed: int, placements: int = 10) -> GameState:
    """Random placements (diables kept: it is quicker) from a 2-player deal."""
    rng = random.Random(seed)
    hands, reserve = deal(config, 2, rng)
    state = new_game(config, hands, reserve)
    done = 0
    while done < placements and not state.over:
        place: Move
        moves = generate(position(view(state, state.turn)), diables=0)
        if moves:
            move = rng.choice(moves)
            owed = returns_owed(state, move.place(config.layout, state.turn))
            rest = list(state.hands[state.turn])
            for tile in move.used:
                rest.remove(tile)
            place = move.place(config.layout, state.turn, "".join(rest[:owed]))
            done += 1
        else:
            place = find_move(state, rng)
        state, _ = apply(state, place, rng=rng)
    return state


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_generated_french_placement_is_accepted_and_find_move_finds_no_other(mode, seed):
    config = make_config(mode, words="fr")
    state = _midgame(config, seed)
    player = state.turn
    moves = generated(state, player)
    keys = {frozenset(m.tiles) for m in moves}
    assert len(keys) == len(moves)
    rng = random.Random(seed)
    for move in rng.sample(moves, min(300, len(moves))):
        placement = check_placement(state, move.place(config.layout, player))
        assert (len(placement.red), len(placement.green), len(placement.black)) == (
            move.red,
            move.green,
            move.black,
        )
    layout = config.layout
    for _ in range(200):  # an independent random search finds nothing the generator missed
        found = find_move(state, rng)
        if isinstance(found, Place):
            assert frozenset((layout.index(sq), c) for sq, c in found.tiles) in keys


@pytest.mark.parametrize(("seed", "letters", "diables"), [(7, 39, 1), (8, 12, 2)])
def test_pruning_the_left_parts_loses_no_placement_of_a_big_hand(seed, letters, diables):
    # The brute-force test cannot afford big hands and the French list, where
    # left parts are longest and pruning by how words go on (the DAWG's masks)
    # matters most: compare with the same search unpruned, order included.
    config = make_config("sans-marque", words="fr")
    state = _midgame(config, seed)
    pool = [t for hand in state.hands for t in hand if t != DIABLE]
    pool += [t for t in state.reserve if t != DIABLE]
    random.Random(seed).shuffle(pool)
    hand = (*pool[:letters], *(DIABLE,) * diables)
    pos = Position(config, state.board, hand, True, len(pool) - letters)
    pruned = generate(pos)
    assert len(pruned) > 10_000
    assert pruned == _generate(pos, prune=False)
    found = words(pos)
    assert len(found) < len(pruned)  # a diable plays each letter it could: expanded later
    assert expand(pos, found) == pruned
    assert expand(pos, words(pos, diables=0), diables=0) == generate(pos, diables=0)


def test_a_search_past_its_deadline_stops_with_some_of_the_placements():
    config = make_config("sans-marque", words="fr")
    state = _midgame(config, 7)
    pos = position(view(state, state.turn))
    every = generate(pos, diables=0)
    assert every and generate(pos, 0, deadline=time.monotonic() - 1) == []
    some = generate(pos, 0, deadline=time.monotonic() + 0.001)
    assert set(some) <= set(every)


def test_legal_placements_reads_only_the_view(french):
    state = _midgame(french, 5)
    seen = view(state, state.turn)
    places = legal_placements(seen)
    assert places and all(p.player == state.turn for p in places)
    other = 1 - state.turn
    shuffled = replace(
        state,
        reserve=tuple(sorted(state.reserve)),
        hands=tuple(h if i != other else tuple(sorted(h)) for i, h in enumerate(state.hands)),
    )
    assert legal_placements(shuffled, state.turn) == places


def test_the_dawg_holds_exactly_the_words_of_two_letters_or_more():
    dawg = Dawg.of(["AS", "A", "ASSE", "BAS", "zut", "ÉTÉ", "TAS"])
    assert {w for w in ["AS", "ASSE", "BAS", "TAS", "A", "ZUT", "ASS", "", "A1"] if w in dawg} == {
        "AS",
        "ASSE",
        "BAS",
        "TAS",
    }
    # Minimal: BAS and TAS share their A…, every word its final node; 7 nodes, not 11.
    assert (dawg.word_count, dawg.node_count) == (4, 7)
    assert dawg_for(WORDS) is dawg_for(WORDS)
    assert "CHATS" in dawg_for(WORDS)


def test_each_dawg_node_knows_its_letters_and_how_the_words_below_it_go_on():
    words = ["AS", "ASSE", "BAS", "BASE", "TAS", "TAXI", "ZOO"]
    dawg = Dawg.of(words)
    cells = dawg.cells

    def mask(letters):
        return sum(1 << (ord(c) - 65) for c in set(letters))

    for prefix in ["", "A", "AS", "B", "BA", "BAS", "T", "TA", "TAX", "Z", "ZO"]:
        node = dawg.walk(prefix)
        rests = [w[len(prefix) :] for w in words if w.startswith(prefix) and w != prefix]
        info = cells[node + INFO]
        assert info & ALL_LETTERS == mask(rest[0] for rest in rests)
        assert bool(info & FINAL) == (prefix in words)
        assert dawg.letters[info] == tuple(sorted({ord(rest[0]) - 65 for rest in rests}))
        assert cells[node + ENDS] == mask(rest[-1] for rest in rests)
        assert cells[node + SECOND] == mask(rest[1] for rest in rests if len(rest) > 1)
        assert cells[node + AFTER] == mask("".join(rest[1:] for rest in rests))
    assert cells[dawg.walk("TA") + ENDS] == mask("SI")  # TAS, TAXI
    # Off the list, a walk stays on the dead node, which has no letter and ends nothing.
    assert dawg.walk("TAZ") == dawg.walk("QQQQ") == DEAD
    assert [cells[DEAD + k] for k in range(STRIDE)] == [0] * STRIDE
    assert dawg.cross_mask("T", "S") == mask("A") and dawg.cross_mask("Q", "") == 0
