"""The rules tests need no Django: they run with ``-p no:django`` too."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def embedded_defaults() -> None:
    """Replaces the suite-wide fixture of the same name, which needs Django settings."""
