"""DIAMINO_RELEASE's default: the installed version and, in a git checkout, the commit."""

from __future__ import annotations

import subprocess
from importlib.metadata import version

from django.conf import settings

from diamino_site.release import default_release


def test_in_a_checkout_the_release_is_the_version_and_the_commit() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True, text=True
    ).stdout.strip()
    expected = f"{version('diamino')}+{commit}" if commit else version("diamino")
    assert default_release(settings.BASE_DIR) == expected


def test_outside_a_checkout_the_release_is_the_version_alone(tmp_path) -> None:
    assert default_release(tmp_path) == version("diamino")
