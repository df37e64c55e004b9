from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache

TEST_TEMPLATES = Path(__file__).parent / "templates"


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> None:
    """allauth counts attempts in the cache; local-memory caches outlive a test."""
    cache.clear()


@pytest.fixture
def sample_email_templates(settings) -> None:
    """An email triple that exists only for tests, built on the real base templates."""
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], TEST_TEMPLATES]}
    ]
