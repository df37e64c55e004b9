"""`make messages` keeps every translation, and every string in the code has its French.

The check runs the Makefile's own makemessages command in a copy of the
sources, so the committed catalogue is never rewritten by a test, and reads
the catalogue it produces: a string with no French there (new, or matched
fuzzily to an old one) fails here rather than showing in English on the site.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.gettext

ROOT = Path(settings.BASE_DIR)
CATALOGUE = Path("locale") / "fr" / "LC_MESSAGES" / "django.po"
# What makemessages never reads; the word lists in rules/data are large and hold no strings.
NOT_COPIED = (".venv", ".git", "data", "node_modules", ".pytest_cache", ".ruff_cache")


def makemessages_command() -> list[str]:
    """The makemessages line of the Makefile's `messages` target, for this Python."""
    recipe = re.search(r"^messages:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe, "the Makefile has no `messages` target"
    line = next(line for line in recipe.group(1).splitlines() if "makemessages" in line)
    words = shlex.split(line.strip())
    assert words[0] == "$(BIN)/python", line
    return [sys.executable, *words[1:]]


def catalogues(root: Path) -> list[Path]:
    """The project's French catalogues (LOCALE_PATHS and any app's own ``locale/``)."""
    return sorted(
        [*root.glob("locale/fr/LC_MESSAGES/*.po"), *root.glob("*/locale/fr/LC_MESSAGES/*.po")]
    )


@pytest.fixture(scope="module")
def fresh_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sources whose catalogues are as `make messages` would leave them."""
    copy = tmp_path_factory.mktemp("sources") / "diamino"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_COPIED), symlinks=True)
    subprocess.run(
        makemessages_command(), cwd=copy, check=True, capture_output=True, text=True, timeout=300
    )
    return copy


def msgids(root: Path, *attribute_options: str) -> set[str]:
    """The msgids of the entries ``msgattrib`` selects in every catalogue; no header, no obsolete."""
    found: set[str] = set()
    for po_file in catalogues(root):
        selected = subprocess.run(
            ["msgattrib", "--no-obsolete", "--no-wrap", *attribute_options, str(po_file)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        found.update(text for text in re.findall(r'^msgid "(.*)"$', selected, re.M) if text)
    return found


def test_every_string_in_the_code_has_its_french_after_make_messages(fresh_copy: Path):
    assert sorted(msgids(fresh_copy, "--untranslated")) == []


def test_make_messages_matches_no_string_to_a_translation_by_guesswork(fresh_copy: Path):
    assert sorted(msgids(fresh_copy, "--only-fuzzy")) == []


def test_make_messages_keeps_every_translation_of_a_string_still_in_the_code(fresh_copy: Path):
    in_the_code = msgids(fresh_copy)
    french_before = msgids(ROOT, "--translated", "--no-fuzzy")
    french_after = msgids(fresh_copy, "--translated", "--no-fuzzy")
    assert sorted((french_before & in_the_code) - french_after) == []
