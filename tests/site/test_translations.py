"""The site is translated into French, and the French catalogue is complete."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.french import NBSP, misplaced_marks

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


CATALOGUES = [CATALOGUE]  # one catalogue: tests/site/test_makemessages.py


def _translations(path: Path) -> list[str]:
    """Every msgstr of a catalogue, continuation lines joined, escapes read; no header."""
    translations = []
    for block in _entries(path.read_text(encoding="utf-8"))[1:]:
        if block.lstrip().startswith("#~"):
            continue
        for value in re.findall(r'^msgstr(?:\[\d+\])? ((?:".*"\n?)+)', block, flags=re.MULTILINE):
            parts = re.findall(r'^"(.*)"$', value, flags=re.MULTILINE)
            translations.append("".join(parts).replace('\\"', '"').replace("\\n", "\n"))
    return translations


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda path: path.parts[-4])
def test_french_catalogues_put_a_non_breaking_space_before_colons_and_question_marks(
    path: Path,
) -> None:
    translations = _translations(path)
    assert any(NBSP + ":" in text for text in translations)
    wrong = {text: found for text in translations if (found := misplaced_marks(text))}
    assert wrong == {}


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda path: path.parts[-4])
def test_french_catalogues_write_the_typographic_apostrophe(path: Path) -> None:
    """One apostrophe on every French page: « l’ordinateur » (U+2019), as the engine's
    refusals write it (tests/rules/test_errors.py), never « l'ordinateur »."""
    translations = _translations(path)
    assert any("\u2019" in text for text in translations)
    assert [text for text in translations if "'" in text] == []


@pytest.mark.django_db
def test_the_french_rules_page_writes_the_typographic_apostrophe(client: Client) -> None:
    """Our French rules (the page's own text, not the 1960s rulebook it also quotes word for word)."""
    body = Path(settings.BASE_DIR) / "templates" / "learn" / "_rules_fr.html"
    text = re.sub(r"\{#.*?#\}|\{%.*?%\}|<[^>]+>", " ", body.read_text(encoding="utf-8"), flags=re.S)
    assert "\u2019" in text
    assert re.findall(r"\w'\w", text) == []


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("Échéance: demain", False),
        ("Échéance : demain", False),  # an ordinary space lets ":" start a line
        ("Échéance\u202f: demain", False),  # not the catalogue's space
        ("%(title)s: à vous", False),
        ("Vraiment ?", False),
        ("Nom « Ancien joueur »", False),
        ("? Vraiment", False),  # nothing before the mark, not even a space
        ("Lui et/ou? elle", False),  # a slash in words is no path
        ("Voir /parties/?page=2 et/ou? rien", False),
        ("Échéance\u00a0: 5 mars 2026 16:30", True),
        ("Bravo\u00a0!", True),
        ("Quoi\u00a0?!", True),
        ("Ouvrir\u00a0: https://diamino.example/parties/?page=2", True),
        ("Nom «\u00a0Ancien joueur\u00a0»", True),
        ("{0:>3} lettres", True),
        ("Voir\u00a0: /parties/?page=2", True),
        ("Lui et/ou\u00a0? elle", True),
    ],
)
def test_the_typography_check_tells_right_from_wrong(text: str, right: bool) -> None:
    assert (misplaced_marks(text) == []) is right


def test_every_field_staff_read_in_the_admin_has_a_label_in_french() -> None:
    """A field without a verbose_name shows its English name ("Creator", "To move") to
    French staff: each of the project's model fields names itself in gettext."""
    from django.apps import apps
    from django.utils.functional import Promise

    root = Path(settings.BASE_DIR).resolve()
    ours = [
        model
        for model in apps.get_models()
        if Path(apps.get_app_config(model._meta.app_label).path).resolve().parent == root
    ]
    assert {"games.Game", "leagues.Season"} <= {model._meta.label for model in ours}
    untranslated = [
        f"{model._meta.label}.{field.name}"
        for model in ours
        for field in model._meta.get_fields(include_parents=False)
        if field.concrete and not field.auto_created
        if not isinstance(getattr(field, "verbose_name", None), Promise)
    ]
    assert untranslated == []
