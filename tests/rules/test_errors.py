"""The engine's refusals in French: a non-breaking space before : ; ? ! and inside « ».

A refusal's French message is written in ``rules/`` itself (``IllegalMove``'s
``message_fr``), not in a catalogue, so the catalogues' check
(tests/site/test_translations.py) never sees it. This one reads every
``IllegalMove(…)`` in the engine's source, each ``{field}`` shown as the texts
it may hold or as X, and checks the text a player would read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rules
from rules import IllegalMove, Place, apply
from tests.french import NBSP, misplaced_marks
from tests.rules.helpers import start, tiles

SOURCES = sorted(Path(rules.__file__).parent.glob("*.py"))


def _texts(node: ast.expr, names: dict[str, list[ast.expr]]) -> list[str]:
    """Every text ``node`` may be; a variable by its assignments in the function.

    A formatted field is each text its variable may hold (``reason_fr``), or X when
    that is not a text written here (a square's name, a count).
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        texts = [""]
        for part in node.values:
            if isinstance(part, ast.Constant):
                assert isinstance(part.value, str)  # an f-string's literal parts are texts
                choices = [part.value]
            else:
                assert isinstance(part, ast.FormattedValue)  # the other parts are fields
                try:
                    choices = _texts(part.value, names)
                except AssertionError:
                    choices = ["X"]
            texts = [text + choice for text in texts for choice in choices]
        return texts
    if isinstance(node, ast.IfExp):
        return _texts(node.body, names) + _texts(node.orelse, names)
    if isinstance(node, ast.Name) and names.get(node.id):
        return [text for value in names[node.id] for text in _texts(value, names)]
    raise AssertionError(f"a French message this test cannot read: {ast.unparse(node)}")


def _assign(target: ast.expr, value: ast.expr, names: dict[str, list[ast.expr]]) -> None:
    """Note what ``target = value`` may give each name (``fr, en = a, b``, ``x = a if c else b``)."""
    if isinstance(target, ast.Name):
        names.setdefault(target.id, []).append(value)
    elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        for name, part in zip(target.elts, value.elts, strict=True):
            _assign(name, part, names)
    elif isinstance(target, ast.Tuple) and isinstance(value, ast.IfExp):
        _assign(target, value.body, names)
        _assign(target, value.orelse, names)


def french_refusals() -> list[tuple[str, str]]:
    """(where, text) of the French message of each ``IllegalMove`` raised in ``rules/``."""
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            names: dict[str, list[ast.expr]] = {}
            for node in ast.walk(function):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    _assign(node.targets[0], node.value, names)
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "IllegalMove"
                ):
                    where = f"{path.name}:{node.lineno}"
                    found += [(where, text) for text in _texts(node.args[2], names)]
    return sorted(set(found))  # a call in a nested function is met twice


def test_every_refusal_of_the_engine_puts_a_non_breaking_space_where_french_wants_one() -> None:
    refusals = french_refusals()
    # All of them are read: the engine, the placements, the records and the strategy's.
    assert len(refusals) >= 30
    assert {where.split(":")[0] for where, _ in refusals} >= {
        "engine.py",
        "placement.py",
        "record.py",
        "strategy.py",
    }
    assert ("«\u00a0X\u00a0» en X n’est pas une lettre de A à Z.") in {t for _, t in refusals}
    wrong = {where: found for where, text in refusals if (found := misplaced_marks(text))}
    assert wrong == {}


def test_every_refusal_of_the_engine_writes_the_french_apostrophe_as_the_site_does() -> None:
    """The catalogues write « n’est » (U+2019); a refusal with « n'est » beside them
    showed two apostrophes on one page."""
    straight = {where: text for where, text in french_refusals() if "'" in text}
    assert straight == {}


@pytest.mark.parametrize("letter", ["1", "CH"])
def test_a_letter_that_is_not_one_is_quoted_as_french_quotes_it(letter: str) -> None:
    state = start("marque", ("?HAT", "RA"))
    with pytest.raises(IllegalMove) as refusal:
        apply(state, Place(0, (("H8", letter), *tiles("I8H"))))
    message = refusal.value.message("fr")
    assert message == f"«{NBSP}{letter}{NBSP}» en H8 n’est pas une lettre de A à Z."
    assert misplaced_marks(message) == []
