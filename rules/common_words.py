"""The words a newcomer could know: the débutant's vocabulary.

``<id>.common.txt.xz`` (next to the shipped list, ``rules/data/wordlists/``)
holds the words of the shipped list ``<id>`` whose frequency in everyday
French is at least ``ZIPF`` on wordfreq's Zipf scale (3: about once per
million words, e.g. "CHAISE", "MOULIN"; the rare inflections and technical
words of the full list fall below). Sorted, upper-case ASCII, one per line,
folded like the list (``rules.wordlist.fold``: "été" → "ETE"); a folded form
counts with the frequency of its most frequent spelling.

The file is built once, at build time, by ``make common-words``
(``python -m rules.common_words build``), which needs the ``wordfreq``
package (``.venv/bin/pip install wordfreq``); the site and the players only
read the committed file, so nothing at run time depends on wordfreq.

Command line::

    python -m rules.common_words build [--id fr-1]   # needs wordfreq
    python -m rules.common_words check [--id fr-1]   # every common word is in the list
"""

from __future__ import annotations

import argparse
import importlib
import lzma
import sys
from functools import cache
from pathlib import Path

from rules.dictionary import WordList
from rules.wordlist import DATA_DIR, SHAPE, SHIPPED, fold, load, resolve

ZIPF = 3.0
"""Least wordfreq Zipf frequency (log10 of uses per billion words) of a common word."""


def path_of(list_id: str) -> Path:
    """The common words' file of the shipped list ``list_id``."""
    return DATA_DIR / f"{resolve(list_id)}.common.txt.xz"


@cache
def common_words(list_id: str = "fr") -> frozenset[str]:
    """The common words of the shipped list ``list_id`` (a few tens of thousands).

    Read once per process (about 0.1 s, a couple of MB): only the débutant uses it.
    """
    with lzma.open(path_of(list_id), "rt", encoding="ascii") as text:
        return frozenset(text.read().split())


def common_in(words: WordList) -> WordList | frozenset[str]:
    """The common words of a game's word list (``GameConfig.words``).

    A shipped list (``fr-1``…) has its file; any other list (a small one made
    for a test, or words a record carries) has no frequencies, so all of its
    words count as common.
    """
    if words.id in SHIPPED:
        return common_words(words.id)
    return words


def build(list_id: str = "fr", zipf: float = ZIPF) -> list[str]:
    """The common words of ``list_id`` from wordfreq's French list, sorted."""
    # Build time only, not a dependency of the site (nor, usually, installed where
    # mypy runs): imported by name, so that its absence is no type error.
    try:
        wordfreq = importlib.import_module("wordfreq")
    except ModuleNotFoundError:
        raise SystemExit(
            "building the common words needs wordfreq: .venv/bin/pip install wordfreq"
        ) from None

    shipped = load(list_id)
    best: dict[str, float] = {}
    for word in wordfreq.iter_wordlist("fr", wordlist="best"):
        folded = fold(word)
        if not SHAPE.fullmatch(folded) or folded not in shipped:
            continue
        freq = wordfreq.zipf_frequency(word, "fr", wordlist="best")
        if freq > best.get(folded, -1.0):
            best[folded] = freq
    return sorted(w for w, f in best.items() if f >= zipf)


def write(words: list[str], list_id: str = "fr") -> None:
    # preset 9 and no timestamp: the same words make the same bytes every time
    data = "".join(f"{w}\n" for w in words).encode("ascii")
    path_of(list_id).write_bytes(lzma.compress(data, preset=9))


def check(list_id: str = "fr") -> list[str]:
    """The common words missing from the shipped list (none when the file is sound)."""
    shipped = load(list_id)
    return sorted(w for w in common_words(list_id) if w not in shipped)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules.common_words")
    parser.add_argument("command", choices=("build", "check"))
    parser.add_argument("--id", default="fr")
    args = parser.parse_args(argv)
    if args.command == "build":
        words = build(args.id)
        write(words, args.id)
        print(f"{len(words)} common words written to {path_of(args.id)}")
        return 0
    missing = check(args.id)
    if missing:
        print(f"{len(missing)} common words are not in the list: {' '.join(missing[:20])}")
        return 1
    print(f"{len(common_words(args.id))} common words, all in the list")
    return 0


if __name__ == "__main__":
    sys.exit(main())
