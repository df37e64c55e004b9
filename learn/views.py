"""The rules page: the whole rulebook in plain words, with boards the engine judged."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from learn.examples import judged_examples

ORIGINAL = Path(__file__).resolve().parent / "data" / "diamino-regles.txt"


@cache
def original_text() -> str:
    """The 1960s French rulebook, word for word (``learn/data/README.md``)."""
    return ORIGINAL.read_text(encoding="utf-8")


@require_GET
def rules_page(request: HttpRequest, printable: bool = False) -> HttpResponse:
    """``/regles/``: French by default, English for an English reader; ``printable`` for paper."""
    body = (
        "learn/_rules_en.html"
        if (get_language() or "fr").startswith("en")
        else "learn/_rules_fr.html"
    )
    return render(
        request,
        "learn/rules.html",
        {
            "body": body,
            "ex": judged_examples(),
            "original": original_text(),
            "printable": printable,
        },
    )
