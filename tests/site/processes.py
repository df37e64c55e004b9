"""Settings as a freshly started site process sees them, from a clean environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def settings_of(names: str, env: dict[str, str]) -> list[str]:
    """The values of the settings ``names`` (space-separated) in a new process, as text.

    The process sees none of this one's site variables and reads no .env unless
    ``env`` names one (``DIAMINO_ENV_FILE``).
    """
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DIAMINO_", "EMAIL_", "SENTRY_"))
        and k not in ("REDIS_URL", "DATABASE_URL", "ADMINS")
    }
    clean.update({"DJANGO_SETTINGS_MODULE": "diamino_site.settings", "DIAMINO_ENV_FILE": ""})
    clean.update(env)
    script = (
        "from django.conf import settings; "
        f"print(*(getattr(settings, n) for n in {names.split()!r}), sep='\\n')"
    )
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()
