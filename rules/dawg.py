"""A word list as a DAWG (directed acyclic word graph) for the move generator.

The marisa trie behind ``rules.wordlist`` answers "is this a word?" in a few
microseconds, but the move generator asks a different question millions of
times: "which letters may follow this prefix?". Walking marisa for that costs
one prefix query per letter; a DAWG answers it with one dict lookup.

A node is a plain ``dict`` mapping a letter code (0 for A … 25 for Z) to the
next node, letters first, then keys 26 and up that are never letters (so a
loop over a node's items stops at the first key >= ``FINAL``): ``FINAL`` (26)
when the node ends a word, and in every node masks of letters that let
the move generator prune a branch with one ``&``: ``NEXT`` (27), the letters
that may follow; ``BELOW`` (28), three masks in one int: the letters the
words below end with, those that come right after the next letter, and those
that come after it at all. Plain
dicts and small ints are the fastest thing CPython can walk, and minimising
the trie (equal sub-trees shared, Daciuk et al. 2000) keeps the French list
``fr-1`` to ~45,000 nodes: 1.5-2 s to build, ~14 MB (``make bench`` measures
both). Built once per process and word list, on first use.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from rules.dictionary import WordList, WordSet

FINAL = 26
"""Key present in a node that ends a word (letters are 0-25)."""
NEXT = 27
"""Key holding the bit mask of a node's letters, so a search can ask "may any
of these letters follow?" with one ``&`` instead of a loop."""
BELOW = 28
"""Key holding three masks of the letters in the rest of the words below a
node, packed in one int (a key of its own each would take most nodes past
five keys and double their dicts): a search that knows how a word must go on
prunes with one ``&`` every branch that cannot, with its mask of letters
shifted by ``ENDS``, ``SECOND`` or ``AFTER``."""
ENDS = 0
"""Where ``node[BELOW]`` holds the letters the words below end with."""
SECOND = 26
"""Where ``node[BELOW]`` holds the letters that come right after the next one."""
AFTER = 52
"""Where ``node[BELOW]`` holds the letters that come after the next one, right
after or later."""
ALL_LETTERS = (1 << 26) - 1
"""Bit mask of every letter; bit ``k`` stands for ``chr(65 + k)``."""

_WORD = re.compile(r"[A-Z]{2,}")

Node = dict[int, "Node | bool | int"]


class Dawg:
    """The minimal automaton of a word list.

    Only words of two letters or more count: R-PLACE-4 checks runs of two or
    more tiles, so a one-letter "word" is never looked up.
    """

    __slots__ = ("node_count", "root", "word_count")

    def __init__(self, words: Iterable[str]) -> None:
        self.root: Node = {}
        self.word_count = 0
        self.node_count = 1
        self._build(sorted({w for w in words if isinstance(w, str) and _WORD.fullmatch(w)}))

    def _build(self, words: list[str]) -> None:
        # Daciuk's incremental construction: words arrive sorted, so once a
        # word is done, the part of the previous word's path that the new
        # word does not share can never change again and is merged with an
        # equal registered node (same finality, same children) or registered.
        register: dict[tuple[tuple[int, int], ...], Node] = {}
        path: list[Node] = [self.root]
        codes: list[int] = []

        def freeze(keep: int) -> None:
            for depth in range(len(path) - 1, keep, -1):
                node = path[depth]
                key = tuple((k, id(v)) for k, v in node.items())
                twin = register.get(key)
                if twin is None:
                    register[key] = node
                else:
                    path[depth - 1][codes[depth - 1]] = twin
            del path[keep + 1 :]
            del codes[keep:]

        for word in words:
            new = [ord(c) - 65 for c in word]
            shared = 0
            limit = min(len(new), len(codes))
            while shared < limit and new[shared] == codes[shared]:
                shared += 1
            freeze(shared)
            node = path[-1]
            for code in new[shared:]:
                child: Node = {}
                node[code] = child
                path.append(child)
                codes.append(code)
                node = child
            node[FINAL] = True
            self.word_count += 1
        freeze(0)
        self.node_count = len(register) + 1
        # The register holds each node after its children (a word's path is
        # frozen from its end), so one pass fills the masks bottom-up. FINAL
        # goes after the letters it was set before. Equal masks share one
        # int: a few thousand values for 45,000 nodes.
        masks: dict[int, int] = {}
        for node in [*register.values(), self.root]:
            final = node.pop(FINAL, False)
            mask = ends = second = after = 0
            for code, child in node.items():
                below: int = child[BELOW]  # type: ignore[index,assignment]
                mask |= 1 << code
                ends |= below >> ENDS & ALL_LETTERS
                if FINAL in child:  # type: ignore[operator]
                    ends |= 1 << code
                second |= child[NEXT]  # type: ignore[index,operator]
                after |= child[NEXT] | below >> AFTER  # type: ignore[index,operator]
            if final:
                node[FINAL] = True
            node[NEXT] = masks.setdefault(mask, mask)  # type: ignore[assignment]
            below = ends << ENDS | second << SECOND | after << AFTER
            node[BELOW] = masks.setdefault(below, below)  # type: ignore[assignment]

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        node = self.walk(word)
        return node is not None and FINAL in node

    def walk(self, letters: str, node: Node | None = None) -> Node | None:
        """The node reached by reading ``letters`` (upper case) from ``node`` (the root)."""
        node = self.root if node is None else node
        for char in letters:
            node = node.get(ord(char) - 65)  # type: ignore[assignment]
            if node is None:
                return None
        return node

    def cross_mask(self, before: str, after: str) -> int:
        """Letters ``x`` such that ``before + x + after`` is a word, as a bit mask."""
        node = self.walk(before)
        if node is None:
            return 0
        mask = 0
        for code, child in node.items():
            if code >= FINAL:
                break
            end = self.walk(after, child)  # type: ignore[arg-type]
            if end is not None and FINAL in end:
                mask |= 1 << code
        return mask

    def __repr__(self) -> str:
        return f"<Dawg {self.word_count} words, {self.node_count} nodes>"


_cache: dict[int, tuple[object, Dawg]] = {}
_lock = threading.Lock()
_CACHE_SIZE = 8


def words_of(words: WordList) -> Iterable[str]:
    """Every word of ``words``; TypeError for a list that cannot be enumerated."""
    if isinstance(words, WordSet):
        return words.words
    if hasattr(words, "__iter__"):
        return iter(words)  # type: ignore[call-overload]
    raise TypeError(
        f"the move generator needs a word list it can enumerate, not {type(words).__name__}"
    )


def dawg_for(words: WordList) -> Dawg:
    """The DAWG of ``words``, built on first use and kept for the process.

    Keyed by object identity (a word list is built once per process and
    kept); the cache holds a reference so an id is never reused while cached.
    """
    key = id(words)
    hit = _cache.get(key)
    if hit is not None and hit[0] is words:
        return hit[1]
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is words:
            return hit[1]
        dawg = Dawg(words_of(words))
        if len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = (words, dawg)
        return dawg
