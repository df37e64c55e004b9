"""A word list as a DAWG (directed acyclic word graph) for the move generator.

The marisa trie behind ``rules.wordlist`` answers "is this a word?" in a few
microseconds, but the move generator asks a different question millions of
times: "which letters may follow this prefix?". A DAWG answers it with one
array read: minimising the trie of ``fr-1`` (equal sub-trees shared, Daciuk
et al. 2000) leaves ~45,000 nodes.

The graph is **packed**: one flat array of unsigned 32-bit cells, ``STRIDE``
cells per node, and a node is the offset of its first cell. Cells 0-25 hold
the node reached by each letter (0 for A … 25 for Z), or 0, the offset of a
dead node whose cells are all 0, so that a walk off the list needs no test:
it stays on the dead node, which ends no word and has no letters. Then:

* ``INFO``: the mask of the node's letters (bit ``k`` for ``chr(65 + k)``),
  and ``FINAL`` when the node ends a word;
* ``ENDS``, ``SECOND``, ``AFTER``: masks of the letters in the rest of the
  words below the node: the letters they end with, those right after the
  next letter, those after it at all. A search that knows how a word must go
  on prunes with one ``&`` every branch that cannot (``rules.movegen``).

For the shipped lists the array is a file (``rules.dawg_file``: built once
from the word list by ``make dawg``, checked at load) read
through ``mmap``, so every process of the site reads the same pages of the
page cache: a process holds no copy of its own, and the first hint in a
fresh process waits for no build (``docs/PERFORMANCE.md`` has the figures).
Small lists (``WordSet``: tests, records that carry their words) are packed
in memory the same way.
"""

from __future__ import annotations

import re
import threading
from array import array
from collections.abc import Iterable
from typing import TypeAlias

from rules.dictionary import WordList, WordSet

STRIDE = 30
"""Cells per node: 26 letters, INFO, ENDS, SECOND, AFTER."""
INFO = 26
"""Cell of a node's letters mask and its ``FINAL`` bit."""
ENDS = 27
"""Cell of the letters the words below a node end with."""
SECOND = 28
"""Cell of the letters that come right after the node's next one."""
AFTER = 29
"""Cell of the letters that come after the node's next one, right after or later."""
FINAL = 1 << 26
"""Bit of ``INFO`` set when the node ends a word (above every letter's bit)."""
ALL_LETTERS = (1 << 26) - 1
"""Bit mask of every letter; bit ``k`` stands for ``chr(65 + k)``."""
DEAD = 0
"""Offset of the dead node: every cell 0, so every walk from it stays there."""
ROOT = STRIDE
"""Offset of the root (the node after the dead one)."""

_WORD = re.compile(r"[A-Z]{2,}")

# A string: array is not subscriptable at run time before Python 3.12.
Cells: TypeAlias = "memoryview | array[int]"
"""The packed graph: a ``memoryview`` of the mapped file (format ``I``) or an
``array('I')`` built in memory; both read a cell as ``cells[offset]``."""

_Trie = dict[int, "_Trie"]
"""A node while building: letter code to node, and key ``-1`` when final."""
_END: _Trie = {}
"""The value of key ``-1``: the same for every final node, so equal nodes stay equal."""


def clean(words: Iterable[str]) -> list[str]:
    """The words a DAWG holds, sorted: upper-case A-Z of two letters or more.

    R-PLACE-4 checks runs of two or more tiles, so a one-letter "word" is
    never looked up.
    """
    return sorted({w for w in words if isinstance(w, str) and _WORD.fullmatch(w)})


def _minimal_trie(words: list[str]) -> tuple[_Trie, int]:
    """The minimal automaton of sorted ``words`` as nested dicts, and its node count.

    Daciuk's incremental construction: words arrive sorted, so once a word is
    done, the part of the previous word's path that the new word does not
    share can never change again and is merged with an equal registered node
    (same finality, same children) or registered.
    """
    root: _Trie = {}
    register: dict[tuple[tuple[int, int], ...], _Trie] = {}
    path: list[_Trie] = [root]
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
            child: _Trie = {}
            node[code] = child
            path.append(child)
            codes.append(code)
            node = child
        node[-1] = _END
    freeze(0)
    return root, len(register) + 1


def pack(words: Iterable[str]) -> tuple[array[int], int, int]:
    """The packed DAWG of ``words`` (see the module): its cells, node count
    and word count. The same words always give the same cells: nodes are
    numbered breadth first from the root, letters in alphabetical order."""
    ordered = clean(words)
    root, node_count = _minimal_trie(ordered)
    offsets: dict[int, int] = {id(root): ROOT}
    queue = [root]
    for node in queue:  # grows while read: breadth first
        for code in sorted(k for k in node if k >= 0):
            child = node[code]
            if id(child) not in offsets:
                offsets[id(child)] = (len(offsets) + 1) * STRIDE
                queue.append(child)
    cells = array("I", bytes(4 * STRIDE * (len(queue) + 1)))
    # The masks bottom-up, children before parents: depth first, each node
    # once (the recursion is as deep as the longest word).
    done: set[int] = set()

    def fill(node: _Trie) -> None:
        at = offsets[id(node)]
        if at in done:
            return
        letters = ends = second = after = 0
        for code, child in node.items():
            if code < 0:
                continue
            fill(child)
            below = offsets[id(child)]
            cells[at + code] = below
            info = cells[below + INFO]
            letters |= 1 << code
            ends |= cells[below + ENDS]
            if info & FINAL:
                ends |= 1 << code
            second |= info & ALL_LETTERS
            after |= info & ALL_LETTERS | cells[below + AFTER]
        cells[at + INFO] = letters | (FINAL if -1 in node else 0)
        cells[at + ENDS] = ends
        cells[at + SECOND] = second
        cells[at + AFTER] = after
        done.add(at)

    fill(root)
    assert len(done) == node_count
    return cells, node_count, len(ordered)


class Dawg:
    """A packed DAWG (see the module) and what the search reads beside it."""

    __slots__ = ("_keep", "cells", "letters", "node_count", "word_count")

    def __init__(self, cells: Cells, node_count: int, word_count: int, keep: object = None) -> None:
        self.cells = cells
        self.node_count = node_count
        self.word_count = word_count
        self._keep = keep  # what must stay open while ``cells`` is read (the mmap)
        # The letters of each distinct INFO as a tuple, so that a search loops
        # over a node's letters at C speed: a few thousand small tuples.
        self.letters: dict[int, tuple[int, ...]] = {
            info: tuple(k for k in range(26) if info >> k & 1) for info in set(cells[INFO::STRIDE])
        }

    @classmethod
    def of(cls, words: Iterable[str]) -> Dawg:
        """The DAWG of ``words``, packed in memory."""
        cells, nodes, count = pack(words)
        return cls(cells, nodes, count)

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word.isascii() or not word.isupper():
            return False
        return bool(self.cells[self.walk(word) + INFO] & FINAL)

    def walk(self, letters: str, node: int = ROOT) -> int:
        """The node reached by reading ``letters`` (upper case) from ``node``
        (the root): ``DEAD`` when no word goes that way."""
        cells = self.cells
        for char in letters:
            code = ord(char) - 65
            if not 0 <= code < 26:
                return DEAD
            node = cells[node + code]
        return node

    def cross_mask(self, before: str, after: str) -> int:
        """Letters ``x`` such that ``before + x + after`` is a word, as a bit mask."""
        cells = self.cells
        node = self.walk(before)
        mask = 0
        for code in self.letters[cells[node + INFO]]:
            if cells[self.walk(after, cells[node + code]) + INFO] & FINAL:
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
    if isinstance(words, Iterable):
        every: Iterable[str] = iter(words)
        return every
    raise TypeError(
        f"the move generator needs a word list it can enumerate, not {type(words).__name__}"
    )


def _dawg_of(words: WordList) -> Dawg:
    from rules import dawg_file, wordlist  # the file format needs the shipped lists

    if isinstance(words, wordlist.WordList):
        return dawg_file.load(words.id)
    return Dawg.of(words_of(words))


def dawg_for(words: WordList) -> Dawg:
    """The DAWG of ``words``, kept for the process: for a shipped list, its
    file mapped (built first if missing or stale); else packed in memory.

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
        dawg = _dawg_of(words)
        if len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = (words, dawg)
        return dawg


def warm(list_id: str = "fr") -> Dawg:
    """Map the DAWG of a shipped list now: the site calls it as each process
    starts (``diamino_site/wsgi.py``, the Celery worker's parent), so no hint
    waits for it, and reading every page once there makes them shared pages
    of every process rather than private ones of the first to search."""
    from rules import wordlist

    return dawg_for(wordlist.load(list_id))
