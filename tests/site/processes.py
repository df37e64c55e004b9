"""A fresh site process, started from a clean environment, and the settings it sees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_run(
    script: str, env: dict[str, str], *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``script`` in a new Python at the checkout's root, Django set up, with ``env`` added.

    The process sees none of this one's site variables and reads no .env unless
    ``env`` names one (``DIAMINO_ENV_FILE``). It must succeed, unless ``check`` is off.
    """
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DIAMINO_", "EMAIL_", "SENTRY_"))
        and k not in ("REDIS_URL", "DATABASE_URL", "ADMINS")
    }
    clean.update({"DJANGO_SETTINGS_MODULE": "diamino_site.settings", "DIAMINO_ENV_FILE": ""})
    clean.update(env)
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{script}"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 or not check, result.stderr
    return result


def settings_of(names: str, env: dict[str, str]) -> list[str]:
    """The values of the settings ``names`` (space-separated) in a new process, as text."""
    script = (
        "from django.conf import settings; "
        f"print(*(getattr(settings, n) for n in {names.split()!r}), sep='\\n')"
    )
    return python_run(script, env).stdout.splitlines()
