"""The embedded database must be able to write a notification (INSERT … RETURNING)."""

from __future__ import annotations

from types import SimpleNamespace

import django.db

from notifications import apps


def on(monkeypatch, vendor: str, version: tuple[int, int, int]) -> None:
    monkeypatch.setattr(django.db, "connections", {"default": SimpleNamespace(vendor=vendor)})
    monkeypatch.setattr(apps.sqlite3, "sqlite_version_info", version)
    monkeypatch.setattr(apps.sqlite3, "sqlite_version", ".".join(map(str, version)))


def test_an_old_sqlite_is_refused_at_start_with_a_reason(monkeypatch) -> None:
    on(monkeypatch, "sqlite", (3, 34, 1))
    (error,) = apps.sqlite_can_return(databases=["default"])
    assert error.id == "notifications.E001" and "3.34.1 is too old" in error.msg


def test_a_recent_sqlite_or_another_database_passes(monkeypatch) -> None:
    on(monkeypatch, "sqlite", (3, 35, 0))
    assert apps.sqlite_can_return(databases=["default"]) == []
    on(monkeypatch, "postgresql", (3, 34, 1))
    assert apps.sqlite_can_return(databases=["default"]) == []
