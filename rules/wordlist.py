"""Diamino's French word lists: folding, loading and lookup.

Each shipped list has an immutable id (``fr-1``…); ``"fr"`` is an alias of the current
one. A game records the resolved id, so every id in ``SHIPPED`` must stay loadable for
old games to replay the same way. The files live in ``rules/data/wordlists/``:

* ``<id>.txt.xz``: the canonical list (upper-case ASCII, sorted, one word per line);
* ``<id>.marisa``: the same words as a ``marisa_trie.Trie`` (what ``load`` reads);
* ``<id>.json``: id, source, package version, licence, word count, sha256 of the
  uncompressed text and of the trie;
* ``<id>.overrides.txt``: the hand review applied by the build.

``load`` needs neither the network nor the Debian package:
reading the ~1 MB trie takes a few milliseconds and adds ~2 MB resident, where a
Python ``set`` of the same 400,000 words costs ~40 MB.

Command line::

    python -m rules.wordlist build [--id fr-1] [--check]   # needs python3-grammalecte
    python -m rules.wordlist bench                         # JSON timings for `make bench`
    python -m rules.wordlist check MOT…                    # fold and look words up
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import re
import sys
import threading
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

try:
    import marisa_trie
except ImportError as exc:  # e.g. Debian's /usr/bin/python3, which lacks marisa-trie
    raise ImportError(
        "rules.wordlist needs marisa-trie: use the project's virtualenv "
        "(.venv/bin/python -m rules.wordlist …); the build finds Debian's Grammalecte "
        "by itself"
    ) from exc

DATA_DIR = Path(__file__).resolve().parent / "data" / "wordlists"

#: Every list id ever shipped, oldest first. Never remove or rebuild one: add ``fr-2``.
SHIPPED: tuple[str, ...] = ("fr-1",)
#: Aliases resolved at load time; games must store the resolved id.
ALIASES: dict[str, str] = {"fr": "fr-1"}
DEFAULT = "fr"

#: What a playable word looks like after folding.
SHAPE = re.compile(r"[A-Z]{2,15}")

_LIGATURES = str.maketrans({"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE"})


class UnknownWordListError(LookupError):
    """The requested list id is neither shipped nor an alias."""


class CorruptWordListError(RuntimeError):
    """A committed list file does not match its recorded sha256 or count."""


def fold(text: str) -> str:
    """Spell ``text`` the way tiles do: élève → ELEVE, cœur → COEUR, Æ → AE.

    Ligatures are expanded, accents and cedillas removed (NFD then combining marks
    dropped), the result upper-cased. Surrounding whitespace is stripped; nothing else
    is removed, so "porte-clé" folds to "PORTE-CLE", which is not playable.
    """
    decomposed = unicodedata.normalize("NFD", text.strip().translate(_LIGATURES))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


@dataclass(frozen=True)
class WordList:
    """One loaded list. Lookups walk the trie: time proportional to the word's length."""

    id: str
    trie: marisa_trie.Trie
    metadata: dict[str, object]

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self.trie

    def __len__(self) -> int:
        return len(self.trie)

    def __iter__(self) -> Iterator[str]:
        return iter(self.trie.iterkeys())

    def has_keys_with_prefix(self, prefix: str) -> bool:
        """Whether some word starts with ``prefix`` (upper-case, folded)."""
        # marisa's own has_keys_with_prefix is deprecated; iterkeys is a lazy generator.
        return next(self.trie.iterkeys(prefix), None) is not None

    def keys(self, prefix: str = "") -> list[str]:
        """All words starting with ``prefix``, for the move generator."""
        return self.trie.keys(prefix)

    def iterkeys(self, prefix: str = "") -> Iterator[str]:
        return self.trie.iterkeys(prefix)

    def __repr__(self) -> str:
        return f"<WordList {self.id}: {len(self)} words>"


@dataclass(frozen=True)
class CheckResult:
    """Answer of the "Vérifier un mot" box."""

    folded: str
    playable: bool
    list_id: str

    def __bool__(self) -> bool:
        return self.playable


_cache: dict[str, WordList] = {}
_lock = threading.Lock()


def resolve(list_id: str = DEFAULT) -> str:
    """The shipped id behind ``list_id`` (``"fr"`` → ``"fr-1"``)."""
    resolved = ALIASES.get(list_id, list_id)
    if resolved not in SHIPPED:
        known = ", ".join([*ALIASES, *SHIPPED])
        raise UnknownWordListError(f"unknown word list {list_id!r} (known: {known})")
    return resolved


def read_metadata(list_id: str) -> dict[str, object]:
    path = DATA_DIR / f"{resolve(list_id)}.json"
    metadata: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return metadata


def _read(list_id: str) -> WordList:
    metadata = read_metadata(list_id)
    data = (DATA_DIR / str(metadata["trie_file"])).read_bytes()
    if hashlib.sha256(data).hexdigest() != metadata["trie_sha256"]:
        raise CorruptWordListError(f"{metadata['trie_file']} does not match its recorded sha256")
    trie = marisa_trie.Trie().frombytes(data)
    if len(trie) != metadata["count"]:
        raise CorruptWordListError(
            f"{metadata['trie_file']} has {len(trie)} words, expected {metadata['count']}"
        )
    return WordList(id=list_id, trie=trie, metadata=metadata)


def load(list_id: str = DEFAULT) -> WordList:
    """The list ``list_id`` (an id or alias), read once per process and cached."""
    resolved = resolve(list_id)
    wordlist = _cache.get(resolved)
    if wordlist is None:
        with _lock:
            wordlist = _cache.get(resolved)
            if wordlist is None:
                wordlist = _cache[resolved] = _read(resolved)
    return wordlist


def check(text: str, list_id: str = DEFAULT) -> CheckResult:
    """Fold what a player typed and say whether it is playable in ``list_id``."""
    wordlist = load(list_id)
    folded = fold(text)
    playable = bool(SHAPE.fullmatch(folded)) and folded in wordlist
    return CheckResult(folded=folded, playable=playable, list_id=wordlist.id)


def _rss_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def bench(list_id: str = DEFAULT, lookups: int = 200_000) -> dict[str, object]:
    """Load time, lookup rate and extra resident memory of a first load in this process."""
    resolved = resolve(list_id)
    _cache.pop(resolved, None)
    gc.collect()
    rss_before = _rss_bytes()
    start = time.perf_counter()
    wordlist = load(resolved)
    load_seconds = time.perf_counter() - start
    gc.collect()
    rss_after = _rss_bytes()

    rng = random.Random(1)
    trie = wordlist.trie
    count = len(wordlist)
    sample = [trie.restore_key(rng.randrange(count)) for _ in range(lookups // 2)]
    sample += [word[:-1] + "Q" for word in sample]  # mostly absent words
    rng.shuffle(sample)
    start = time.perf_counter()
    found = sum(1 for word in sample if word in wordlist)
    lookup_seconds = time.perf_counter() - start
    return {
        "list_id": wordlist.id,
        "word_count": count,
        "load_seconds": round(load_seconds, 4),
        "lookups": len(sample),
        "lookups_found": found,
        "lookups_per_second": round(len(sample) / lookup_seconds),
        "extra_rss_bytes": rss_after - rss_before,
        "extra_rss_mb": round((rss_after - rss_before) / 2**20, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules.wordlist", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="build a list from python3-grammalecte")
    build_cmd.add_argument("--id", default=SHIPPED[-1], help="list id (default: %(default)s)")
    build_cmd.add_argument(
        "--check", action="store_true", help="rebuild in memory, compare with the committed files"
    )
    build_cmd.add_argument(
        "--force", action="store_true", help="overwrite a shipped list built from another version"
    )
    bench_cmd = commands.add_parser("bench", help="print load/lookup/memory figures as JSON")
    bench_cmd.add_argument("--id", default=DEFAULT)
    check_cmd = commands.add_parser("check", help="fold words and say whether they are playable")
    check_cmd.add_argument("words", nargs="+")
    args = parser.parse_args(argv)

    if args.command == "bench":
        print(json.dumps(bench(args.id), indent=2))
        return 0
    if args.command == "check":
        for text in args.words:
            result = check(text)
            print(f"{text}\t{result.folded}\t{'oui' if result.playable else 'non'}")
        return 0

    from rules import wordlist_build

    try:
        if not args.check and not args.force and (DATA_DIR / f"{args.id}.json").is_file():
            shipped_version = read_metadata(args.id)["package_version"]
            current = wordlist_build.package_version()
            if shipped_version != current:
                raise wordlist_build.BuildError(
                    f"{args.id} was built from {wordlist_build.PACKAGE} {shipped_version}, "
                    f"installed is {current}: shipped lists are immutable, build a new id "
                    "(--id fr-2, then add it to SHIPPED) or pass --force"
                )
        metadata = wordlist_build.build(args.id, check_only=args.check)
    except wordlist_build.BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(metadata, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
