"""The games tests' players and tables, for the reports about them; the outbox's commit."""

from __future__ import annotations

from tests.games.conftest import alice, bob, carol, outsider  # noqa: F401
from tests.notifications.conftest import committed  # noqa: F401
