"""Look-alike names: no player may pass for another by their display name or username.

Two names *look alike* when they fold to a common key. A name's keys are made
by the steps of Unicode's UTS #39 (confusable detection), case-insensitive:

1. NFKC: compatibility forms become plain letters (fullwidth ``ａ``, the
   mathematical ``𝐚``, the ligature ``ﬁ``);
2. the accents go: NFD, then the combining marks are dropped (``Élise`` → ``Elise``);
3. case folding (``Alice`` → ``alice``);
4. a *skeleton*: each character becomes the representative of its class of
   look-alikes (Cyrillic ``а`` → ``a``, ``0`` → ``O``'s class, ``1``/``I``/``l``
   together), from Unicode's confusables data as the ``confusable_homoglyphs``
   package ships it; the classes are the connected groups of its pairs;
5. what is not a letter or a digit goes (spaces, dots, dashes, invisible marks).

Folding the case before the skeleton misses a capital ``I`` standing for an
``l`` (``Iouis`` for ``louis``: ``I`` folds to ``i``), and the skeleton before
the case misses ``Ilona`` for ``ilona``: a name has both keys, and two names
look alike when their keys meet.

The check reads every account's two names (their keys are remembered by the
process: a few milliseconds for a few thousand accounts once warm, about 70 µs a
name the first time); it runs when a player saves a display name or signs up,
never on a page view.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any

from confusable_homoglyphs import confusables  # type: ignore[import-untyped]  # no py.typed, no stubs
from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from accounts.models import User


@cache
def _look_alikes(char: str) -> frozenset[str]:
    """The single characters Unicode's confusables data pairs with ``char``."""
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=[])
    if not found:
        return frozenset()
    return frozenset(
        glyph["c"] for entry in found for glyph in entry["homoglyphs"] if len(glyph["c"]) == 1
    )


_representative: dict[str, str] = {}


def _class_of(char: str) -> str:
    """The representative of ``char``'s class of look-alikes (itself when it has none).

    The class is walked once, and every member remembers the same representative:
    an ASCII letter or digit when the class holds one (the smallest), else its
    smallest character.
    """
    known = _representative.get(char)
    if known is not None:
        return known
    members = {char}
    todo = [char]
    while todo:
        for other in _look_alikes(todo.pop()):
            if other not in members:
                members.add(other)
                todo.append(other)
    plain = [c for c in members if c.isascii() and c.isalnum()]
    chosen = min(plain or members)
    for member in members:
        _representative[member] = chosen
    return chosen


def _skeleton(text: str) -> str:
    return "".join(_class_of(char) for char in text)


def _plain(name: str) -> str:
    """NFKC, without accents or other combining marks."""
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _letters(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


@lru_cache(maxsize=65536)  # every check reads every account's names again
def name_keys(name: str) -> frozenset[str]:
    """The keys of ``name``; empty for a name with no letter or digit."""
    plain = _plain(name)
    keys = {
        _letters(_skeleton(plain.casefold())),
        _letters(_skeleton(_skeleton(plain).casefold())),
    }
    keys.discard("")
    return frozenset(keys)


def look_alike(one: str, other: str) -> bool:
    """Whether the two names fold to a common key."""
    return not name_keys(one).isdisjoint(name_keys(other))


def _names(exclude: int | None) -> Iterable[tuple[str, str]]:
    users = User.objects.all()
    if exclude is not None:
        users = users.exclude(pk=exclude)
    return users.values_list("username", "display_name").iterator(chunk_size=2000)


def name_taken(name: str, *, by: User | None = None) -> bool:
    """Whether ``name`` looks like another account's username or display name.

    ``by``: the account choosing the name, whose own names do not count (a
    player may show their own username as their display name); None for a
    new account (sign-up).
    """
    keys = name_keys(name)
    if not keys:
        return False
    if by is not None and not keys.isdisjoint(name_keys(by.username)):
        # Their own username, in other capitals or letters: it passes for nobody the
        # username itself does not already look like (two usernames from before the rule).
        return False
    for username, display_name in _names(by.pk if by is not None else None):
        if not keys.isdisjoint(name_keys(username)):
            return True
        if display_name and not keys.isdisjoint(name_keys(display_name)):
            return True
    return False


def display_name_collisions(accounts: Iterable[tuple[int, str, str, bool]]) -> list[int]:
    """The accounts whose display name must go, from ``(pk, username, display_name, is_computer)``
    in the order they joined (the data migration that brought the rule in).

    A display name goes when it looks like another account's username (the
    username is who a player is, whoever came first), or like the display name
    of an account that joined earlier and keeps it; unless it looks like the
    account's own username (as ``name_taken`` allows). A computer player keeps
    its name: it is the site's, and counts as taken.
    """
    accounts = list(accounts)
    usernames: dict[str, set[int]] = {}
    for pk, username, _display, _computer in accounts:
        for key in name_keys(username):
            usernames.setdefault(key, set()).add(pk)
    kept = {key for _pk, _u, name, computer in accounts if computer for key in name_keys(name)}
    cleared = []
    for pk, username, display_name, is_computer in accounts:
        keys = name_keys(display_name) if display_name and not is_computer else frozenset()
        if not keys:
            continue
        own = not keys.isdisjoint(name_keys(username))
        borrowed = any(usernames.get(key, set()) - {pk} for key in keys)
        if not own and (borrowed or not keys.isdisjoint(kept)):
            cleared.append(pk)
        else:
            kept |= keys
    return cleared


def display_name_cleared_email(
    *, username: str, email: str, old_name: str, language: str
) -> dict[str, Any]:
    """The email telling a player their display name was removed, as the outbox's
    account emails hold it (``notifications/account_emails.py``: rendered when written)."""
    site_url = settings.SITE_URL.rstrip("/")
    context = {
        "user": {"username": username},
        "old_name": old_name,
        "site_url": site_url,
        "settings_url": site_url + reverse("accounts:settings"),
    }
    with translation.override(language):
        context["language"] = translation.get_language()
        subject = render_to_string("emails/display_name_cleared_subject.txt", context).strip()
        context["subject"] = subject
        text = render_to_string("emails/display_name_cleared_body.txt", context).strip() + "\n"
        html = render_to_string("emails/display_name_cleared_body.html", context)
    return {
        "template": "display_name_cleared",
        "from": settings.DEFAULT_FROM_EMAIL,
        "to": [email],
        "subject": settings.ACCOUNT_EMAIL_SUBJECT_PREFIX + subject,
        "text": text,
        "html": html,
    }
