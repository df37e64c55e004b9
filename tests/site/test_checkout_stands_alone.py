"""A clone passes its own tests: nothing the project runs reads a path outside the checkout.

The rules with their ids (docs/RULES.md), the rulebook the rules page quotes
(learn/data/) and every other file a test reads are in the repository. This
scan fails when code, a test, the Makefile or CI's script reaches beside or
above the checkout: a parent of ``BASE_DIR``, a ``Path(__file__).parents[n]``
that climbs past the root, a relative ``../`` path, or an absolute path into
the machine the project was written on.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)

# String literals that look like an escape but are inputs the code must refuse,
# each with the test that feeds it.
REFUSED_INPUTS: dict[tuple[str, str], str] = {
    ("tests/rules/test_setup.py", "../classique"): "a tile-set name that must be refused",
    (
        "tests/accounts/test_settings_and_deletion.py",
        "../../etc/passwd",
    ): "a setting's value the form refuses",
}

# Shell and make text: a path that climbs out of the checkout or names a machine's folder.
OUTSIDE_IN_TEXT = re.compile(r"(?<![\w.])\.\./|/work/|\bshared/(?:RULES|seed|DESIGN|STYLE)")


def tracked(*patterns: str) -> list[Path]:
    try:
        names = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *patterns],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        # A tarball without .git: every file of the kind below the root.
        names = [
            str(path.relative_to(ROOT))
            for pattern in patterns
            for path in ROOT.rglob(pattern.removeprefix("*/"))
            if ".venv" not in path.parts and "node_modules" not in path.parts
        ]
    return [ROOT / name for name in names]


def escapes(path: Path, source: str) -> list[str]:
    """Where a Python file reaches outside the checkout, as 'line: what'."""
    relative = path.relative_to(ROOT)
    # parents[depth] of this file is the checkout's root; a higher index climbs past it.
    depth = len(relative.parts) - 1
    found = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("parent", "parents")
            and "BASE_DIR" in ast.unparse(node.value)
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)} (above BASE_DIR)")
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "parents"
            and "__file__" in ast.unparse(node.value.value)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)
            and node.slice.value > depth
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)} (above the checkout's root)")
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if (text.startswith("../") or "/../" in text or "/work/" in text) and (
                str(relative),
                text,
            ) not in REFUSED_INPUTS:
                found.append(f"{node.lineno}: {text!r}")
    return found


def test_no_python_file_reads_beside_or_above_the_checkout() -> None:
    files = tracked("*.py")
    assert len(files) > 100, "the scan found almost no Python file: is this the checkout?"
    found = {
        str(path.relative_to(ROOT)): where
        for path in files
        # This file names the ways out it looks for.
        if path != Path(__file__).resolve()
        and (where := escapes(path, path.read_text(encoding="utf-8")))
    }
    assert not found, f"paths outside the checkout: {found}"


def test_the_makefile_and_ci_read_nothing_beside_the_checkout() -> None:
    files = [ROOT / "Makefile", *tracked(".ci/*", "*.sh")]
    found = {
        f"{path.relative_to(ROOT)}:{number}": line.strip()
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE_IN_TEXT.search(line.split("#", 1)[0])
    }
    assert not found, f"paths outside the checkout: {found}"


@pytest.mark.parametrize(
    "source",
    [
        'RULES = Path(settings.BASE_DIR).parent / "shared" / "RULES.md"\n',
        "RULES = settings.BASE_DIR.parent / 'x'\n",
        "HERE = Path(__file__).resolve().parents[3] / 'shared'\n",
        'open("../shared/seed/diamino-regles.txt")\n',
        'open("/work/shared/RULES.md")\n',
    ],
)
def test_the_scan_catches_each_way_out(source: str) -> None:
    assert escapes(ROOT / "tests" / "site" / "example.py", source)


def test_the_scan_lets_paths_inside_the_checkout_through() -> None:
    source = (
        'A = Path(settings.BASE_DIR) / "docs" / "RULES.md"\n'
        "B = Path(__file__).resolve().parents[2] / 'node_modules'\n"
    )
    assert escapes(ROOT / "tests" / "site" / "example.py", source) == []
