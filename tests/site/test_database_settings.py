"""PostgreSQL gets prepared statements unless told not to; SQLite is left as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POSTGRES = "postgres://diamino@127.0.0.1:5432/diamino"


def _options_with(env: dict[str, str], key: str = "OPTIONS") -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DIAMINO_")) and k not in ("REDIS_URL", "DATABASE_URL")
    }
    script = (
        "import json; from django.conf import settings; "
        f"print(json.dumps(settings.DATABASES['default'].get('{key}', {{}}), default=str))"
    )
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "diamino_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def test_postgresql_prepares_the_statements_a_connection_repeats() -> None:
    options = _options_with({"DATABASE_URL": POSTGRES})
    assert options["server_side_binding"] is True
    assert options["prepare_threshold"] == 5


def test_prepared_statements_can_be_turned_off_for_a_pooler() -> None:
    options = _options_with({"DATABASE_URL": POSTGRES, "DIAMINO_DB_PREPARED_STATEMENTS": "0"})
    assert "server_side_binding" not in options and "prepare_threshold" not in options


def test_sqlite_keeps_its_own_options() -> None:
    options = _options_with({})
    assert "server_side_binding" not in options
    assert options["transaction_mode"] == "IMMEDIATE"


def test_postgresql_connections_persist_and_are_checked_before_reuse() -> None:
    # After a database restart each process finds its connection broken at the
    # check and opens a new one, rather than failing a request with it.
    assert _options_with({"DATABASE_URL": POSTGRES}, "CONN_MAX_AGE") == 60
    assert _options_with({"DATABASE_URL": POSTGRES}, "CONN_HEALTH_CHECKS") is True
