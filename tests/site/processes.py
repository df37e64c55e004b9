"""A fresh site process, started from a clean environment, and the settings it sees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def site_env(env: dict[str, str]) -> dict[str, str]:
    """This process's environment without its site variables, with ``env`` added.

    A new process given it sees none of this one's site settings and reads no
    .env unless ``env`` names one (``DIAMINO_ENV_FILE``).
    """
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DIAMINO_", "EMAIL_", "SENTRY_"))
        and k not in ("REDIS_URL", "DATABASE_URL", "ADMINS")
    }
    clean.update({"DJANGO_SETTINGS_MODULE": "diamino_site.settings", "DIAMINO_ENV_FILE": ""})
    clean.update(env)
    return clean


def python_command(script: str) -> list[str]:
    """The command that runs ``script`` in a new Python, Django set up."""
    return [sys.executable, "-c", f"import django; django.setup()\n{script}"]


def python_run(
    script: str, env: dict[str, str], *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``script`` in a new Python at the checkout's root, Django set up, with ``env`` added
    to a clean environment (``site_env``). It must succeed, unless ``check`` is off."""
    result = subprocess.run(
        python_command(script),
        cwd=ROOT,
        env=site_env(env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 or not check, result.stderr
    return result


def python_start(script: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """``script`` started as ``python_run`` runs it, not waited for: its stdout is a pipe."""
    return subprocess.Popen(
        python_command(script),
        cwd=ROOT,
        env=site_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def settings_of(names: str, env: dict[str, str]) -> list[str]:
    """The values of the settings ``names`` (space-separated) in a new process, as text."""
    script = (
        "from django.conf import settings; "
        f"print(*(getattr(settings, n) for n in {names.split()!r}), sep='\\n')"
    )
    return python_run(script, env).stdout.splitlines()
