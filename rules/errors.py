"""The two errors of the rules engine: an illegal move, and an unusable record."""

from __future__ import annotations


class IllegalMove(Exception):
    """A move the rules forbid.

    ``code`` is a stable short identifier (``"gap"``, ``"not-a-word"``, ...) that
    callers may branch on; ``rule`` is the RULES.md id the move breaks
    (``"R-PLACE-3"``); the two messages tell the player what to change, naming
    squares in A1 notation.
    """

    def __init__(self, code: str, rule: str, message_fr: str, message_en: str) -> None:
        super().__init__(message_en)
        self.code = code
        self.rule = rule
        self.message_fr = message_fr
        self.message_en = message_en

    def message(self, lang: str = "fr") -> str:
        """The message in ``lang`` (``"fr"`` or ``"en"``; French for anything else)."""
        return self.message_en if lang.lower().startswith("en") else self.message_fr

    def __repr__(self) -> str:
        return f"IllegalMove({self.code!r}, {self.rule!r}, {self.message_en!r})"


class RecordError(ValueError):
    """A game record (or a set-up) that cannot be judged at all; one-line message."""


def tiles_fr(count: int) -> str:
    """ "1 lettre", "3 lettres": French keeps the singular for 0 and 1."""
    return f"{count} lettre" if count <= 1 else f"{count} lettres"


def tiles_en(count: int) -> str:
    """ "1 tile", "3 tiles", "0 tiles"."""
    return f"{count} tile" if count == 1 else f"{count} tiles"
