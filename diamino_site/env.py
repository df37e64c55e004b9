"""Strict readers for settings that come from environment variables.

Each helper returns a typed value or raises ``ImproperlyConfigured`` naming the
variable and what was wrong with it, so a bad deployment fails at start-up
instead of misbehaving later.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from email.utils import getaddresses
from pathlib import Path
from typing import overload
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.core.validators import validate_email
from dotenv import dotenv_values

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(
    name: str, default: str | None = None, *, environ: Mapping[str, str] | None = None
) -> str:
    """The variable's text; ``default`` when unset; an error when unset without default."""
    environ = os.environ if environ is None else environ
    value = environ.get(name)
    if value is None:
        if default is None:
            raise ImproperlyConfigured(f"{name} must be set.")
        return default
    return value


def env_bool(name: str, default: bool, *, environ: Mapping[str, str] | None = None) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (any case); anything else is an error."""
    environ = os.environ if environ is None else environ
    raw = environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no), not {raw!r}.")


def env_int(
    name: str,
    default: int,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """A whole number, optionally within ``[minimum, maximum]``."""
    environ = os.environ if environ is None else environ
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ImproperlyConfigured(f"{name} must be between {minimum} and {maximum}, not {value}.")
    return value


def env_list(
    name: str, default: list[str], *, environ: Mapping[str, str] | None = None
) -> list[str]:
    """A comma-separated list; blank items are an error (they hide typos like ``a,,b``)."""
    environ = os.environ if environ is None else environ
    raw = environ.get(name)
    if raw is None:
        return list(default)
    items = [item.strip() for item in raw.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(
            f"{name} must be a comma-separated list without blanks, not {raw!r}."
        )
    return items


@overload
def env_url(
    name: str, default: str, *, schemes: tuple[str, ...], environ: Mapping[str, str] | None = None
) -> str: ...
@overload
def env_url(
    name: str, default: None, *, schemes: tuple[str, ...], environ: Mapping[str, str] | None = None
) -> str | None: ...
def env_url(
    name: str,
    default: str | None,
    *,
    schemes: tuple[str, ...],
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """A URL whose scheme is one of ``schemes``; ``default`` when unset or empty."""
    environ = os.environ if environ is None else environ
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    parsed = urlparse(raw)
    if parsed.scheme not in schemes or not (parsed.netloc or parsed.path):
        allowed = ", ".join(f"{s}://" for s in schemes)
        raise ImproperlyConfigured(f"{name} must be a URL starting with {allowed}, not {raw!r}.")
    return raw


def env_file_load(path: Path, *, environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Copy the variables of a ``.env`` file into the environment; the names copied.

    The environment wins: a variable already set, even to an empty value, is
    left as it is, so a deployment can override the file one variable at a
    time. An empty value in the file counts as unset (the default applies),
    so a plain copy of ``.env.example`` runs the embedded default. No file,
    nothing read.
    """
    environ = os.environ if environ is None else environ
    if not path.is_file():
        return []
    copied = []
    for name, value in dotenv_values(path).items():
        if name in environ or value is None or not value.strip():
            continue
        environ[name] = value
        copied.append(name)
    return copied


def env_addresses(name: str, *, environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """``Name <a@example.com>, b@example.com`` as ``(name, address)`` pairs; none when unset."""
    environ = os.environ if environ is None else environ
    raw = environ.get(name, "").strip()
    if not raw:
        return []
    pairs = getaddresses([raw])
    try:
        for _name, address in pairs:
            validate_email(address)
    except ValidationError:
        raise ImproperlyConfigured(
            f"{name} must be comma-separated addresses like 'Name <a@example.com>', not {raw!r}."
        ) from None
    return pairs
