"""No gettext call inside an f-string: xgettext does not read them, so makemessages
would mark their French obsolete and the page would speak English to French players
(it happened to "(Your turn)" and "the best move found")."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

GETTEXT_NAMES = {
    "_",
    "gettext",
    "ngettext",
    "pgettext",
    "npgettext",
    "gettext_lazy",
    "ngettext_lazy",
}
SKIPPED = {".venv", ".venv313", "node_modules", "data", "tests", "stubs"}


def gettext_calls_in_fstrings(source: str) -> list[int]:
    """The line of each gettext call written inside an f-string of ``source``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.JoinedStr):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                name = getattr(inner.func, "id", None) or getattr(inner.func, "attr", None)
                if name in GETTEXT_NAMES:
                    lines.append(inner.lineno)
    return lines


def test_the_check_finds_a_call_in_an_f_string_and_not_outside_one() -> None:
    assert gettext_calls_in_fstrings("x = f'{_(\"a\")} b'\n") == [1]
    assert gettext_calls_in_fstrings("a = _('a')\nx = f'{a} b'\n") == []


def test_no_gettext_call_is_written_inside_an_f_string() -> None:
    root = Path(settings.BASE_DIR)
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] in SKIPPED:
            continue
        for line in gettext_calls_in_fstrings(path.read_text(encoding="utf-8")):
            found.append(f"{relative}:{line}")
    assert found == [], "translate outside the f-string, then put the result in it: " + ", ".join(
        found
    )
