"""The DAWG file of a shipped list: the same search as the DAWG built in memory,
rebuilt the same byte for byte, and never used when it is not the list's."""

from __future__ import annotations

import logging
import random
import struct
from pathlib import Path

import pytest

from rules import deal, make_config, new_game, view, wordlist
from rules.dawg import Dawg, dawg_for, pack
from rules.dawg_file import (
    FORMAT_VERSION,
    HEADER_SIZE,
    DawgFileError,
    StaleDawgError,
    build,
    check,
    encode,
    load,
    main,
    open_checked,
    path_of,
)
from rules.engine import apply
from rules.movegen import _generate, generate, position
from rules.randomplay import find_move

pytestmark = pytest.mark.slow  # seconds of CPU each: run first (tests/conftest.py)

LIST = wordlist.resolve("fr")


@pytest.fixture(scope="module")
def french_cells():
    """The French list packed in memory, as a build would write it (~3 s, once)."""
    return pack(wordlist.load(LIST))


@pytest.fixture(scope="module")
def built(tmp_path_factory, french_cells) -> Path:
    """A directory holding a freshly built French DAWG file."""
    folder = tmp_path_factory.mktemp("dawg")
    cells, nodes, words = french_cells
    sha = bytes.fromhex(str(wordlist.read_metadata(LIST)["sha256"]))
    path_of(LIST, folder).write_bytes(encode(cells, nodes, words, LIST, sha))
    return folder


def _positions(count: int) -> list:
    """Mid-game French positions of both modes, reached by random legal moves."""
    found = []
    for seed in range(count):
        config = make_config("marque" if seed % 2 else "sans-marque", words="fr")
        rng = random.Random(seed)
        hands, reserve = deal(config, 2, rng)
        state = new_game(config, hands, reserve)
        for _ in range(8 + seed % 10):
            state, _ = apply(state, find_move(state, rng), rng=rng)
            if state.over:
                break
        if not state.over:
            found.append(position(view(state, state.turn)))
    return found


def test_the_mapped_file_gives_the_same_moves_as_the_dawg_built_in_memory(built, french_cells):
    mapped = open_checked(LIST, built)
    in_memory = Dawg(*french_cells)
    assert (mapped.node_count, mapped.word_count) == (
        in_memory.node_count,
        len(wordlist.load(LIST)),
    )
    assert isinstance(mapped.cells, memoryview) and mapped.cells.readonly
    assert mapped.cells == memoryview(in_memory.cells)  # every cell, as packed
    positions = _positions(24)
    assert len(positions) >= 20
    found = 0
    for pos in positions:
        # The diables as the site searches them (expanded lazily): every placement of
        # a 40-tile hand with its diables expanded runs to millions, for the same walk.
        moves = _generate(pos, dawg=mapped, expand=False)
        assert moves == _generate(pos, dawg=in_memory, expand=False)  # same moves, same order
        found += len(moves)
    assert found > 1000
    words = wordlist.load(LIST)
    for word in random.Random(3).sample(list(words), 2000):
        assert word in mapped
        for other in (word[:-1], word + "S", word[::-1]):  # mostly not words
            assert (other in mapped) == (len(other) >= 2 and other in words)


def test_a_shipped_list_searches_on_its_mapped_file():
    words = wordlist.load(LIST)
    dawg = dawg_for(words)
    assert isinstance(dawg.cells, memoryview)  # the file, not a copy in this process
    assert dawg.word_count == len(words)
    pos = _positions(2)[0]
    assert generate(pos) == _generate(pos, dawg=dawg)


def test_the_build_is_reproducible_byte_for_byte(tmp_path, built):
    """A build from the list, beside the one ``built`` packed apart: the same bytes."""
    assert build(LIST, tmp_path).read_bytes() == path_of(LIST, built).read_bytes()
    assert list(tmp_path.iterdir()) == [path_of(LIST, tmp_path)]  # no temporary file left behind


def _valid(built: Path) -> bytes:
    return path_of(LIST, built).read_bytes()


def _with_header(data: bytes, **fields: object) -> bytes:
    """``data`` with some header fields replaced (the cells left as they are)."""
    layout = struct.Struct("<8sIIIIII32s32s32s")
    names = ["magic", "version", "header", "stride", "nodes", "words", "cells", "id", "sha", "sum"]
    values = dict(zip(names, layout.unpack_from(data), strict=True))
    values.update(fields)
    return layout.pack(*values.values()) + data[HEADER_SIZE:]


@pytest.mark.parametrize(
    ("spoil", "reason"),
    [
        (lambda d: _with_header(d, version=FORMAT_VERSION + 1), "format version"),
        (lambda d: _with_header(d, id=b"fr-0"), "built for the word list 'fr-0'"),
        (lambda d: _with_header(d, sha=bytes(32)), "another text of fr-1"),
        (lambda d: _with_header(d, magic=b"NOTADAWG"), "not a Diamino DAWG file"),
        (lambda d: d[:-4], "bytes, expected"),
        (lambda d: d[:100], "truncated"),
        (lambda d: b"", "empty"),
        (lambda d: d[:5000] + bytes([d[5000] ^ 1]) + d[5001:], "corrupt"),
    ],
)
def test_a_stale_or_corrupt_file_is_never_used_and_says_why(tmp_path, built, spoil, reason):
    path_of(LIST, tmp_path).write_bytes(spoil(_valid(built)))
    with pytest.raises(StaleDawgError, match=reason):
        open_checked(LIST, tmp_path)


def test_a_stale_file_is_rebuilt_in_its_place_on_first_use(tmp_path, built, caplog):
    path = path_of(LIST, tmp_path)
    path.write_bytes(_with_header(_valid(built), version=FORMAT_VERSION + 1))
    with caplog.at_level(logging.WARNING, logger="rules.dawg_file"):
        dawg = load(LIST, tmp_path)
    assert f"is not used (format version {FORMAT_VERSION + 1}, this code reads" in caplog.text
    assert "rebuilding" in caplog.text
    assert path.read_bytes() == _valid(built)
    assert "MAISON" in dawg and "MAISOM" not in dawg


def test_a_missing_file_is_built_on_first_use(tmp_path, built, caplog):
    with caplog.at_level(logging.WARNING, logger="rules.dawg_file"):
        dawg = load(LIST, tmp_path)
    assert "building" in caplog.text and "make dawg" in caplog.text
    assert path_of(LIST, tmp_path).read_bytes() == _valid(built)
    assert "MAISON" in dawg and dawg.word_count == len(wordlist.load(LIST))


def test_a_file_that_cannot_be_rebuilt_is_refused_with_the_command_to_run(tmp_path):
    nowhere = tmp_path / "not-a-folder"  # nothing can be written there, even by root
    with pytest.raises(
        DawgFileError, match=r"cannot be written .*python -m rules\.dawg_file build"
    ):
        load(LIST, nowhere)


def test_the_command_line_checks_and_builds_the_installed_file(capsys):
    dawg_for(wordlist.load(LIST))  # built now if it was missing
    assert main(["check", "--id", "fr"]) == 0
    assert "ok, 406,162 words" in capsys.readouterr().out
    assert main(["check", "--id", "xx-9"]) == 1
    assert "unknown word list 'xx-9'" in capsys.readouterr().err


def test_check_reports_the_header_fields_it_read(built):
    data = _valid(built)
    nodes, words = check(data, LIST, bytes.fromhex(str(wordlist.read_metadata(LIST)["sha256"])))
    assert words == len(wordlist.load(LIST))
    assert len(data) == HEADER_SIZE + 4 * 30 * (nodes + 1)
