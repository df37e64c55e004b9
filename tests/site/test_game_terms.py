"""The game's words are the glossary's, everywhere: the catalogue, the templates, the emails, the engine.

The glossary (the rules page, ``#glossaire``) fixes one word per concept. In
English the joker tile is a "joker" (never a "blank", a "wildcard" or a bare
"devil"), the squares are a "red devil" or a "green devil" (always with their
colour: a bare "devil" could be the tile), the start square is "Start"; the
French names (diable, Départ…) appear in English only as a gloss in
parentheses. In French the tile is a "diable", never a "joker" (outside a
gloss), and the squares "diable vert" / "diable rouge". And each English term
is translated by its French one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
CATALOGUE = ROOT / "locale" / "fr" / "LC_MESSAGES" / "django.po"

# A colour names the square: "red devil", "green devils", "red and green devils".
COLOURED_DEVIL = re.compile(r"\b(?:red|green)(?:,? (?:and|or) (?:red|green))? devils?\b", re.I)
ENGLISH_VARIANTS = {
    "blank": re.compile(r"\bblanks?\b", re.I),
    "wildcard": re.compile(r"\bwild[ -]?cards?\b", re.I),
    "a bare devil": re.compile(r"\bdevils?\b", re.I),
    "diable outside a gloss": re.compile(r"\bdiables?\b", re.I),
    "Départ outside a gloss": re.compile(r"\bDépart\b"),
}
FRENCH_VARIANTS = {
    "joker outside a gloss": re.compile(r"\bj[o]c?kers?\b", re.I),
    "démon": re.compile(r"\bdémons?\b", re.I),
    "blanc for the diable": re.compile(r"\b(?:lettres?|carrés?|pièces?) blanc(?:he)?s?\b", re.I),
}
# An English term, and what its French translation must say.
TRANSLATED_AS = {
    re.compile(r"\bjokers?\b", re.I): re.compile(r"\bdiables?\b", re.I),
    re.compile(r"\bred devils?\b", re.I): re.compile(r"\bdiables? rouges?\b", re.I),
    re.compile(r"\bgreen devils?\b", re.I): re.compile(r"\bdiables? verts?\b", re.I),
    re.compile(r"\bblack squares?\b", re.I): re.compile(r"\bcases? noires?\b", re.I),
    re.compile(r"\breserve\b", re.I): re.compile(r"\bréserve\b", re.I),
}


def _without_glosses(text: str) -> str:
    """The text without what stands in parentheses (where a French name may gloss)."""
    while True:
        shorter = re.sub(r"\([^()]*\)", " ", text)
        if shorter == text:
            return text
        text = shorter


def variants(text: str, language: str) -> list[str]:
    """The forbidden variants ``text`` uses, named."""
    plain = _without_glosses(text)
    if language == "en":
        plain = COLOURED_DEVIL.sub(" ", plain)
        rules = ENGLISH_VARIANTS
    else:
        rules = FRENCH_VARIANTS
    return [name for name, pattern in rules.items() if pattern.search(plain)]


# --- where the words are ---------------------------------------------------------------------


def _unquote(lines: str) -> str:
    return "".join(ast.literal_eval(line) for line in re.findall(r'"(?:[^"\\]|\\.)*"', lines))


def catalogue_entries() -> list[tuple[str, str]]:
    """(English, French) of every live entry of the catalogue, plural forms included."""
    entries = []
    for block in CATALOGUE.read_text(encoding="utf-8").split("\n\n"):
        if not re.search(r"^msgid ", block, re.M):
            continue  # an obsolete entry (#~) or the header's comments
        english = _unquote(" ".join(re.findall(r'^msgid(?:_plural)? ((?:".*"\n?)+)', block, re.M)))
        french = _unquote(" ".join(re.findall(r'^msgstr(?:\[\d\])? ((?:".*"\n?)+)', block, re.M)))
        if english:
            entries.append((english, french))
    return entries


def template_text(path: Path) -> str:
    """A template's own words: no tags, no comments, no template code (its msgids are above)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"{% comment %}.*?{% endcomment %}", " ", text, flags=re.S)
    text = re.sub(r"{#.*?#}|{%.*?%}|{{.*?}}", " ", text, flags=re.S)
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
    return re.sub(r"<[^>]+>", " ", text)


def templates() -> list[tuple[Path, str]]:
    """Every template with its language: ``_fr`` ones are French, the rest English sources."""
    found = []
    for path in sorted((ROOT / "templates").rglob("*")):
        if path.suffix in (".html", ".txt"):
            found.append((path, "fr" if path.stem.endswith("_fr") else "en"))
    return found


def engine_messages() -> list[tuple[str, str, str]]:
    """The engine's own French and English messages (``IllegalMove(code, rule, fr, en)``, ``en = …``)."""

    def words(node: ast.AST) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return " ".join(words(part) for part in node.values)
        return " "

    found = []
    for path in sorted((ROOT / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "IllegalMove":
                if len(node.args) >= 4:
                    found.append((path.name, "fr", words(node.args[2])))
                    found.append((path.name, "en", words(node.args[3])))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                name = getattr(node.targets[0], "id", "")
                if name in ("fr", "en") or name.endswith(("_fr", "_en")):
                    found.append((path.name, name[-2:], words(node.value)))
    return found


# --- the checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "found"),
    [
        ("Use a blank as E.", "en", ["blank"]),
        ("The wildcard stands for any letter.", "en", ["wildcard"]),
        ("Which letter does the devil stand for?", "en", ["a bare devil"]),
        ("Devils and the end of the game bring points.", "en", ["a bare devil"]),
        ("Use a diable as E?", "en", ["diable outside a gloss"]),
        ("The first letter goes on the Départ square.", "en", ["Départ outside a gloss"]),
        ("Red and green devils, a red devil, green devils.", "en", []),
        ("The joker (diable), the Start square (Départ, ★).", "en", []),
        ("2 jokers (in French diables).", "en", []),
        ("Utiliser un joker comme E ?", "fr", ["joker outside a gloss"]),
        ("Un démon rouge.", "fr", ["démon"]),
        ("Le diable (le joker), un diable rouge, les diables verts.", "fr", []),
    ],
)
def test_the_check_tells_a_variant_from_the_glossary_s_word(
    text: str, language: str, found: list[str]
) -> None:
    assert variants(text, language) == found


def test_the_catalogue_uses_the_glossary_s_words_in_both_languages() -> None:
    entries = catalogue_entries()
    assert len(entries) > 500  # the whole catalogue was read, not a few entries
    wrong = [
        (english, french, variants(english, "en") + variants(french, "fr"))
        for english, french in entries
        if variants(english, "en") or variants(french, "fr")
    ]
    assert wrong == []


def test_each_english_term_is_translated_by_its_french_one() -> None:
    wrong = []
    for english, french in catalogue_entries():
        for term, translation in TRANSLATED_AS.items():
            if term.search(english) and french and not translation.search(french):
                wrong.append((english, french))
    assert wrong == []


def test_the_templates_and_emails_use_the_glossary_s_words() -> None:
    found = templates()
    assert any(path.parent.name == "emails" for path, _ in found)
    assert any(language == "fr" for _, language in found)
    wrong = [
        (str(path.relative_to(ROOT)), variants(template_text(path), language))
        for path, language in found
        if variants(template_text(path), language)
    ]
    assert wrong == []


def test_the_engine_s_messages_use_the_glossary_s_words() -> None:
    messages = engine_messages()
    assert sum(language == "en" for _, language, _ in messages) > 20
    wrong = [(name, text) for name, language, text in messages if variants(text, language)]
    assert wrong == []


GLOSSARY = {
    "fr": [
        "Marque",
        "Avec marque",
        "Sans marque",
        "Réserve",
        "Diable (le joker)",
        "Départ",
        "Case noire",
        "Diable vert",
        "Diable rouge",
        "Fin de partie",
        "Échange",
        "Passer",
    ],
    "en": [
        "Marque (scoring)",
        "Avec marque",
        "Sans marque",
        "Reserve (réserve)",
        "Joker (diable)",
        "Start (Départ)",
        "Black square (case noire)",
        "Green devil (diable vert)",
        "Red devil (diable rouge)",
        "Fin de partie",
        "Exchange (échange)",
        "Pass (passer)",
    ],
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_rules_page_has_the_glossary_in_its_contents(client, language: str) -> None:
    page = client.get("/regles/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert '<a href="#glossaire">' in page.split('id="glossaire"')[0]  # the contents link to it
    glossary = page.split('id="glossaire"')[1].split("</dl>")[0]
    terms = re.findall(r"<dt>(.*?)</dt>", glossary)
    assert [term for term in GLOSSARY[language] if term not in terms] == []
