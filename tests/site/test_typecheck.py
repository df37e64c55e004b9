"""mypy's set-up (``[tool.mypy]`` in pyproject.toml): a new app is checked without being
listed, ``rules/`` strictly, and the strictness stays in ``rules/``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MYPY = Path(sys.executable).with_name("mypy")
# What make typecheck reads: the packages, their stubs, the settings' files; not the
# tests (left out by the config), the data or the caches.
SKIPPED = ("tests", "data", "node_modules", "docs", "requirements", "locale")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not MYPY.exists(), reason="mypy not installed")]


def checkout_copy(where: Path) -> Path:
    tree = where / "checkout"
    tree.mkdir()
    shutil.copy(ROOT / "pyproject.toml", tree)
    shutil.copy(ROOT / "manage.py", tree)
    for entry in ROOT.iterdir():
        if entry.is_dir() and not entry.name.startswith(".") and entry.name not in SKIPPED:
            shutil.copytree(
                entry,
                tree / entry.name,
                ignore=shutil.ignore_patterns("__pycache__", "*.dawg", "*.marisa"),
            )
    return tree


def test_a_new_app_is_checked_and_only_rules_strictly(tmp_path: Path) -> None:
    tree = checkout_copy(tmp_path)
    (tree / "newapp").mkdir()
    (tree / "newapp" / "__init__.py").write_text("")
    (tree / "newapp" / "halves.py").write_text(
        "def half(n: int) -> int:\n    return n / 2\n\n\ndef loose(n):\n    return n\n"
    )
    (tree / "rules" / "loose.py").write_text("def loose(n):\n    return n\n")

    # The checkout's cache, where `make test` or `make typecheck` left one, copied: mypy
    # checks each file against it by hash, so only the files changed here are read again
    # (a cold run of the whole tree took a minute and more); the checkout's own is untouched.
    cache = tree / ".mypy_cache"
    if (ROOT / ".mypy_cache").is_dir():
        shutil.copytree(ROOT / ".mypy_cache", cache)
    result = subprocess.run(
        [str(MYPY), f"--cache-dir={cache}"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )

    report = result.stdout
    assert result.returncode == 1, report + result.stderr
    assert 'newapp/halves.py:2: error: Incompatible return value type (got "float"' in report
    assert "rules/loose.py:1: error: Function is missing a type annotation" in report
    # An unannotated function outside rules/ is not an error; and the rest of the tree is clean.
    assert "newapp/halves.py:5" not in report
    assert "Found 2 errors in 2 files" in report, report
