"""Who renders each kind of outbox email: the outbox sends rows, the apps say what they hold.

An app that puts its emails through the outbox registers each kind it writes,
from its ``AppConfig.ready``: ``register(kind, render=…, why_not=…)``.
``render(row)`` returns the message to send, or raises ``Skip`` when there is
nothing to send any more; ``why_not(recipient, kind)`` says why the recipient
gets no email of that kind now ("" when they do), checked when the row is
written and again when it is sent. ``forget_after_send``: the row's context is
emptied once the email has gone, for kinds whose context holds what should not
stay in the database (a password-reset link). ``when_done(kind, hook)``: ``hook(row)``
runs in the transaction that records a row of that kind sent or skipped, with the row
as its renderer left it (the daily digest marks the events it went through:
``notifications.services.digest_told``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.core.mail import EmailMessage

    from accounts.models import User
    from notifications.models import Notification


class Skip(Exception):
    """Nothing to send any more; the message says why (for the admin)."""


@dataclass(frozen=True)
class OutboxKind:
    render: Callable[[Notification], EmailMessage]
    why_not: Callable[[User | None, str], str]
    forget_after_send: bool = False


_KINDS: dict[str, OutboxKind] = {}
_WHEN_DONE: dict[str, Callable[[Notification], None]] = {}


def register(
    kind: str,
    *,
    render: Callable[[Notification], EmailMessage],
    why_not: Callable[[User | None, str], str],
    forget_after_send: bool = False,
) -> None:
    if kind in _KINDS and _KINDS[kind].render is not render:
        raise ValueError(f"outbox kind {kind!r} is registered twice")
    _KINDS[kind] = OutboxKind(render=render, why_not=why_not, forget_after_send=forget_after_send)


def when_done(kind: str, hook: Callable[[Notification], None]) -> None:
    """Run ``hook(row)`` in the transaction that records a row of ``kind`` sent or skipped."""
    if _WHEN_DONE.get(kind, hook) is not hook:
        raise ValueError(f"outbox kind {kind!r} has a hook when done already")
    _WHEN_DONE[kind] = hook


def done(row: Notification) -> None:
    """The hook of ``row``'s kind, if it has one (``when_done``)."""
    hook = _WHEN_DONE.get(row.kind)
    if hook is not None:
        hook(row)


def forgetful() -> list[str]:
    """The kinds whose context is emptied once sent or given up (``forget_after_send``)."""
    return [kind for kind, entry in _KINDS.items() if entry.forget_after_send]


def get(kind: str) -> OutboxKind:
    try:
        return _KINDS[kind]
    except KeyError:
        raise LookupError(f"no app registered the outbox kind {kind!r}") from None
