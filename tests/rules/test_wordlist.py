"""The French word list: content, folding, committed files, loading."""

from __future__ import annotations

import hashlib
import json
import lzma
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rules import wordlist, wordlist_build
from rules.wordlist import DATA_DIR, SHAPE, fold


@pytest.fixture(autouse=True)
def embedded_defaults() -> Iterator[None]:
    """Shadow the suite's autouse Django-settings fixture: the word list needs no Django,
    so this module also runs with ``-p no:django``."""
    yield


@pytest.fixture(scope="module")
def words() -> wordlist.WordList:
    return wordlist.load("fr")


@pytest.fixture(scope="module")
def text() -> bytes:
    return lzma.decompress((DATA_DIR / "fr-1.txt.xz").read_bytes())


@pytest.fixture(scope="module")
def metadata() -> dict[str, object]:
    return json.loads((DATA_DIR / "fr-1.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "word",
    [
        "MANGEAIENT",
        "CHEVAUX",
        "ETIONS",
        "QAT",
        "KIWIS",
        "OGNON",
        "OIGNON",
        "ELEVES",
        "COEUR",
        "CA",
        "AIMASSIONS",
        "ENVI",
        "ZUT",
        "SEIZE",
        "PARIS",  # plural of "pari"
    ],
)
def test_inflected_and_grammatical_forms_are_present(words: wordlist.WordList, word: str) -> None:
    assert word in words


@pytest.mark.parametrize(
    "word",
    [
        "CHATZ",
        "XQZ",
        "MANGEAIENTS",
        "MARSEILLE",  # city
        "BRUXELLES",  # city
        "CHIRAC",  # surname
        "SEBASTIEN",  # first name
        "KM",  # unit symbol
        "KG",
        "ANTI",  # prefix
        "JUSQU",  # elided form
        "ETC",  # abbreviation
        "",
        "A",
        "eleve",  # the list is upper case only
        "ÉLÈVE",
    ],
)
def test_non_words_are_absent(words: wordlist.WordList, word: str) -> None:
    assert word not in words


def test_non_strings_are_absent(words: wordlist.WordList) -> None:
    assert 42 not in words
    assert None not in words


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("élève", "ELEVE"),
        ("cœur", "COEUR"),
        ("Œuvre", "OEUVRE"),
        ("Æ", "AE"),
        ("nævus", "NAEVUS"),
        ("garçon", "GARCON"),
        ("naïf", "NAIF"),
        ("  Noël ", "NOEL"),
        ("porte-clé", "PORTE-CLE"),
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_check_folds_then_looks_up() -> None:
    result = wordlist.check(" Élève ")
    assert (result.folded, result.playable, result.list_id) == ("ELEVE", True, "fr-1")
    assert wordlist.check("cœurs")
    assert not wordlist.check("porte-clé")
    assert not wordlist.check("Marseille")
    assert wordlist.check("").folded == ""
    assert not wordlist.check("")


def test_every_entry_has_the_playable_shape(text: bytes) -> None:
    lines = text.decode("ascii").split("\n")
    assert lines[-1] == ""  # ends with a newline
    entries = lines[:-1]
    assert all(SHAPE.fullmatch(word) for word in entries)
    assert entries == sorted(set(entries))


def test_committed_list_matches_its_metadata(text: bytes, metadata: dict[str, object]) -> None:
    assert metadata["id"] == "fr-1"
    assert metadata["licence"] == "MPL-2.0"
    assert hashlib.sha256(text).hexdigest() == metadata["sha256"]
    assert text.count(b"\n") == metadata["count"]
    trie_bytes = (DATA_DIR / str(metadata["trie_file"])).read_bytes()
    assert hashlib.sha256(trie_bytes).hexdigest() == metadata["trie_sha256"]
    overrides = (DATA_DIR / str(metadata["overrides_file"])).read_bytes()
    assert hashlib.sha256(overrides).hexdigest() == metadata["overrides_sha256"]


def test_trie_holds_exactly_the_text(words: wordlist.WordList, text: bytes) -> None:
    assert len(words) == text.count(b"\n")
    assert "".join(f"{word}\n" for word in sorted(words)).encode("ascii") == text


def test_overrides_are_applied(words: wordlist.WordList) -> None:
    overrides = wordlist_build.read_overrides(DATA_DIR / "fr-1.overrides.txt")
    assert overrides
    for override in overrides:
        assert (override.word in words) is override.add, override
    for word in ("AA", "ZO", "KA", "UN"):
        assert word in words
    for word in ("CF", "VS", "LN", "PT", "AE", "OE"):
        assert word not in words


def test_two_letter_words_were_all_reviewed(words: wordlist.WordList) -> None:
    path = DATA_DIR / "fr-1.overrides.txt"
    comments = " ".join(
        line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("#")
    )
    reviewed = {token for token in comments.split() if SHAPE.fullmatch(token)}
    reviewed |= {override.word for override in wordlist_build.read_overrides(path)}
    two_letters = [word for word in words if len(word) == 2]
    assert 60 < len(two_letters) < 100
    assert set(two_letters) <= reviewed


def test_apply_overrides_rejects_stale_lines() -> None:
    add = wordlist_build.Override(add=True, word="AB", reason="r")
    remove = wordlist_build.Override(add=False, word="ZZ", reason="r")
    assert wordlist_build.apply_overrides({"AA"}, [add]) == {"AA", "AB"}
    with pytest.raises(wordlist_build.BuildError):
        wordlist_build.apply_overrides({"AB"}, [add])
    with pytest.raises(wordlist_build.BuildError):
        wordlist_build.apply_overrides({"AA"}, [remove])


def test_malformed_override_line_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "x.overrides.txt"
    path.write_text("+ab lower case\n", encoding="utf-8")
    with pytest.raises(wordlist_build.BuildError, match=r"x\.overrides\.txt:1"):
        wordlist_build.read_overrides(path)


@pytest.mark.parametrize(
    ("form", "tags", "playable"),
    [
        ("mangeaient", ":V1_it_q_zz:Iq:3p/*", True),
        ("chevaux", ":N:m:p/*", True),
        ("envi", ":ÉW/*", True),
        ("zut", ":J/*", True),
        ("Marseille", ":MP#C:e:i/*", False),
        ("sébastien", ":M1:m:i/*", False),
        ("km", ":N:m:i;S/*", False),
        ("anti", ":Zp/M", False),
        ("be", ":Zs/*", False),
        ("jusqu", ":G:R:F/*", False),
        ("eV", ":N:m:i;S/*", False),
    ],
)
def test_entry_filter(form: str, tags: str, playable: bool) -> None:
    assert wordlist_build.entry_is_playable(form, tags) is playable


def test_select_words_folds_and_filters() -> None:
    entries = [
        ("élèves", ":N:e:p/*"),
        ("cœur", ":N:m:s/*"),
        ("porte-clé", ":N:m:s/*"),
        ("anticonstitutionnellement", ":W/*"),
        ("a", ":G:R/*"),
        ("Paris", ":MP#C:e:i/*"),
    ]
    assert wordlist_build.select_words(entries) == {"ELEVES", "COEUR"}


def test_render_is_canonical() -> None:
    assert wordlist_build.render({"B", "AB", "A"}) == b"A\nAB\nB\n"


def test_build_fails_clearly_without_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "grammalecte", None)
    monkeypatch.setattr(wordlist_build, "DEBIAN_DIST_PACKAGES", ("/nonexistent",))
    with pytest.raises(wordlist_build.BuildError, match="apt-get install python3-grammalecte"):
        wordlist_build.import_graphspell()


def test_fr_alias_resolves_to_fr_1(words: wordlist.WordList) -> None:
    assert wordlist.resolve("fr") == "fr-1"
    assert words.id == "fr-1"
    assert "fr-1" in wordlist.SHIPPED


def test_every_shipped_id_is_loadable() -> None:
    for list_id in wordlist.SHIPPED:
        loaded = wordlist.load(list_id)
        assert loaded.id == list_id
        assert len(loaded) == wordlist.read_metadata(list_id)["count"]


@pytest.mark.parametrize("list_id", ["en", "fr-0", "fr-99", "FR", ""])
def test_unknown_id_is_rejected(list_id: str) -> None:
    with pytest.raises(wordlist.UnknownWordListError, match="unknown word list"):
        wordlist.load(list_id)


def test_load_is_cached() -> None:
    # Not the module's fixture: wordlist.bench (tested here too) reads the list afresh,
    # so in some orders the fixture holds the list read before it.
    first = wordlist.load("fr")
    assert wordlist.load("fr-1") is first
    assert wordlist.load() is first


def test_prefix_queries(words: wordlist.WordList) -> None:
    assert words.has_keys_with_prefix("MANGEAI")
    assert not words.has_keys_with_prefix("XQZ")
    assert "MANGEAIENT" in words.keys("MANGEAI")
    assert all(word.startswith("CHEVA") for word in words.iterkeys("CHEVA"))


def test_corrupt_trie_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    real = wordlist.read_metadata

    def tampered(list_id: str) -> dict[str, object]:
        return {**real(list_id), "trie_sha256": "0" * 64}

    monkeypatch.setattr(wordlist, "read_metadata", tampered)
    with pytest.raises(wordlist.CorruptWordListError):
        wordlist._read("fr-1")


def test_bench_reports_figures() -> None:
    figures: dict[str, Any] = wordlist.bench("fr", lookups=2_000)
    assert figures["list_id"] == "fr-1"
    assert figures["word_count"] == len(wordlist.load("fr"))
    assert figures["load_seconds"] < 0.5
    assert figures["extra_rss_bytes"] < 15 * 2**20
    assert figures["lookups_per_second"] > 0
