"""The outbox renders each kind through the renderer its app registered, and only those."""

from __future__ import annotations

import pytest

from notifications import kinds, renderers
from notifications.models import Notification
from tests.factories import make_player


def test_every_kind_of_notification_is_known_to_the_outbox_once_the_apps_are_ready():
    for kind in Notification.Kind.values:
        kinds.get(kind)  # raises LookupError for a kind no app registered
    assert renderers.built_kinds() == set(Notification.Kind.values) - {
        Notification.Kind.ACCOUNT,
        Notification.Kind.MAIL_ANSWER,  # bymail renders its own (bymail/emails.py)
        Notification.Kind.CHAT,  # web push only (notifications/push.py)
    }


@pytest.mark.django_db
def test_a_kind_no_app_registered_is_refused_with_its_name(monkeypatch):
    monkeypatch.setattr(renderers, "_RENDERERS", {})
    row = Notification(recipient=make_player("alice"), kind="turn", key="k", context={})
    with pytest.raises(renderers.UnknownKind, match="'turn'"):
        renderers.render(row)


def test_a_second_renderer_for_a_kind_is_a_mistake(monkeypatch):
    monkeypatch.setattr(renderers, "_RENDERERS", {})
    monkeypatch.setattr(kinds, "_KINDS", {})

    def first(row):
        return "turn", {}

    renderers.register("turn", first)
    renderers.register("turn", first)  # ready() run again: harmless
    with pytest.raises(ValueError, match="already has a renderer"):
        renderers.register("turn", lambda row: ("turn", {}))
