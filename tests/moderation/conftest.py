"""The games tests' players and tables, for the reports about them."""

from __future__ import annotations

from tests.games.conftest import alice, bob, carol, outsider  # noqa: F401
