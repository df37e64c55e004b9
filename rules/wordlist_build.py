"""Build Diamino's French word lists from Debian's Grammalecte lexicon.

Run ``python -m rules.wordlist build`` (see ``rules/data/README.md``). This module is
only needed to *build* a list: playing and testing use the committed files in
``rules/data/wordlists/`` and never import Grammalecte.

The lexicon is read from the Debian package ``python3-grammalecte``
(``graphspell/_dictionaries/fr-allvars.json``, the "all variants" dictionary: classic
spelling, 1990 reform and everything in between). Graphspell's ``IBDAWG.select()``
enumerates every (form, lemma, tags) entry; a form is kept when at least one of its
entries has an accepted part of speech and no rejected tag (see ``entry_is_playable``),
and its folded spelling matches ``^[A-Z]{2,15}$``. The hand-reviewed overrides in
``fr-<n>.overrides.txt`` are applied last.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import lzma
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from rules.wordlist import DATA_DIR, SHAPE, fold

PACKAGE = "python3-grammalecte"
DICTIONARY = "fr-allvars.json"
# Where Debian installs pure-Python packages; the project's virtualenv does not see it.
DEBIAN_DIST_PACKAGES = ("/usr/lib/python3/dist-packages",)
LICENCE = "MPL-2.0"
SOURCE = (
    "Grammalecte French lexicon (Olivier R., https://grammalecte.net/), "
    "Debian package python3-grammalecte, graphspell/_dictionaries/fr-allvars.json"
)

# Parts of speech whose forms are playable. Grammalecte tags (graphspell/lexgraph_fr.py):
#   :N noun, :A adjective, :V0 être/avoir, :V1/:V2/:V3 verbs of the 3 groups (every
#   conjugated form is a separate entry; :Y in these tags means *infinitive*), :W adverb,
#   :G grammatical word (pronouns :O*, determiners :D*, prepositions :R, conjunctions
#   :C*), :J interjection, :X negation adverb, :B cardinal number written in words,
#   :T title of address (only the lower-case written-out ones survive: "messieurs"),
#   :ÉW/:ÉA/:ÉN/:ÉJ/:ÉV words that exist only inside a fixed phrase ("à l'envi",
#   "d'emblée", "à tâtons", "a priori"); abbreviations among them are removed by the
#   overrides file.
ACCEPTED_POS = (":N", ":A", ":V0", ":V1", ":V2", ":V3", ":W", ":G", ":J", ":X", ":B", ":T", ":É")

# Tags that disqualify an entry whatever its part of speech:
#   :M1 first name, :M2 surname, :MP other proper noun (places, brands, works…),
#   :ÉM2 element of a surname ("ibn"), :Br roman numeral, :Zp prefix, :Zs suffix,
#   :@ / :@p / :@s punctuation and signs, :H unclassifiable, :F elided form
#   ("jusqu", "presqu"), ;S symbol (units of measurement: "km", "erg", "sr").
REJECTED_TAGS = frozenset(
    {":M1", ":M2", ":MP", ":ÉM2", ":Br", ":Zp", ":Zs", ":@", ":@p", ":@s", ":H", ":F", ";S"}
)

_TAG = re.compile(r"[:;#][^:;#/]*")
_OVERRIDE = re.compile(r"^([+-])([A-Z]+)\s+(\S.*)$")


class BuildError(Exception):
    """The list cannot be built (missing package, bad override file…)."""


@dataclass(frozen=True)
class Override:
    add: bool
    word: str
    reason: str


def tags_of(morph: str) -> list[str]:
    """Split a Grammalecte tag string (``:V1_it_q_zz:Ip:3s/*``) into its tags."""
    morph = morph.rpartition("/")[0] if "/" in morph else morph
    return [tag.rstrip(":") for tag in _TAG.findall(morph)]


def entry_is_playable(form: str, morph: str) -> bool:
    """Whether one lexicon entry (form + tags) gives a playable word."""
    if form != form.lower():  # proper nouns, acronyms, symbols such as "eV"
        return False
    tags = tags_of(morph)
    if not tags or any(tag in REJECTED_TAGS for tag in tags):
        return False
    return tags[0].startswith(ACCEPTED_POS)


def select_words(entries: Iterable[tuple[str, str]]) -> set[str]:
    """Folded playable words from (form, tags) entries."""
    words: set[str] = set()
    for form, morph in entries:
        if entry_is_playable(form, morph):
            word = fold(form)
            if SHAPE.fullmatch(word):
                words.add(word)
    return words


def read_overrides(path: Path) -> list[Override]:
    overrides: list[Override] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _OVERRIDE.match(line)
        if not match or not SHAPE.fullmatch(match.group(2)):
            raise BuildError(f"{path}:{number}: expected '+WORD reason' or '-WORD reason'")
        overrides.append(Override(match.group(1) == "+", match.group(2), match.group(3)))
    return overrides


def apply_overrides(words: set[str], overrides: Iterable[Override]) -> set[str]:
    result = set(words)
    for override in overrides:
        if override.add:
            if override.word in result:
                raise BuildError(f"override +{override.word}: already in the lexicon")
            result.add(override.word)
        else:
            if override.word not in result:
                raise BuildError(f"override -{override.word}: not in the lexicon")
            result.discard(override.word)
    return result


def import_graphspell() -> ModuleType:
    """Import graphspell's IBDAWG module, from this interpreter or Debian's dist-packages."""
    name = "grammalecte.graphspell.ibdawg"
    try:
        return importlib.import_module(name)
    except ImportError:
        pass
    for directory in DEBIAN_DIST_PACKAGES:
        if (Path(directory) / "grammalecte" / "graphspell" / "ibdawg.py").is_file():
            sys.path.append(directory)  # appended: never shadows the virtualenv's packages
            try:
                return importlib.import_module(name)
            finally:
                sys.path.remove(directory)
    raise BuildError(
        "Grammalecte's lexicon is not installed: run `apt-get install python3-grammalecte` "
        f"(the build reads {DICTIONARY} from the Debian package {PACKAGE})."
    )


def package_version() -> str:
    try:
        result = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", PACKAGE],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError(f"cannot read the version of {PACKAGE} with dpkg-query: {exc}") from exc
    return result.stdout.strip()


def lexicon_entries(ibdawg_module: ModuleType) -> Iterator[tuple[str, str]]:
    dictionary = ibdawg_module.IBDAWG(DICTIONARY)
    for form, _lemma, morph in dictionary.select():
        yield form, morph


def lexicon_file(ibdawg_module: ModuleType) -> Path:
    assert ibdawg_module.__file__ is not None, "the lexicon's module is a file"
    return Path(ibdawg_module.__file__).parent / "_dictionaries" / DICTIONARY


def render(words: Iterable[str]) -> bytes:
    """The canonical text: sorted, one word per line, ``\\n`` line ends."""
    return "".join(f"{word}\n" for word in sorted(words)).encode("ascii")


def compress(text: bytes) -> bytes:
    # xz has no timestamp: same input and preset give the same bytes.
    return lzma.compress(text, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=9)


def build_trie(words: list[str]) -> bytes:
    import marisa_trie

    trie = marisa_trie.Trie(words)
    return trie.tobytes()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build(list_id: str, out_dir: Path = DATA_DIR, *, check_only: bool = False) -> dict[str, object]:
    """Build ``list_id`` into ``out_dir``; with ``check_only``, compare with what is there."""
    module = import_graphspell()
    version = package_version()
    overrides_path = out_dir / f"{list_id}.overrides.txt"
    if not overrides_path.is_file():
        raise BuildError(f"missing override file {overrides_path}")
    overrides = read_overrides(overrides_path)
    words = apply_overrides(select_words(lexicon_entries(module)), overrides)
    ordered = sorted(words)
    text = render(ordered)
    trie = build_trie(ordered)
    metadata: dict[str, object] = {
        "id": list_id,
        "source": SOURCE,
        "package": PACKAGE,
        "package_version": version,
        "lexicon_sha256": sha256(lexicon_file(module).read_bytes()),
        "licence": LICENCE,
        "count": len(ordered),
        "sha256": sha256(text),
        "text_file": f"{list_id}.txt.xz",
        "trie_file": f"{list_id}.marisa",
        "trie_sha256": sha256(trie),
        "overrides_file": overrides_path.name,
        "overrides_sha256": sha256(overrides_path.read_bytes()),
    }
    meta_bytes = (json.dumps(metadata, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    outputs = {
        f"{list_id}.txt.xz": compress(text),
        f"{list_id}.marisa": trie,
        f"{list_id}.json": meta_bytes,
    }
    if check_only:
        differing = [
            name
            for name, data in outputs.items()
            if not (out_dir / name).is_file() or (out_dir / name).read_bytes() != data
        ]
        if differing:
            raise BuildError(f"rebuilt {list_id} differs from the committed files: {differing}")
        return metadata
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in outputs.items():
        (out_dir / name).write_bytes(data)
    return metadata
