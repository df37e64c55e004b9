"""The settings helpers accept good values and refuse bad ones loudly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from diamino_site.env import env_bool, env_file_load, env_int, env_list, env_str, env_url
from tests.site.processes import settings_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("raw", "expected"), [("1", True), ("TRUE", True), ("no", False), ("0", False)]
)
def test_env_bool_reads_the_usual_spellings(raw: str, expected: bool) -> None:
    assert env_bool("X", not expected, environ={"X": raw}) is expected


def test_env_bool_uses_the_default_when_unset() -> None:
    assert env_bool("X", True, environ={}) is True


@pytest.mark.parametrize("raw", ["maybe", "2", "yes please"])
def test_env_bool_rejects_anything_else(raw: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="X must be a boolean"):
        env_bool("X", False, environ={"X": raw})


def test_env_int_reads_a_number_within_bounds() -> None:
    assert env_int("PORT", 1, minimum=1, maximum=65535, environ={"PORT": " 587 "}) == 587


@pytest.mark.parametrize("raw", ["abc", "1.5", "70000", "0"])
def test_env_int_rejects_non_numbers_and_out_of_range(raw: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="PORT"):
        env_int("PORT", 1, minimum=1, maximum=65535, environ={"PORT": raw})


def test_env_str_requires_a_value_without_default() -> None:
    with pytest.raises(ImproperlyConfigured, match="SECRET must be set"):
        env_str("SECRET", environ={})


def test_env_list_splits_on_commas_and_rejects_blanks() -> None:
    assert env_list("H", [], environ={"H": "a.example, b.example"}) == ["a.example", "b.example"]
    with pytest.raises(ImproperlyConfigured, match="without blanks"):
        env_list("H", [], environ={"H": "a.example,,b.example"})


def test_env_url_checks_the_scheme() -> None:
    assert (
        env_url("R", None, schemes=("redis",), environ={"R": "redis://h:6379/0"})
        == "redis://h:6379/0"
    )
    assert env_url("R", None, schemes=("redis",), environ={}) is None
    with pytest.raises(ImproperlyConfigured, match="redis://"):
        env_url("R", None, schemes=("redis",), environ={"R": "http://h"})


def _check(extra_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.pop("REDIS_URL", None)
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_require_a_secret_key() -> None:
    result = _check({"DJANGO_DEBUG": "0"})
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_a_bad_value_stops_the_site_from_starting() -> None:
    result = _check({"DJANGO_DEBUG": "perhaps"})
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be a boolean" in result.stderr


def test_check_deploy_passes_with_production_like_variables(tmp_path: Path) -> None:
    result = _check(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "x" * 20 + "-production-like-secret-key-with-enough-entropy-1234",
            "DJANGO_ALLOWED_HOSTS": "diamino.example",
            "SITE_URL": "https://diamino.example",
            "DIAMINO_DATA_DIR": str(tmp_path),
        },
        "--deploy",
        "--fail-level",
        "WARNING",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _env_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".env"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_env_file_fills_the_variables_the_environment_leaves_unset(tmp_path: Path) -> None:
    path = _env_file(tmp_path, "DIAMINO_POLL_SECONDS=7\nDIAMINO_DIGEST_HOUR=5\n")
    environ = {"DIAMINO_DIGEST_HOUR": "6"}
    assert env_file_load(path, environ=environ) == ["DIAMINO_POLL_SECONDS"]
    assert environ == {"DIAMINO_POLL_SECONDS": "7", "DIAMINO_DIGEST_HOUR": "6"}


def test_an_empty_value_in_the_file_counts_as_unset_but_an_empty_variable_wins(
    tmp_path: Path,
) -> None:
    path = _env_file(tmp_path, "REDIS_URL=\nEMAIL_HOST=smtp.example\nDEFAULT_FROM_EMAIL=a@b\n")
    environ = {"EMAIL_HOST": ""}
    env_file_load(path, environ=environ)
    assert environ == {"EMAIL_HOST": "", "DEFAULT_FROM_EMAIL": "a@b"}


def test_no_env_file_reads_nothing(tmp_path: Path) -> None:
    environ: dict[str, str] = {}
    assert env_file_load(tmp_path / ".env", environ=environ) == []
    assert environ == {}


def test_the_site_reads_its_env_file_at_start_up_and_the_environment_wins(
    tmp_path: Path,
) -> None:
    path = _env_file(tmp_path, "DIAMINO_POLL_SECONDS=7\nDIAMINO_DIGEST_HOUR=5\n")
    poll, digest = settings_of(
        "DIAMINO_POLL_SECONDS DIAMINO_DIGEST_HOUR",
        {"DIAMINO_ENV_FILE": str(path), "DIAMINO_DIGEST_HOUR": "6"},
    )
    assert (poll, digest) == ("7", "6")


def test_a_copy_of_env_example_runs_the_embedded_default(tmp_path: Path) -> None:
    path = _env_file(tmp_path, (ROOT / ".env.example").read_text(encoding="utf-8"))
    backend, eager = settings_of(
        "EMAIL_BACKEND CELERY_TASK_ALWAYS_EAGER",
        {"DIAMINO_ENV_FILE": str(path), "DIAMINO_DATA_DIR": str(tmp_path)},
    )
    assert (backend, eager) == ("diamino_site.mail.ConsoleAndFileBackend", "True")
