"""The word-list interface the engine checks words against (R-DICT-1).

Words are upper-case A-Z strings. The real French list lives in
``rules.wordlist`` (loaded lazily, it is large); ``WordSet`` is a small
in-memory list for tests and for records that carry their own words.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol, runtime_checkable


@runtime_checkable
class WordList(Protocol):
    """Anything with an ``id`` and membership test on upper-case words."""

    @property
    def id(self) -> str: ...

    def __contains__(self, word: str) -> bool: ...


class WordSet:
    """A word list held in memory; words are upper-cased on the way in."""

    __slots__ = ("id", "words")

    def __init__(self, words: Iterable[str], id: str = "words") -> None:
        self.words = frozenset(w.upper() for w in words)
        self.id = id

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WordSet) and other.words == self.words

    def __hash__(self) -> int:
        return hash(self.words)

    def __repr__(self) -> str:
        return f"WordSet({len(self.words)} words, id={self.id!r})"


@lru_cache(maxsize=8)
def get_word_list(name: str) -> WordList:
    """The built-in word list ``name`` (``"fr"`` or ``"fr-..."``), loaded once.

    Raises ValueError for an unknown name or when the list cannot be loaded.
    """
    if not isinstance(name, str) or not (name == "fr" or name.startswith("fr-")):
        raise ValueError(f"unknown dictionary {name!r}")
    try:
        from rules import wordlist  # large: only loaded when a game needs it
    except ImportError as exc:
        raise ValueError(f"dictionary {name!r} is not available ({exc})") from exc
    try:
        return wordlist.load(name)
    except (LookupError, OSError, ValueError) as exc:
        raise ValueError(f"unknown dictionary {name!r} ({exc})") from exc


def word_list_from_data(data: object) -> WordList:
    """A word list from its record form: a name, or ``{"words": [...]}``."""
    if isinstance(data, str):
        return get_word_list(data)
    if (
        isinstance(data, dict)
        and set(data) == {"words"}
        and isinstance(data["words"], list)
        and all(isinstance(w, str) and w.isascii() and w.isalpha() for w in data["words"])
    ):
        return WordSet(data["words"])
    raise ValueError('dictionary must be a name or {"words": [...]} of A-Z words')


def word_list_to_data(words: WordList) -> str | dict[str, list[str]]:
    """The record form of ``words``: the word list inline for a WordSet, else its id."""
    if isinstance(words, WordSet):
        return {"words": sorted(words.words)}
    return words.id
