"""The site is translated into French, and the French catalogue is complete."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES" / "django.po"


@pytest.mark.django_db
def test_lobby_is_in_french(client: Client) -> None:
    response = client.get("/parties/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Salon" in html
    assert "Lobby" not in html


@pytest.mark.django_db
def test_lobby_is_in_english_when_asked(client: Client) -> None:
    response = client.get("/parties/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Lobby" in html
    assert "Salon" not in html


@pytest.mark.django_db
def test_check_word_page_is_in_french(client: Client) -> None:
    response = client.get("/verifier-un-mot/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Vérifier un mot" in html
    assert "Check a word" not in html


def _entries(text: str) -> list[str]:
    """The catalogue's entries, header first, as blocks separated by blank lines."""
    return [block for block in re.split(r"\n\s*\n", text.strip()) if block.strip()]


def test_french_catalogue_has_no_fuzzy_entry() -> None:
    text = CATALOGUE.read_text(encoding="utf-8")
    assert not re.search(r"^#,.*\bfuzzy\b", text, flags=re.MULTILINE)


def test_french_catalogue_has_no_untranslated_entry() -> None:
    entries = _entries(CATALOGUE.read_text(encoding="utf-8"))
    assert len(entries) > 100
    header, *messages = entries
    assert 'msgid ""' in header
    untranslated = []
    for block in messages:
        if block.lstrip().startswith("#~"):  # obsolete entry
            continue
        # A msgstr (or msgstr[n]) that is empty and not continued on the next line.
        if re.search(r'^msgstr(\[\d+\])? ""\s*(\n(?!")|\Z)', block, flags=re.MULTILINE):
            untranslated.append(block)
    assert untranslated == []
