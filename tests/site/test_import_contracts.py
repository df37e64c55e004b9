"""The house's layering (``[tool.importlinter]`` in pyproject.toml) holds, and catches a loop."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "rules",
    "games",
    "accounts",
    "ratings",
    "moderation",
    "notifications",
    "learn",
    "leagues",
    "monitoring",
    "bymail",
)
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter not installed")


def lint_imports(where: Path) -> subprocess.CompletedProcess[str]:
    # --no-cache: nothing written into the tree; cwd: the packages analysed are those there.
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=where, capture_output=True, text=True, timeout=300
    )


def broken(result: subprocess.CompletedProcess[str]) -> str:
    """The report's "Broken contracts" part: each broken contract's name and why."""
    assert result.returncode != 0, result.stdout
    return result.stdout.partition("Broken contracts")[2]


def copy_of_the_project(tmp_path: Path) -> Path:
    for name in (*PACKAGES, "diamino_site", "infra", "benchmarks"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_every_import_contract_is_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_outbox_importing_a_game_breaks_a_contract(tmp_path):
    copy = copy_of_the_project(tmp_path)
    with (copy / "notifications" / "services.py").open("a") as module:
        module.write("\nfrom games.models import Game  # noqa: E402\n")
    report = broken(lint_imports(copy))
    assert "notifications is the outbox" in report
    assert "the apps in layers: no import loop between them" in report  # games imports it


def test_a_view_importing_the_kernel_breaks_a_contract(tmp_path):
    copy = copy_of_the_project(tmp_path)
    with (copy / "games" / "views.py").open("a") as module:
        module.write("\nfrom games.services import kernel  # noqa: E402\n")
    report = broken(lint_imports(copy))
    assert "only games/services/ imports the services' kernel" in report
    assert "games.views -> games.services.kernel" in report


def test_the_infrastructure_importing_an_app_breaks_a_contract(tmp_path):
    copy = copy_of_the_project(tmp_path)
    with (copy / "infra" / "ratelimit.py").open("a") as module:
        module.write("\nfrom accounts.models import User  # noqa: E402\n")
    report = broken(lint_imports(copy))
    assert "the apps in layers: no import loop between them" in report
    assert "infra.ratelimit -> accounts.models" in report
