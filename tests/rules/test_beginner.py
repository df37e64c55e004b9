"""The débutant plays words a newcomer could know: common words only, at most one
diable a move, short words first; the confirmé keeps the whole list."""

from __future__ import annotations

import lzma
import random
from dataclasses import replace
from functools import cache

import pytest

from rules import Exchange, Place, apply, deal, make_config, new_game, view
from rules.common_words import common_in, common_words, path_of
from rules.movegen import generate, position
from rules.placement import check_placement
from rules.strategy import choose_move, formed_words
from rules.wordlist import load
from tests.rules.helpers import WORDS

pytestmark = pytest.mark.slow  # a few seconds of CPU: bot games on the full list


@cache
def config(mode: str):
    return make_config(mode, words="fr")


def words_of(state, move: Place) -> list[str]:
    """The words the engine reads for ``move``, main word first."""
    return [w for w, _, _ in check_placement(state, move).words]


# --- the data file ---------------------------------------------------------------------


def test_every_common_word_is_in_the_shipped_list():
    shipped = load("fr")
    common = common_words("fr")
    assert len(common) > 10_000
    assert all(word in shipped for word in common)


def test_the_common_words_are_everyday_ones_not_rare_ones():
    common = common_words("fr")
    assert {"MAISON", "CHAT", "ETE", "MANGER", "AS", "EN"} <= common  # ETE: "été", folded
    assert not {"ABACULE", "PST", "TSS", "ZYTHUM"} & common
    with lzma.open(path_of("fr"), "rt", encoding="ascii") as text:
        lines = text.read().split("\n")
    assert lines[-1] == "" and lines[:-1] == sorted(set(lines[:-1]))  # sorted, one per line


def test_a_list_without_frequencies_counts_all_its_words_as_common():
    assert common_in(WORDS) is WORDS


# --- the débutant's moves --------------------------------------------------------------


@pytest.mark.parametrize(("mode", "seed"), [("marque", 1), ("marque", 2), ("sans-marque", 3)])
def test_debutant_plays_only_common_words_with_at_most_one_diable(mode, seed):
    rng = random.Random(seed)
    hands, reserve = deal(config(mode), 2, rng)
    state = new_game(config(mode), hands, reserve)
    common = common_words("fr")
    placed = 0
    while not state.over and state.reserve and state.move_count < 24:
        level = "debutant" if state.turn == 0 else "confirme"
        move = choose_move(view(state, state.turn), level, rng)
        if level == "debutant" and isinstance(move, Place):
            placed += 1
            assert all(word in common for word in words_of(state, move)), move
            assert sum(char.islower() for _, char in move.tiles) <= 1, move
        state, _ = apply(state, move, rng=rng)
    assert placed >= 3


def test_formed_words_are_the_words_the_engine_reads():
    rng = random.Random(5)
    cfg = config("marque")
    hands, reserve = deal(cfg, 2, rng)
    state = new_game(cfg, hands, reserve)
    checked = 0
    while state.move_count < 12:
        pos = position(state)
        for cand in rng.sample(generate(pos), 20) if generate(pos) else []:
            move = cand.place(cfg.layout, state.turn)
            assert sorted(formed_words(state.board, cfg.layout.width, cand)) == sorted(
                words_of(state, move)
            )
            checked += 1
        state, _ = apply(state, choose_move(view(state, state.turn), "confirme", rng), rng=rng)
    assert checked > 100


def uncommon_only():
    """Sans marque, a first move whose only words are rare (PST): worth playing to
    shed tiles, but no newcomer's word."""
    return new_game(config("sans-marque"), [tuple("TDSPD"), tuple("EA")])


def test_confirme_plays_a_rare_word_the_debutant_does_not():
    state = uncommon_only()
    confirme = choose_move(view(state, 0), "confirme")
    assert isinstance(confirme, Place)
    assert words_of(state, confirme) == ["PST"]
    debutant = choose_move(view(state, 0), "debutant", random.Random(0))
    assert isinstance(debutant, Exchange)  # knows no word: gives back its heaviest tiles


def test_with_an_empty_reserve_the_debutant_plays_a_rare_word_rather_than_pass():
    state = replace(uncommon_only(), reserve=())
    move = choose_move(view(state, 0), "debutant", random.Random(0))
    assert isinstance(move, Place)
    assert words_of(state, move) == ["PST"]


def test_debutant_plays_shorter_words_than_the_confirme():
    lengths: dict[str, list[int]] = {"debutant": [], "confirme": []}
    for seed in (11, 12):
        rng = random.Random(seed)
        hands, reserve = deal(config("marque"), 2, rng)
        state = new_game(config("marque"), hands, reserve)
        levels = ("debutant", "confirme") if seed % 2 else ("confirme", "debutant")
        while not state.over and state.move_count < 30:
            level = levels[state.turn]
            move = choose_move(view(state, state.turn), level, rng)
            if isinstance(move, Place):
                lengths[level].append(len(words_of(state, move)[0]))
            state, _ = apply(state, move, rng=rng)
    mean = {level: sum(v) / len(v) for level, v in lengths.items()}
    assert mean["debutant"] < mean["confirme"]
